import { expect, test, type Page } from "./support/test";
import { startWebhookReceiver } from "../support/webhook-receiver";
import { usersCsv, usersWithMistakes } from "../fixtures/imports";
import { gotoHydrated, openImportWizard, revealApiToken } from "./support/console";

// A phone held upright: no page of the console may scroll sideways on it.
const phone = { width: 390, height: 844 };
test.use({ viewport: phone, isMobile: true, hasTouch: true });

/**
 * Asserts the page is no wider than the phone, naming what sticks out when it is, and keeps a
 * screenshot of the whole page to look at.
 */
async function expectNoSidewaysScroll(page: Page, name: string) {
  await page.screenshot({ path: test.info().outputPath(`${name}.png`), fullPage: true });
  const { width, overflowing } = await page.evaluate((limit) => {
    const describe = (element: Element) => {
      const id = element.id ? `#${element.id}` : "";
      const label = element.getAttribute("aria-label");
      const text = (element.textContent ?? "").trim().slice(0, 40);
      return `${element.tagName.toLowerCase()}${id}${label ? `[${label}]` : ""} "${text}"`;
    };
    // The outermost elements that reach past the edge: their descendants say nothing new.
    const past = [...document.body.querySelectorAll("*")].filter(
      (element) => element.getBoundingClientRect().right > limit + 0.5,
    );
    const outermost = past.filter((element) => !past.includes(element.parentElement!));
    return {
      width: document.documentElement.scrollWidth,
      overflowing: outermost.slice(0, 5).map(describe),
    };
  }, phone.width);
  expect(width, `${name} is ${width} px wide: ${overflowing.join("; ")}`).toBeLessThanOrEqual(
    phone.width,
  );
}

test.describe("signed out", () => {
  test.use({ storageState: { cookies: [], origins: [] } });

  test("the sign-in page fits a phone", async ({ page }) => {
    await page.goto("/sign-in");
    await expect(page.getByRole("heading", { level: 1, name: "Sign in" })).toBeVisible();
    await expectNoSidewaysScroll(page, "sign-in");
    await page.getByLabel("Administrator password").fill("not-the-password");
    await page.getByRole("button", { name: "Sign in" }).click();
    await expect(page.getByText(/^Wrong password/)).toBeVisible();
    await expectNoSidewaysScroll(page, "sign-in-refused");
  });
});

test("the overview, settings and webhooks pages fit a phone, with a delivery open", async ({
  page,
}) => {
  test.setTimeout(90_000);
  await page.goto("/");
  await expect(page.getByRole("heading", { level: 1, name: "Overview" })).toBeVisible();
  await page.waitForLoadState("networkidle");
  await expectNoSidewaysScroll(page, "overview");

  await page.goto("/settings");
  const token = await revealApiToken(page, "local");
  await expectNoSidewaysScroll(page, "settings");

  // Something in the log to open, delivered to a receiver: a category the webhooks tests,
  // which share this server's log, do not count.
  const receiver = await startWebhookReceiver();
  const headers = { "Api-Token": token };
  const settings = (data: Record<string, unknown>) =>
    page.request.put("/sandbox/local/v1/applications/local/settings/webhook", {
      headers,
      data: { application_id: "local", ...data },
    });
  try {
    await settings({ enabled: true, url: receiver.url, enabled_events: ["room:delete"] });
    await page.request.post("/sandbox/local/v1/sandbox/events", {
      headers,
      data: { category: "room:delete" },
    });
    await receiver.waitFor(1);

    await gotoHydrated(page, "/webhooks", 'form[aria-label="Webhook settings"]');
    const log = page.getByRole("list", { name: "Deliveries" });
    await expect(log.getByRole("listitem").first()).toContainText("Delivered (2xx)");
    await expectNoSidewaysScroll(page, "webhooks");
    const first = log.getByRole("listitem").first();
    await first.getByRole("button", { expanded: false }).first().click();
    await first.getByText("Request headers").first().click();
    await expect(first).toContainText("x-sendbird-signature");
    await expectNoSidewaysScroll(page, "webhooks-delivery-open");

    await page.getByRole("link", { name: "Payload reference" }).click();
    await expect(page.getByRole("heading", { name: "Webhook payload reference" })).toBeVisible();
    await expectNoSidewaysScroll(page, "webhooks-reference");
  } finally {
    await settings({ enabled: false, url: "", enabled_events: [] });
    await receiver.stop();
  }
});

test("the imports pages fit a phone: the list, every step of the wizard, a job and the migration", async ({
  page,
}) => {
  test.setTimeout(90_000);
  await page.goto("/imports");
  await expect(page.getByRole("heading", { level: 1, name: "Imports" })).toBeVisible();
  await expectNoSidewaysScroll(page, "imports");

  await openImportWizard(page);
  await expectNoSidewaysScroll(page, "import-wizard-kind");
  await page.getByRole("radio", { name: /Users/ }).check();
  await page.getByRole("button", { name: "Continue" }).click();
  await expectNoSidewaysScroll(page, "import-wizard-file");
  const { users } = usersWithMistakes(`phone${Date.now().toString(36)}`);
  await page.getByLabel("File to import").setInputFiles({
    name: "people.csv",
    mimeType: "text/csv",
    buffer: Buffer.from(usersCsv(users)),
  });
  await expect(page.getByText("people.csv: CSV, 487 bytes, 8 rows and 5 columns.")).toBeVisible();
  await expectNoSidewaysScroll(page, "import-wizard-file-read");
  await page.getByRole("button", { name: "Continue to mapping" }).click();
  await expect(page.getByRole("button", { name: "Validate 8 rows" })).toBeVisible();
  await expectNoSidewaysScroll(page, "import-wizard-mapping");
  await page.getByRole("button", { name: "Validate 8 rows" }).click();
  await expect(page.getByRole("grid", { name: "Rows of the file" })).toBeVisible();
  await expectNoSidewaysScroll(page, "import-wizard-preview");
  await page.getByRole("button", { name: "Continue to plan" }).click();
  await expect(page).toHaveURL(/\/imports\/[0-9a-f-]{36}$/, { timeout: 20_000 });
  await expect(page.getByTestId("plan-create")).toHaveText("4");
  await expectNoSidewaysScroll(page, "import-job");

  await page.goto("/imports");
  await expect(page.getByRole("link", { name: /people\.csv/ }).first()).toBeVisible();
  await expectNoSidewaysScroll(page, "imports-with-a-job");

  await page.goto("/imports/migration");
  await expect(page.getByRole("heading", { level: 1 })).toBeVisible();
  await expectNoSidewaysScroll(page, "migration");
});
