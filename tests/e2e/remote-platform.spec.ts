import { createHmac } from "node:crypto";
import http from "node:http";
import type { AddressInfo } from "node:net";
import { expect, test, type Page } from "./support/test";
import { webhookCategories } from "@/lib/schemas/webhooks";
import { usersCsv, validUsers } from "../fixtures/imports";
import { startSandboxServer, type SandboxServer } from "../api/support/sandbox-server";
import { startConsoleServer, type ConsoleServer } from "../support/console-server";
import { startWebhookReceiver } from "../support/webhook-receiver";

/**
 * The console pointed at a remote platform (PLATFORM_* variables). The "remote platform" is the
 * sandbox served on its own port: a real HTTP peer the console reaches only over the network.
 */
let remote: SandboxServer;
let consoleServer: ConsoleServer;
let receiver: Awaited<ReturnType<typeof startWebhookReceiver>>;

test.use({ storageState: { cookies: [], origins: [] } });
test.describe.configure({ timeout: 120_000 });

test.beforeAll(async () => {
  test.setTimeout(180_000);
  remote = await startSandboxServer();
  receiver = await startWebhookReceiver();
  consoleServer = await startConsoleServer({
    PLATFORM_CHAT_URL: remote.baseUrl,
    PLATFORM_CALLS_URL: remote.baseUrl,
    PLATFORM_APP_ID: remote.appId,
    PLATFORM_API_TOKEN: remote.token,
    // A platform that stops answering is given up on quickly (plan test below); 1 s was too
    // short for an answering one on a loaded machine (a connection check timed out).
    PLATFORM_TIMEOUT_MS: "3000",
  });
});

/** Signs in on the second console, which has a password of its own. */
async function signInOnConsole(page: Page, next: string, server: ConsoleServer = consoleServer) {
  const origin = server.origin;
  await page.goto(`${origin}/sign-in?next=${next}`);
  await page.getByLabel("Administrator password").fill(server.adminPassword);
  await page.getByRole("button", { name: "Sign in" }).click();
  await expect(page).toHaveURL(`${origin}${next}`);
}

test.afterAll(async () => {
  await consoleServer?.stop();
  await receiver?.stop();
  await remote?.stop();
});

test("against a remote platform: settings say so, webhooks are saved there, and test events are posted by the console", async ({
  page,
}) => {
  const origin = consoleServer.origin;
  await signInOnConsole(page, "/settings");

  await expect(page.getByText("Remote platform", { exact: true })).toBeVisible();
  await expect(page.getByText(remote.baseUrl).first()).toBeVisible();
  await expect(page.getByText(`••••••••${remote.token.slice(-4)}`)).toBeVisible();
  await page.getByRole("button", { name: "Check connection" }).click();
  await expect(page.getByText("Connected", { exact: true })).toBeVisible();
  // The remote platform's token never reaches the browser.
  expect(await page.content()).not.toContain(remote.token);

  await page.goto(`${origin}/webhooks`);
  await page.locator('form[aria-label="Webhook settings"][data-hydrated="true"]').waitFor();
  await page.getByRole("switch", { name: "Enabled" }).click();
  await page.getByLabel("Endpoint URL").fill(receiver.url);
  await page.getByRole("checkbox", { name: "room:create", exact: true }).click();
  await page.getByRole("button", { name: "Review and save" }).click();
  await page.getByRole("alertdialog").getByRole("button", { name: "Confirm and save" }).click();
  await expect(page.getByTestId("webhook-save-answer")).toContainText('"enabled": true');

  const stored = await fetch(`${remote.baseUrl}/v1/applications/${remote.appId}/settings/webhook`, {
    headers: { "Api-Token": remote.token },
  }).then((response) => response.json() as Promise<{ webhook: Record<string, unknown> }>);
  expect(stored.webhook).toMatchObject({
    enabled: true,
    url: receiver.url,
    enabled_events: ["room:create"],
  });
  expect(await page.content()).not.toContain(remote.token);

  const panel = page.getByRole("region", { name: "Test event" });
  await panel.getByLabel("Category").selectOption("room:create");
  await expect(panel).toContainText("The console itself posts this payload");
  const expected = JSON.parse(
    (await panel.getByTestId("test-event-preview").textContent())!,
  ) as Record<string, unknown>;
  await panel.getByRole("button", { name: "Send test event" }).click();
  const [hook] = await receiver.waitFor(1);
  expect(hook!.body).toEqual(expected);
  expect(hook!.headers["content-type"]).toBe("application/json");
  // Signed the way the platform signs its own deliveries, with the application's API token.
  expect(hook!.headers["x-sendbird-signature"]).toBe(
    createHmac("sha256", remote.token).update(hook!.raw).digest("hex"),
  );
  await expect(page.getByRole("region", { name: "Verifying deliveries" })).toContainText(
    "signed the same way",
  );
  await expect(
    page.getByRole("listitem", { name: "Delivery of room:create" }).first(),
  ).toContainText("Delivered (2xx)");
});

