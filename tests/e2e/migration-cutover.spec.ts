import { expect, test, type Page } from "./support/test";
import { expected, fixtureFiles, fixtureZip, type ExportFixture } from "../fixtures/exports/build";
import { revealApiToken } from "./support/console";
import { createImports, droppedFiles, openExportFlow } from "./support/export-flow";
import { runToCompletion } from "./support/migration";

/**
 * Issue 24: each format's export as an administrator migrates it in the browser. The flow's
 * screens first (item 2: drop the export, read its summary, keep the default choices, read the
 * forecast, create the three imports and find each planned with the counts the forecast
 * promised, and in the migration overview), each format dropped the way people hold it: Slack's
 * ZIP, Discord's JSON files, Mattermost's JSONL. Then ("Done means") the three imports run in
 * the platform's order and verified; then, at cutover, a newer Slack export of the same
 * workspace that adds only what is new. In a file named to run after the imports-* specs: the
 * exports' people and their completed messages imports would otherwise be among what those
 * tests count on the shared sandbox.
 */

/**
 * Runs the planned import at `url` to completion; `replan` plans it again first. `planned`: the
 * rows its first plan creates (and leaves out as invalid), as the forecast promised.
 */
async function runImport(
  page: Page,
  url: string,
  {
    replan = false,
    planned,
  }: { replan?: boolean; planned?: { create: number; invalid?: number } } = {},
) {
  await page.goto(url);
  await expect(page.getByTestId("plan-create")).toBeVisible({ timeout: 45_000 });
  if (planned) {
    await expect(page.getByTestId("plan-create")).toHaveText(String(planned.create));
    if (planned.invalid)
      await expect(page.getByTestId("plan-invalid")).toHaveText(String(planned.invalid));
  }
  if (replan) {
    await page.getByRole("button", { name: "Plan again" }).click();
    await expect(
      page.getByRole("alert").filter({ hasText: /run it to completion first/ }),
    ).toHaveCount(0, { timeout: 45_000 });
    await expect(page.getByTestId("plan-create")).toBeVisible({ timeout: 45_000 });
  }
  await runToCompletion(page, { timeout: 90_000 });
}

type Dropped = Parameters<Page["setInputFiles"]>[1];

async function dropAndCreate(page: Page, files: Dropped) {
  await openExportFlow(page);
  await page.getByLabel("Export to import").setInputFiles(files);
  await page
    .getByRole("form", { name: "Choices" })
    .getByRole("button", { name: "Show the forecast" })
    .click({ timeout: 30_000 });
  await expect(page.getByTestId("export-forecast")).toBeVisible();
  return createImports(page);
}

/** A forecast line's count. */
const lineCount = (page: Page, key: string) =>
  page.getByTestId(`forecast-${key}`).getByTestId("forecast-count");

/**
 * The export flow's screens, checked against what the export holds (its expected.json): the
 * community's summary, the choices' defaults, the forecast; then the imports created and shown
 * in the migration overview.
 */
async function dropReadAndCreate(page: Page, format: ExportFixture, files: Dropped) {
  const counts = expected(format);
  const people = counts.people.listed + counts.people.fromMessages;
  await openExportFlow(page);
  await page.getByLabel("Export to import").setInputFiles(files);

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
  await expect(page.getByTestId("summary-kind-dm")).toContainText(`DMs${counts.conversations.dm}`);
  await expect(page.getByTestId("summary-first")).toHaveText(counts.firstMessageAt.slice(0, 10));

  // (b) The choices, with their defaults and sentences.
  const choices = page.getByRole("form", { name: "Choices" });
  await expect(choices.getByLabel("Over 100 members: a supergroup")).toBeChecked();
  await expect(choices.getByLabel("Deactivate them at the end")).toBeChecked();
  await expect(choices.getByLabel("Join, leave and topic notices")).toHaveValue("admin");
  await expect(choices.getByText(/Each DM becomes a distinct 1-to-1 group channel/)).toBeVisible();

  // (c) The forecast, before anything is sent.
  await choices.getByRole("button", { name: "Show the forecast" }).click();
  const forecast = page.getByTestId("export-forecast");
  await expect(forecast.getByTestId("forecast-rows")).toContainText(
    `a users import of ${people} rows, a group channels import of ${conversationsOf(format)} rows and a messages import of ${counts.messages} rows`,
  );
  await expect(lineCount(page, "edits")).toHaveText(String(counts.edited));
  await expect(page.getByTestId("forecast-edits")).toContainText("keep their final text");
  await expect(lineCount(page, "supergroups")).toHaveText("1");
  await expect(lineCount(page, "noticesAsAdmin")).toHaveText(String(counts.notices));
  await expect(lineCount(page, "frozen")).toHaveText(String(counts.archived));
  if (refusedReplies[format] > 0)
    await expect(lineCount(page, "repliesFromNonMembers")).toHaveText(
      String(refusedReplies[format]),
    );

  // (d) The imports, created, and in the migration overview.
  const jobs = await createImports(page);
  await page.screenshot({ path: `test-results/export-flow-${format}.png`, fullPage: true });
  await page.goto("/imports/migration");
  await expect(page.getByTestId("stage-users")).toContainText("people");
  await expect(page.getByTestId("stage-channels")).toContainText("conversations");
  await expect(page.getByTestId("stage-messages")).toContainText("messages");
  return jobs;
}

