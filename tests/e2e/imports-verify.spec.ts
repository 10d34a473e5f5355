import fs from "node:fs";
import { expect, test, type Page } from "./support/test";
import { usersCsv } from "../fixtures/imports";
import { openImportWizard, revealApiToken } from "./support/console";
import { planAndRun, runToCompletion } from "./support/migration";

/**
 * Verify as an administrator uses it: users and messages imported and run, Verify finds
 * nothing; a message deleted through the platform's API is then listed as missing, in the
 * report on the page, in its CSV, and on the migration overview.
 */

async function verify(page: Page, counts: string) {
  await page.getByRole("button", { name: "Verify", exact: true }).click();
  const run = page.getByTestId("verification-run");
  await expect(run.getByRole("heading")).toContainText("Verify of the run: Verified", {
    timeout: 30_000,
  });
  await expect(run.getByTestId("verification-counts")).toHaveText(counts);
  return run;
}

test("Verify finds nothing after a run, then a message deleted on the platform as missing", async ({
  page,
  request,
}) => {
  test.setTimeout(180_000);
  const p = `ver${Date.now().toString(36)}`;
  await page.goto("/settings");
  const token = await revealApiToken(page, "local");
  const base = `${new URL(page.url()).origin}/sandbox/local/v3`;
  const headers = { "Api-Token": token };

  await openImportWizard(page);
  await page.getByRole("radio", { name: /Users/ }).check();
  await page.getByRole("button", { name: "Continue" }).click();
  await page.getByLabel("File to import").setInputFiles({
    name: "people.csv",
    mimeType: "text/csv",
    buffer: Buffer.from(
      usersCsv([
        { id: `${p}-ann`, name: "Ann", team: "red" },
        { id: `${p}-bob`, name: "Bob" },
      ]),
    ),
  });
  await page.getByRole("button", { name: "Continue to mapping" }).click();
  await page.getByRole("button", { name: "Validate 2 rows" }).click();
  await planAndRun(page);
  await runToCompletion(page);
  await verify(page, "2 matched · 0 missing · 0 extra · 0 different");

  const room = `${p}-room`;
  const created = await request.post(`${base}/group_channels`, {
    headers,
    data: { channel_url: room, user_ids: [`${p}-ann`, `${p}-bob`] },
  });
  expect(created.status()).toBe(200);

  const ndjson = [
    { channel: room, type: "text", from: `${p}-ann`, text: "Morning", ts: 1709283600, id: "m1" },
    { channel: room, type: "text", from: `${p}-bob`, text: "Hello", ts: 1709283660, id: "m2" },
    { channel: room, type: "text", from: `${p}-ann`, text: "Lunch?", ts: 1709283720, id: "m3" },
  ]
    .map((line) => JSON.stringify(line))
    .join("\n");
  await openImportWizard(page);
  await page.getByRole("radio", { name: /Messages/ }).check();
  await page.getByRole("button", { name: "Continue" }).click();
  await page.getByLabel("File to import").setInputFiles({
    name: "messages.ndjson",
    mimeType: "application/x-ndjson",
    buffer: Buffer.from(ndjson),
  });
  await page.getByRole("button", { name: "Continue to mapping" }).click();
  await page.getByRole("button", { name: "Validate 3 rows" }).click();
  await planAndRun(page);
  await runToCompletion(page);
  const jobUrl = page.url();
  await verify(page, "3 matched · 0 missing · 0 extra · 0 different");
  await expect(page.getByRole("table", { name: "Verify report" })).toHaveCount(0);

  // The second message deleted through the platform's API.
  const listed = (await (
    await request.get(
      `${base}/group_channels/${room}/messages?message_ts=1&prev_limit=0&next_limit=10`,
      { headers },
    )
  ).json()) as { messages: Array<{ message_id: number; message: string }> };
  const hello = listed.messages.find((message) => message.message === "Hello")!;
  const deleted = await request.delete(
    `${base}/group_channels/${room}/messages/${hello.message_id}`,
    { headers },
  );
  expect(deleted.status()).toBe(200);

  const run = await verify(page, "2 matched · 1 missing · 0 extra · 0 different");
  const report = run.getByRole("table", { name: "Verify report" });
  // The header and the one finding: the file's row 2 (an NDJSON file has no header row).
  await expect(report.getByRole("row")).toHaveCount(2);
  const finding = report.getByRole("row").nth(1);
  await expect(finding.getByRole("cell").nth(0)).toHaveText("2");
  await expect(finding.getByRole("cell").nth(1)).toHaveText("missing");
  await expect(finding.getByRole("cell").nth(3)).toContainText(`by "${p}-bob" is not in channel`);

  const [download] = await Promise.all([
    page.waitForEvent("download"),
    run.getByRole("link", { name: "Download report (CSV)" }).click(),
  ]);
  expect(download.suggestedFilename()).toBe("messages-verify.csv");
  const lines = fs
    .readFileSync((await download.path())!, "utf8")
    .trimEnd()
    .split("\r\n");
  expect(lines).toHaveLength(3);
  expect(lines[2]).toMatch(/^missing,2,/);

  // The migration overview: this import verified, with its one difference (the stage is
  // verified once every messages import of it is).
  await page.goto("/imports/migration");
  const jobPath = new URL(jobUrl).pathname;
  await expect(
    page
      .getByTestId("stage-messages")
      .getByRole("listitem")
      .filter({
        has: page.locator(`a[href="${jobPath}"]`),
      }),
  ).toContainText("verified, 1 difference");
  await expect(page.getByTestId("stage-messages-verified")).toHaveText(
    /^(Not verified|Verified .*: \d+ differences?)$/,
  );
  await page.goto(jobUrl);
  await expect(page.getByTestId("verification-run")).toContainText("1 missing");
});