test("a plan the remote platform cannot answer says why, and is made once it answers again", async ({
  page,
}) => {
  await signInOnConsole(page, "/imports/new");
  await page.locator('[data-testid="import-wizard"][data-hydrated="true"]').waitFor();
  await page.getByRole("radio", { name: /Users/ }).check();
  await page.getByRole("button", { name: "Continue" }).click();
  const csv = usersCsv(validUsers(2, `paused_${Date.now().toString(36)}`));
  await page
    .getByLabel("File to import")
    .setInputFiles({ name: "two.csv", mimeType: "text/csv", buffer: Buffer.from(csv) });
  await page.getByRole("button", { name: "Continue to mapping" }).click();
  await page.getByRole("button", { name: "Validate 2 rows" }).click();

  remote.pause();
  try {
    await page.getByRole("button", { name: "Continue to plan" }).click();
    await expect(page).toHaveURL(/\/imports\/[0-9a-f-]{36}$/, { timeout: 20_000 });
    // While the look-ups wait for the platform, the page shows the plan being made.
    await expect(page.getByText("Planning", { exact: true })).toBeVisible();
    await expect(
      page.getByRole("progressbar", { name: "Asking the platform which users already exist" }),
    ).toBeVisible();
    await expect(page.getByText("0 of 2 rows checked.", { exact: false })).toBeVisible();
    await expect(
      page.getByRole("alert").filter({ hasText: "The plan could not be made" }),
    ).toBeVisible({ timeout: 60_000 });
    await expect(page.getByText("Draft", { exact: true })).toBeVisible();
  } finally {
    remote.resume();
  }
  await page.getByRole("button", { name: "Plan again" }).click();
  await expect(page.getByTestId("plan-create")).toHaveText("2", { timeout: 20_000 });
  await expect(page.getByText("Planned", { exact: true })).toBeVisible();
});

test("the console's own test deliveries are filtered by room id and by time, like the sandbox's log", async ({
  page,
}) => {
  const answer = await fetch(`${remote.baseUrl}/v1/applications/${remote.appId}/settings/webhook`, {
    method: "PUT",
    headers: { "Api-Token": remote.token, "content-type": "application/json" },
    body: JSON.stringify({
      application_id: remote.appId,
      enabled: true,
      url: receiver.url,
      enabled_events: ["room:create"],
    }),
  });
  expect(answer.status).toBe(200);
  await signInOnConsole(page, "/webhooks");
  await page.locator('form[aria-label="Webhook settings"][data-hydrated="true"]').waitFor();
  const panel = page.getByRole("region", { name: "Test event" });
  await panel.getByLabel("Category").selectOption("room:create");
  const before = receiver.received.length;
  for (const roomId of ["room-filter-a", "room-filter-b"]) {
    await panel.getByLabel("room_id").fill(roomId);
    await panel.getByRole("button", { name: "Send test event" }).click();
    await expect(panel.getByText("The console is posting the room:create event")).toBeVisible();
    await receiver.waitFor(before + (roomId.endsWith("a") ? 1 : 2));
  }

  const log = page.getByRole("form", { name: "Delivery filters" });
  const rows = page.getByRole("listitem", { name: "Delivery of room:create" });
  await log.getByLabel("call_id or room_id").fill("room-filter-a");
  await log.getByRole("button", { name: "Apply filters" }).click();
  await expect(rows).toHaveCount(1);
  await rows.first().getByRole("button").first().click();
  await expect(rows.first()).toContainText('"room_id": "room-filter-a"');

  await log.getByRole("button", { name: "Clear" }).click();
  await log.getByLabel("Accepted from").fill("2999-01-01T00:00");
  await log.getByRole("button", { name: "Apply filters" }).click();
  await expect(page.getByText("No delivery matches these filters.")).toBeVisible();
});

