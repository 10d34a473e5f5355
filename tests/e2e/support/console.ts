import { expect, type Page } from "@playwright/test";
import { adminPassword } from "../../../playwright.config";

/** Signs in through the form, as an administrator would, starting from `/sign-in?next=...`. */
export async function signIn(page: Page, next?: string): Promise<void> {
  await page.goto(next ? `/sign-in?next=${encodeURIComponent(next)}` : "/sign-in");
  await page.getByLabel("Administrator password").fill(adminPassword);
  await page.getByRole("button", { name: "Sign in" }).click();
}

export function sandboxApplication(page: Page, appId: string) {
  return page.getByRole("listitem", { name: `Application ${appId}` });
}

/** Creates an application with the settings page's form; a fresh id per call unless given. */
export async function createSandboxApplication(
  page: Page,
  prefix: string,
  name: string,
): Promise<string> {
  const appId = `${prefix}-${Date.now().toString(36)}`;
  await page.goto("/settings");
  const form = page.getByRole("form", { name: "Create a sandbox application" });
  await form.getByLabel("Application id").fill(appId);
  await form.getByLabel("Name").fill(name);
  await form.getByRole("button", { name: "Create application" }).click();
  await expect(sandboxApplication(page, appId)).toBeVisible();
  return appId;
}

/** Reveals an application's token on the settings page and reads it. */
export async function revealApiToken(page: Page, appId: string): Promise<string> {
  const app = sandboxApplication(page, appId);
  await app.getByRole("button", { name: `Reveal API token of ${appId}` }).click();
  const token = app.getByTestId("api-token");
  await expect(token).not.toContainText("•");
  return (await token.textContent())!.trim();
}

export function webhookSettingsUrl(page: Page, appId: string): string {
  return `${new URL(page.url()).origin}/sandbox/${appId}/v1/applications/${appId}/settings/webhook`;
}

/** Opens a page and waits until React has hydrated the element marked by `useHydratedMarker`. */
export async function gotoHydrated(page: Page, path: string, marked: string): Promise<void> {
  await page.goto(path);
  await page.locator(`${marked}[data-hydrated="true"]`).waitFor();
}

export const openImportWizard = (page: Page) =>
  gotoHydrated(page, "/imports/new", '[data-testid="import-wizard"]');

/** Row `number` of the import preview (as a spreadsheet numbers it): the grid's row whose number cell says so. */
export function previewRow(page: Page, number: number) {
  return page
    .getByRole("grid", { name: "Rows of the file" })
    .getByRole("row")
    .filter({ has: page.getByRole("gridcell", { name: String(number), exact: true }) });
}

/**
 * The migration's last stage from its overview, as an administrator finishes it: imports still
 * planned (left by other tests of the run) are cancelled first, since the stage waits for
 * every import in progress; then "Finish" is confirmed and followed until it is done.
 */
/** Cancels the import whose page is open (or at `jobUrl`), and waits until it is. */
export async function cancelImport(page: Page, jobUrl?: string): Promise<void> {
  if (jobUrl) await page.goto(jobUrl);
  await page.getByRole("button", { name: "Cancel import" }).click();
  await page
    .getByRole("alertdialog", { name: "Cancel this import?" })
    .getByRole("button", { name: "Cancel import" })
    .click();
  await expect(page.getByText("Cancelled", { exact: true })).toBeVisible({ timeout: 30_000 });
}

export async function finishMigration(page: Page): Promise<void> {
  const stage = page.getByTestId("stage-finish");
  for (let tries = 0; tries < 20; tries++) {
    await page.goto("/imports/migration");
    const waiting = stage.getByText(/Offered once no import is in progress: the import “(.+)” is/);
    if ((await waiting.count()) === 0) break;
    const fileName = /“(.+)”/.exec(await waiting.innerText())![1]!;
    await page.goto("/imports");
    await page.getByRole("row", { name: fileName }).first().getByRole("link").click();
    await cancelImport(page);
  }
  await stage.getByRole("button", { name: /^Finish: / }).click();
  await page
    .getByRole("alertdialog", { name: /Finish the migration/ })
    .getByRole("button", { name: "Finish the migration" })
    .click();
  await expect(stage).toContainText(/^Done/, { useInnerText: true, timeout: 60_000 });
}
