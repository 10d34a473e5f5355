import { expect, test, type Page } from "@playwright/test";
import { strToU8, zipSync } from "fflate";
import { expected, fixtureFiles, fixtureZip, type ExportFixture } from "../fixtures/exports/build";
import { cancelImport, gotoHydrated, revealApiToken } from "./support/console";

/**
 * The export flow as an administrator runs it (issue 24, item 2): drop an export, read its
 * summary, keep the default choices, read the forecast, create the three imports, and find
 * each planned with the counts the forecast promised. One export per format, each dropped the
 * way people hold it: Slack's ZIP, Discord's JSON files, Mattermost's JSONL.
 */

type Dropped = { name: string; mimeType: string; buffer: Buffer };

function droppedFiles(format: ExportFixture): Dropped[] {
  if (format === "slack")
    return [
      {
        name: "Acme Slack export.zip",
        mimeType: "application/zip",
        buffer: Buffer.from(fixtureZip("slack")),
      },
    ];
  const files = [...fixtureFiles(format)].filter(([path]) =>
    format === "discord" ? path.endsWith(".json") : path.endsWith(".jsonl"),
  );
  return files.map(([path, text]) => ({
    name: path,
    mimeType: "application/json",
    buffer: Buffer.from(text),
  }));
}

const openFlow = (page: Page) =>
  gotoHydrated(page, "/imports/export", '[data-testid="export-flow"]');

/** The number a job's plan shows for rows to create, once the plan is made. */
async function plannedToCreate(page: Page, href: string): Promise<string> {
  await page.goto(href);
  const create = page.getByTestId("plan-create");
  await expect(create).toBeVisible({ timeout: 45_000 });
  return (await create.textContent()) ?? "";
}

/** "Create the imports" from the forecast: the three imports' pages, once they are made. */
async function createImports(page: Page) {
  await page.getByRole("button", { name: "Create the imports" }).click();
  const made = page.getByRole("region", { name: "The imports are created" });
  await expect(made).toBeVisible({ timeout: 60_000 });
  const href = async (name: string) =>
    (await made.getByRole("link", { name }).getAttribute("href")) ?? "";
  return {
    users: await href("Users import"),
    channels: await href("Group channels import"),
    messages: await href("Messages import"),
  };
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

    await openFlow(page);
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

    // (d) The imports, created and planned with what the forecast said.
    const jobs = await createImports(page);
    await page.screenshot({ path: `test-results/export-flow-${format}.png`, fullPage: true });
    expect(await plannedToCreate(page, jobs.users)).toBe(String(people));
    expect(await plannedToCreate(page, jobs.channels)).toBe(String(conversations));
    expect(await plannedToCreate(page, jobs.messages)).toBe(String(counts.messages));
    await expect(page.getByTestId("plan-invalid")).toHaveText("0");

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
  await openFlow(page);
  const zip = zipSync({ "notes/readme.txt": strToU8("hello"), "data.csv": strToU8("a,b\n1,2\n") });
  await page
    .getByLabel("Export to import")
    .setInputFiles({ name: "photos.zip", mimeType: "application/zip", buffer: Buffer.from(zip) });
  await expect(page.getByRole("alert").filter({ hasText: "That did not work" })).toContainText(
    "photos.zip is a ZIP archive, but not a Slack workspace export",
  );
  await expect(page.getByTestId("export-drop-zone")).toBeVisible();
});

/** Runs the planned import at `url` to completion; `replan` plans it again first. */
async function runImport(page: Page, url: string, { replan = false } = {}) {
  await page.goto(url);
  await expect(page.getByTestId("plan-create")).toBeVisible({ timeout: 45_000 });
  if (replan) {
    await page.getByRole("button", { name: "Plan again" }).click();
    await expect(
      page.getByRole("alert").filter({ hasText: /run it to completion first/ }),
    ).toHaveCount(0, { timeout: 45_000 });
    await expect(page.getByTestId("plan-create")).toBeVisible({ timeout: 45_000 });
  }
  await page.getByRole("button", { name: "Run import" }).click();
  await page.getByRole("alertdialog").getByRole("button", { name: "Run import" }).click();
  await expect(page.getByText("Completed", { exact: true })).toBeVisible({ timeout: 90_000 });
}