/**
 * A platform that lists a category added after this console was written, and keeps its webhook
 * settings the way section 4 says (the only operations the Webhooks page needs of it).
 */
async function startPlatformWithNewCategory(newCategory: string) {
  const appId = "newer";
  const settingsPath = `/v1/applications/${appId}/settings/webhook`;
  let stored = {
    enabled: true,
    url: "https://hooks.example.com/calls",
    include_members: false,
    enabled_events: ["room:create", newCategory],
  };
  const puts: Array<Record<string, unknown>> = [];
  const server = http.createServer((req, res) => {
    let text = "";
    req.on("data", (chunk) => (text += chunk));
    req.on("end", () => {
      const answer = (status: number, body: unknown) =>
        res.writeHead(status, { "content-type": "application/json" }).end(JSON.stringify(body));
      const url = new URL(req.url ?? "/", "http://platform");
      if (url.pathname !== settingsPath)
        return answer(404, { message: "No such route.", code: 400404, error: true });
      if (req.method === "PUT") {
        const body = JSON.parse(text) as Record<string, unknown>;
        puts.push(body);
        const { application_id: _appId, ...update } = body;
        stored = { ...stored, ...update };
        return answer(200, stored);
      }
      const all = url.searchParams.get("display_all_webhook_categories") === "true";
      return answer(200, {
        webhook: {
          ...stored,
          ...(all ? { all_webhook_categories: [...webhookCategories, newCategory] } : {}),
        },
      });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    baseUrl,
    appId,
    puts,
    stop: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

test("a category the platform added after this console was written is offered and saved", async ({
  page,
}) => {
  const newCategory = "room:recording_start";
  const platform = await startPlatformWithNewCategory(newCategory);
  const newer = await startConsoleServer({
    PLATFORM_CHAT_URL: platform.baseUrl,
    PLATFORM_CALLS_URL: platform.baseUrl,
    PLATFORM_APP_ID: platform.appId,
    PLATFORM_API_TOKEN: "newer-platform-token",
  });
  try {
    await signInOnConsole(page, "/webhooks", newer);
    await page.locator('form[aria-label="Webhook settings"][data-hydrated="true"]').waitFor();
    const added = page.getByRole("checkbox", { name: newCategory, exact: true });
    await expect(added).toBeChecked();
    // The log holds only the console's own test events, of categories it can build: the
    // filter offers those, never one its log would refuse.
    const logCategory = page.getByRole("form", { name: "Delivery filters" }).getByLabel("Category");
    await expect(logCategory.locator("option")).toHaveText([
      "All categories",
      ...webhookCategories,
    ]);
    // Saving anything keeps it; ticking another category adds to it.
    await page.getByRole("checkbox", { name: "room:delete", exact: true }).click();
    await page.getByRole("button", { name: "Review and save" }).click();
    await expect(page.getByRole("alertdialog")).toBeVisible();
    await page.getByRole("alertdialog").getByRole("button", { name: "Confirm and save" }).click();
    await expect(page.getByTestId("webhook-save-answer")).toContainText(newCategory);
    expect(platform.puts.at(-1)?.enabled_events).toEqual([
      "room:create",
      "room:delete",
      newCategory,
    ]);

    // Unticked and ticked again by the administrator, it is sent like any other.
    await added.click();
    await page.getByRole("button", { name: "Review and save" }).click();
    await page.getByRole("alertdialog").getByRole("button", { name: "Confirm and save" }).click();
    await expect(page.getByTestId("webhook-save-answer")).not.toContainText(newCategory);
    await added.click();
    await page.getByRole("button", { name: "Review and save" }).click();
    await page.getByRole("alertdialog").getByRole("button", { name: "Confirm and save" }).click();
    await expect(page.getByTestId("webhook-save-answer")).toContainText(newCategory);
    expect(platform.puts).toHaveLength(3);
  } finally {
    await newer.stop();
    await platform.stop();
  }
});
