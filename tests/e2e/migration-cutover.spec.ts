import { expect, test, type Page } from "@playwright/test";
import { expected, fixtureFiles, fixtureZip } from "../fixtures/exports/build";
import { revealApiToken } from "./support/console";
import { createImports, droppedFiles, openExportFlow } from "./support/export-flow";
import { runToCompletion } from "./support/migration";

/**
 * Issue 24, "Done means": each format's export migrated end to end in the browser and
 * verified; then, at cutover, a newer Slack export of the same workspace that adds only what is
 * new. In a file named to run after the imports-* specs: the exports' people and their
 * completed messages imports would otherwise be among what those tests count on the shared
 * sandbox.
 */

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

/**
 * Drops the export, creates its imports and runs them in the platform's order, then verifies
 * the messages import: 0 missing, extra or different. Returns the messages the plan left out
 * (replies by people who left their conversation, which the platform would refuse).
 */
async function migrateAndVerify(page: Page, files: Dropped): Promise<number> {
  const jobs = await dropAndCreate(page, files);
  await runImport(page, jobs.users);
  await runImport(page, jobs.channels);
  // Planned before its channels were created: planned again once they are.
  await runImport(page, jobs.messages, { replan: true });
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
  test(`a ${format} export migrated end to end and verified`, async ({ page }) => {
    test.setTimeout(240_000);
    const leftOut = await migrateAndVerify(page, droppedFiles(format));
    expect(leftOut).toBe({ discord: 0, mattermost: 1 }[format]);
  });

test("a Slack export migrated end to end and verified; a newer export adds only what is new", async ({
  page,
  request,
}) => {
  test.setTimeout(360_000);
  const counts = expected("slack");
  const people = counts.people.listed + counts.people.fromMessages;
  const conversations = Object.values(counts.conversations).reduce((sum, n) => sum + n, 0);

  const slackZip = (change: Record<string, string> = {}): Dropped => ({
    name: "Acme Slack export.zip",
    mimeType: "application/zip",
    buffer: Buffer.from(fixtureZip("slack", change)),
  });
  const leftOut = await migrateAndVerify(page, slackZip());

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