/** Each fixture's replies by people who left their conversation: forecast as lost, refused by the plan. */
const refusedReplies: Record<ExportFixture, number> = { slack: 2, discord: 0, mattermost: 1 };

const conversationsOf = (format: ExportFixture) =>
  Object.values(expected(format).conversations).reduce((sum, n) => sum + n, 0);

/**
 * Drops the export, reads the flow's screens and creates its imports, each planned with the
 * counts the forecast promised; runs them in the platform's order, then verifies the messages
 * import: 0 missing, extra or different. Returns the messages the plan left out (replies by
 * people who left their conversation, which the platform would refuse).
 */
async function migrateAndVerify(page: Page, format: ExportFixture, files: Dropped) {
  const counts = expected(format);
  const refused = refusedReplies[format];
  const jobs = await dropReadAndCreate(page, format, files);
  await runImport(page, jobs.users, {
    planned: { create: counts.people.listed + counts.people.fromMessages },
  });
  await runImport(page, jobs.channels, { planned: { create: conversationsOf(format) } });
  // Planned before its channels were created (the plan refuses the replies by people who left
  // their conversation, as the platform would): planned again once they are.
  await runImport(page, jobs.messages, {
    replan: true,
    planned: { create: counts.messages - refused, invalid: refused },
  });
  const counted = await page.getByTestId("report-counts").innerText();
  expect(counted).toContain("0 failed");
  const leftOut = Number(/(\d+) invalid/.exec(counted)![1]);
  await verifyFindsNothing(page);
  return leftOut;
}

/** Verifies the run of the import whose page is open: 0 missing, extra or different. */
async function verifyFindsNothing(page: Page) {
  await page.getByRole("button", { name: "Verify", exact: true }).click();
  const verified = page.getByTestId("verification-run");
  await expect(verified.getByRole("heading")).toContainText("Verify of the run: Verified", {
    timeout: 60_000,
  });
  await expect(verified.getByTestId("verification-counts")).toContainText(
    "0 missing · 0 extra · 0 different",
  );
}

for (const format of ["discord", "mattermost"] as const)
  test(`a ${format} export: the flow's summary, choices and forecast, then migrated end to end and verified`, async ({
    page,
  }) => {
    test.setTimeout(240_000);
    const leftOut = await migrateAndVerify(page, format, droppedFiles(format));
    expect(leftOut).toBe(refusedReplies[format]);
  });

test("a Slack export: the flow's summary, choices and forecast, then migrated end to end and verified; a newer export adds only what is new", async ({
  page,
  request,
}) => {
  test.setTimeout(360_000);
  const counts = expected("slack");
  const people = counts.people.listed + counts.people.fromMessages;
  const conversations = conversationsOf("slack");

  const slackZip = (change: Record<string, string> = {}): Dropped => ({
    name: "Acme Slack export.zip",
    mimeType: "application/zip",
    buffer: Buffer.from(fixtureZip("slack", change)),
  });
  const leftOut = await migrateAndVerify(page, "slack", slackZip());
  expect(leftOut).toBe(refusedReplies.slack);

  // The platform's count of #general's messages, through the sandbox's API.
  await page.goto("/settings");
  const token = await revealApiToken(page, "local");
  const base = `${new URL(page.url()).origin}/sandbox/local/v3`;
  const headers = { "Api-Token": token };
  // Slack's #general: the Discord export above has a "general" too.
  const listed = (await (
    await request.get(`${base}/group_channels?name=general&limit=10`, { headers })
  ).json()) as { channels: Array<{ channel_url: string; name: string; custom_type: string }> };
  const general = listed.channels.find(
    (channel) => channel.name === "general" && channel.custom_type.startsWith("slack"),
  )!.channel_url;
  const total = async () =>
    (
      (await (
        await request.get(`${base}/group_channels/${general}/messages/total_count`, { headers })
      ).json()) as { total: number }
    ).total;
  const before = await total();

  // The newer export: the same workspace, two days later, with two new messages in #general
  // and Bob's reply in its thread edited since (a mention added).
  const firstDay = JSON.parse(fixtureFiles("slack").get("general/2024-03-04.json")!) as Array<
    Record<string, unknown>
  >;
  const bobsReply = firstDay.find((message) => message.ts === "1709546520.000300")!;
  bobsReply.text = "Thanks <@U01ALICE> and <@U03CAROL>! Happy to be here.";
  bobsReply.edited = { user: "U02BOB", ts: "1709978000.000000" };
  const newer = slackZip({
    "general/2024-03-04.json": JSON.stringify(firstDay),
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
  await expect(delta).toContainText(
    `Messages: 2 new, 1 changed (${counts.messages - leftOut} sent by an earlier import; ${leftOut} left out (see the plan))`,
  );
  await page.screenshot({ path: "test-results/export-flow-newer.png", fullPage: true });

  await runImport(page, second.users);
  await runImport(page, second.channels);
  await runImport(page, second.messages, { replan: true });
  await expect(page.getByTestId("report-counts")).toContainText(
    `2 created · ${counts.messages - leftOut} existed · 0 failed · ${leftOut} invalid`,
  );
  await expect(page.getByTestId("threads-done")).toContainText("1 of 1 edited message updated");
  expect(await total()).toBe(before + 2);
  // The edit is on the platform: Verify of the newer export finds every message as it has it.
  await verifyFindsNothing(page);
});