async function dropAndCreate(page: Page, zip: Uint8Array) {
  await openFlow(page);
  await page
    .getByLabel("Export to import")
    .setInputFiles({
      name: "Acme Slack export.zip",
      mimeType: "application/zip",
      buffer: Buffer.from(zip),
    });
  await page
    .getByRole("form", { name: "Choices" })
    .getByRole("button", { name: "Show the forecast" })
    .click({ timeout: 30_000 });
  await expect(page.getByTestId("export-forecast")).toBeVisible();
  return createImports(page);
}

// Issue 24, "Done means": migrated end to end in the browser, verified, and at cutover a newer
// export adds only what is new. Last in this file: the tests above plan the same export and
// expect its people to be new.
test("a Slack export migrated end to end and verified; a newer export adds only what is new", async ({
  page,
  request,
}) => {
  test.setTimeout(360_000);
  const counts = expected("slack");
  const people = counts.people.listed + counts.people.fromMessages;
  const conversations = Object.values(counts.conversations).reduce((sum, n) => sum + n, 0);

  const first = await dropAndCreate(page, fixtureZip("slack"));
  await runImport(page, first.users);
  await runImport(page, first.channels);
  // Planned before its channels were created: planned again once they are.
  await runImport(page, first.messages, { replan: true });
  const refused = Number(
    /(\d+) failed/.exec((await page.getByTestId("report-counts").innerText()) ?? "")![1],
  );
  await page.getByRole("button", { name: "Verify", exact: true }).click();
  const verified = page.getByTestId("verification-run");
  await expect(verified.getByRole("heading")).toContainText("Verify of the run: Verified", {
    timeout: 60_000,
  });
  await expect(verified.getByTestId("verification-counts")).toContainText(
    "0 missing · 0 extra · 0 different",
  );

  // The platform's count of #general's messages, through the sandbox's API.
  await page.goto("/settings");
  const token = await revealApiToken(page, "local");
  const base = `${new URL(page.url()).origin}/sandbox/local/v3`;
  const headers = { "Api-Token": token };
  const listed = (await (
    await request.get(`${base}/group_channels?name=general&limit=10`, { headers })
  ).json()) as { channels: Array<{ channel_url: string; name: string }> };
  const general = listed.channels.find((channel) => channel.name === "general")!.channel_url;
  const total = async () =>
    (
      (await (
        await request.get(`${base}/group_channels/${general}/messages/total_count`, { headers })
      ).json()) as { total: number }
    ).total;
  const before = await total();

  // The newer export: the same workspace, two days later, with two new messages in #general.
  const newer = fixtureZip("slack", {
    "general/2024-03-09.json": JSON.stringify([
      {
        type: "message",
        user: "U01ALICE",
        text: "After the cutover export",
        ts: "1709978400.000100",
      },
      {
        type: "message",
        user: "U02BOB",
        text: "Welcome to the new place",
        ts: "1709978460.000200",
      },
    ]),
  });
  const second = await dropAndCreate(page, newer);
  const delta = page.getByTestId("export-delta");
  await expect(delta).toContainText(`People: 0 new (${people} already on the platform)`, {
    timeout: 60_000,
  });
  await expect(delta).toContainText(
    `Conversations: 0 new (${conversations} already on the platform)`,
  );
  // The replies the platform refused the first time are tried again: they are not on it.
  await expect(delta).toContainText(
    `Messages: ${2 + refused} new (${counts.messages - refused} sent by an earlier import)`,
  );
  await page.screenshot({ path: "test-results/export-flow-newer.png", fullPage: true });

  await runImport(page, second.users);
  await runImport(page, second.channels);
  await runImport(page, second.messages, { replan: true });
  await expect(page.getByTestId("report-counts")).toContainText(
    `2 created · ${counts.messages - refused} existed · ${refused} failed`,
  );
  expect(await total()).toBe(before + 2);
});
