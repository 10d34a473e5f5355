import { expect, test, type Page } from "@playwright/test";
import { strToU8, zipSync } from "fflate";
import { expected } from "../fixtures/exports/build";
import { cancelImport } from "./support/console";
import { createImports, droppedFiles, openExportFlow } from "./support/export-flow";

/**
 * The export flow as an administrator runs it (issue 24, item 2): drop an export, read its
 * summary, keep the default choices, read the forecast, create the three imports, and find
 * each planned with the counts the forecast promised. One export per format, each dropped the
 * way people hold it: Slack's ZIP, Discord's JSON files, Mattermost's JSONL.
 */

/** The number a job's plan shows for rows to create, once the plan is made. */
async function plannedToCreate(page: Page, href: string): Promise<string> {
  await page.goto(href);
  const create = page.getByTestId("plan-create");
  await expect(create).toBeVisible({ timeout: 45_000 });
  return (await create.textContent()) ?? "";
}

/** A forecast line's count. */
const lineCount = (page: Page, key: string) =>
  page.getByTestId(`forecast-${key}`).getByTestId("forecast-count");

for (const format of ["slack", "discord", "mattermost"] as const) {
  test(`a ${format} export: summary, choices, forecast, the three imports created, planned and in the migration overview`, async ({
    page,
  }) => {
    test.setTimeout(150_000);
    const counts = expected(format);
    const people = counts.people.listed + counts.people.fromMessages;
    const conversations = Object.values(counts.conversations).reduce((sum, n) => sum + n, 0);

    await openExportFlow(page);
    await page.getByLabel("Export to import").setInputFiles(droppedFiles(format));

    // (a) The community.
    const summary = page.getByTestId("community-summary");
    await expect(summary).toBeVisible({ timeout: 30_000 });
    await expect(
      summary.locator("dl").getByText("People", { exact: true }).locator(".."),
    ).toContainText(`${people}${counts.people.active} active, ${counts.people.bots} bot`);
    await expect(
      summary.locator("dl").getByText("Messages", { exact: true }).locator(".."),
    ).toContainText(`${counts.messages}${counts.replies} repl`);
    await expect(page.getByTestId("summary-kind-public")).toContainText(
      `Public channels${counts.conversations.public}`,
    );
    await expect(page.getByTestId("summary-kind-dm")).toContainText(
      `DMs${counts.conversations.dm}`,
    );
    await expect(page.getByTestId("summary-first")).toHaveText(counts.firstMessageAt.slice(0, 10));

    // (b) The choices, with their defaults and sentences.
    const choices = page.getByRole("form", { name: "Choices" });
    await expect(choices.getByLabel("Over 100 members: a supergroup")).toBeChecked();
    await expect(choices.getByLabel("Deactivate them at the end")).toBeChecked();
    await expect(choices.getByLabel("Join, leave and topic notices")).toHaveValue("admin");
    await expect(
      choices.getByText(/Each DM becomes a distinct 1-to-1 group channel/),
    ).toBeVisible();

    // (c) The forecast, before anything is sent.
    await choices.getByRole("button", { name: "Show the forecast" }).click();
    const forecast = page.getByTestId("export-forecast");
    await expect(forecast.getByTestId("forecast-rows")).toContainText(
      `a users import of ${people} rows, a group channels import of ${conversations} rows and a messages import of ${counts.messages} rows`,
    );
    await expect(lineCount(page, "edits")).toHaveText(String(counts.edited));
    await expect(page.getByTestId("forecast-edits")).toContainText("keep their final text");
    await expect(lineCount(page, "supergroups")).toHaveText("1");
    await expect(lineCount(page, "noticesAsAdmin")).toHaveText(String(counts.notices));
    await expect(lineCount(page, "frozen")).toHaveText(String(counts.archived));
    const refused = { slack: 2, discord: 0, mattermost: 1 }[format];
    if (refused > 0)
      await expect(lineCount(page, "repliesFromNonMembers")).toHaveText(String(refused));

    // (d) The imports, created and planned with what the forecast said.
    const jobs = await createImports(page);
    await page.screenshot({ path: `test-results/export-flow-${format}.png`, fullPage: true });
    expect(await plannedToCreate(page, jobs.users)).toBe(String(people));
    expect(await plannedToCreate(page, jobs.channels)).toBe(String(conversations));
    // But the replies by people who left their conversation, forecast as lost: the plan
    // refuses them, as the platform would.
    expect(await plannedToCreate(page, jobs.messages)).toBe(String(counts.messages - refused));
    await expect(page.getByTestId("plan-invalid")).toHaveText(String(refused));

    // The migration overview shows them; then, since planned imports hold back the migration's
    // last stage (which later tests finish), they are cancelled.
    await page.goto("/imports/migration");
    await expect(page.getByTestId("stage-users")).toContainText("people");
    await expect(page.getByTestId("stage-channels")).toContainText("conversations");
    await expect(page.getByTestId("stage-messages")).toContainText("messages");
    for (const url of [jobs.messages, jobs.channels, jobs.users]) await cancelImport(page, url);
  });
}

test("a ZIP that is no export is named so", async ({ page }) => {
  test.setTimeout(60_000);
  await openExportFlow(page);
  const zip = zipSync({ "notes/readme.txt": strToU8("hello"), "data.csv": strToU8("a,b\n1,2\n") });
  await page
    .getByLabel("Export to import")
    .setInputFiles({ name: "photos.zip", mimeType: "application/zip", buffer: Buffer.from(zip) });
  await expect(page.getByRole("alert").filter({ hasText: "That did not work" })).toContainText(
    "photos.zip is a ZIP archive, but not a Slack workspace export",
  );
  await expect(page.getByTestId("export-drop-zone")).toBeVisible();
});
