import { expect, test } from "./support/test";
import {
  createSandboxApplication,
  revealApiToken,
  sandboxApplication as application,
  webhookSettingsUrl,
} from "./support/console";

test("the settings page shows the sandbox target and its default application with a masked token", async ({
  page,
  baseURL,
}) => {
  await page.goto("/settings");
  const platform = page.getByRole("region", { name: "Platform" });
  await expect(platform.getByText("Embedded sandbox")).toBeVisible();
  await expect(platform.getByText(`${baseURL}/sandbox/local`).first()).toBeVisible();

  const local = application(page, "local");
  await expect(local).toContainText("Default");
  await expect(local).toContainText(`${baseURL}/sandbox/local`);
  await expect(local.getByTestId("api-token")).toHaveText(/^•{8}[0-9a-f]{4}$/);
  await expect(local.getByRole("button", { name: /Delete/ })).toHaveCount(0);

  const token = await revealApiToken(page, "local");
  expect(token).toMatch(/^[0-9a-f]{48}$/);
  await expect(local.getByTestId("api-token")).toHaveText(token);
  await local.getByRole("button", { name: "Hide API token of local" }).click();
  await expect(local.getByTestId("api-token")).toHaveText(/^•{8}/);
});

test("the connection check succeeds against the embedded sandbox", async ({ page }) => {
  await page.goto("/settings");
  await page.getByRole("button", { name: "Check connection" }).click();
  await expect(page.getByRole("status").filter({ hasText: "Connected" })).toContainText(
    /answered in \d+ ms and lists 13 webhook categories/,
  );
});

test("the compatibility check lists every read-only operation of the sandbox as expected", async ({
  page,
}) => {
  await page.goto("/settings");
  await page.getByRole("button", { name: "Check compatibility" }).click();
  await expect(page.getByRole("status").filter({ hasText: "answered as expected" })).toContainText(
    /Every operation tried answered as expected \(\d+ checked\)/,
  );
  const results = page.getByRole("table", { name: "Compatibility check results" });
  await expect(
    results.getByRole("row", { name: /GET \/v3\/users \(paging with token\)/ }),
  ).toBeVisible();
  await expect(results.getByText("Unexpected")).toHaveCount(0);
});

test("a scratch application can be created, answers its own API, and can be deleted", async ({
  page,
}) => {
  const appId = `scratch-${Date.now().toString(36)}`;
  await page.goto("/settings");
  const form = page.getByRole("form", { name: "Create a sandbox application" });

  // The form checks its rules before asking the server.
  await form.getByLabel("Application id").fill("has spaces");
  await form.getByRole("button", { name: "Create application" }).click();
  await expect(form.getByText("Use 1 to 64 letters, digits, _ or -.")).toBeVisible();

  await form.getByLabel("Application id").fill(appId);
  await form.getByLabel("Name").fill("Import rehearsal");
  await form.getByRole("button", { name: "Create application" }).click();
  await expect(form.getByText(`Application ${appId} created`)).toBeVisible();
  await expect(application(page, appId)).toContainText("Import rehearsal");

  const token = await revealApiToken(page, appId);
  const url = webhookSettingsUrl(page, appId);
  const answer = await page.request.get(url, { headers: { "Api-Token": token } });
  expect(answer.status()).toBe(200);
  expect(await answer.json()).toEqual({
    webhook: { enabled: false, url: "", include_members: false, enabled_events: [] },
  });
  // The default application's token does not open the new one.
  const refused = await page.request.get(url, { headers: { "Api-Token": "wrong-token-000000" } });
  expect(refused.status()).toBe(401);

  // The same id again is refused next to the field.
  await form.getByLabel("Application id").fill(appId);
  await form.getByLabel("Name").fill("Again");
  await form.getByRole("button", { name: "Create application" }).click();
  await expect(
    form.getByText(`An application with the id "${appId}" already exists.`),
  ).toBeVisible();

  await application(page, appId)
    .getByRole("button", { name: `Delete application ${appId}` })
    .click();
  const dialog = page.getByRole("alertdialog");
  await expect(dialog).toContainText("deleted for good");
  await dialog.getByRole("button", { name: "Delete application" }).click();
  await expect(dialog).toBeHidden();
  await expect(application(page, appId)).toHaveCount(0);
  const gone = await page.request.get(url, { headers: { "Api-Token": token } });
  expect(gone.status()).toBe(404);
});

test("a rate limit set on an application is enforced by the sandbox, and cleared again", async ({
  page,
}) => {
  const appId = await createSandboxApplication(page, "limited", "Rate limit rehearsal");

  const limits = page.getByRole("form", { name: `Rate limit of ${appId}` });
  await limits.getByLabel("GET per second").fill("-3");
  await limits.getByRole("button", { name: "Save limits" }).click();
  await expect(limits.getByText(/Enter a number/)).toBeVisible();
  // Below one per second no request would get through, the console's own included.
  await limits.getByLabel("GET per second").fill("0.0000001");
  await limits.getByRole("button", { name: "Save limits" }).click();
  await expect(limits.getByText(/below 1, no request would get through/)).toBeVisible();
  await expect(limits.getByText(/Saved/)).toBeHidden();
  await limits.getByLabel("GET per second").fill("1");
  await limits.getByRole("button", { name: "Save limits" }).click();
  await expect(limits.getByText(/Saved/)).toBeVisible();

  const token = await revealApiToken(page, appId);
  const url = webhookSettingsUrl(page, appId);
  const first = await page.request.get(url, { headers: { "Api-Token": token } });
  expect(first.headers()["x-ratelimit-limit"]).toBe("1;w=1");
  const second = await page.request.get(url, { headers: { "Api-Token": token } });
  expect(second.status()).toBe(429);

  await limits.getByLabel("GET per second").fill("");
  await limits.getByRole("button", { name: "Save limits" }).click();
  await expect(limits.getByText(/Saved/)).toBeVisible();
  const free = await page.request.get(url, { headers: { "Api-Token": token } });
  expect(free.status()).toBe(200);
  expect(free.headers()["x-ratelimit-limit"]).toBeUndefined();
});

test("rotating a token asks first, then the old token stops working", async ({ page }) => {
  const appId = await createSandboxApplication(page, "rotate", "Rotation");
  const oldToken = await revealApiToken(page, appId);

  await application(page, appId)
    .getByRole("button", { name: `Rotate API token of ${appId}` })
    .click();
  const dialog = page.getByRole("alertdialog");
  await dialog.getByRole("button", { name: "Cancel" }).click();
  await expect(dialog).toBeHidden();
  await application(page, appId)
    .getByRole("button", { name: `Rotate API token of ${appId}` })
    .click();
  await dialog.getByRole("button", { name: "Rotate token" }).click();
  await expect(dialog).toBeHidden();

  const newToken = await revealApiToken(page, appId);
  expect(newToken).not.toBe(oldToken);
  const url = webhookSettingsUrl(page, appId);
  expect((await page.request.get(url, { headers: { "Api-Token": oldToken } })).status()).toBe(401);
  expect((await page.request.get(url, { headers: { "Api-Token": newToken } })).status()).toBe(200);
});
