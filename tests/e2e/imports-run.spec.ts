import fs from "node:fs";
import { expect, test, type Page } from "./support/test";
import { usersCsv, usersWithMistakes } from "../fixtures/imports";
import { cancelImport, openImportWizard, revealApiToken } from "./support/console";

test("a users import is planned, inspected, run and reported; the failures CSV downloads", async ({
  page,
  request,
}) => {
  test.setTimeout(90_000);
  const prefix = `run${Date.now().toString(36)}`;
  await page.goto("/settings");
  const token = await revealApiToken(page, "local");
  const base = `${new URL(page.url()).origin}/sandbox/local/v3`;
  const headers = { "Api-Token": token };
  // A user that is already on the platform: the plan skips it and nothing is overwritten.
  await request.post(`${base}/users`, {
    headers,
    data: { user_id: `${prefix}-2`, nickname: "Before", profile_url: "" },
  });

  // Through the wizard: four valid rows, four with mistakes.
  await openImportWizard(page);
  await page.getByRole("radio", { name: /Users/ }).check();
  await page.getByRole("button", { name: "Continue" }).click();
  const { users } = usersWithMistakes(prefix);
  await page.getByLabel("File to import").setInputFiles({
    name: "people.csv",
    mimeType: "text/csv",
    buffer: Buffer.from(usersCsv(users)),
  });
  await page.getByRole("button", { name: "Continue to mapping" }).click();
  await page.getByRole("button", { name: "Validate 8 rows" }).click();
  await page.getByRole("button", { name: "Continue to plan" }).click();
  await expect(page).toHaveURL(/\/imports\/[0-9a-f-]{36}$/, { timeout: 20_000 });

  // The plan, from the platform's own answers.
  await expect(page.getByRole("heading", { name: "Import of people.csv" })).toBeVisible();
  await expect(page.getByTestId("plan-create")).toHaveText("3");
  await expect(page.getByTestId("plan-existing")).toHaveText("1");
  await expect(page.getByTestId("plan-invalid")).toHaveText("4");

  // The exact request the file's row 2 (its first user, as the report numbers rows) will send.
  const requestForm = page.getByRole("form", { name: "Open a row's request" });
  await expect(requestForm.getByLabel(/Row of the file \(2–/)).toHaveValue("2");
  await requestForm.getByLabel(/Row of the file/).fill("2");
  await requestForm.getByRole("button", { name: "Show request" }).click();
  const shown = page.getByTestId("row-requests");
  await expect(shown).toContainText("POST {base_url}/v3/users");
  await expect(shown).toContainText(`"user_id": "${prefix}-1"`);
  await expect(shown).toContainText(`"team": "red"`);

  // A rehearsal in a scratch sandbox application reports what would fail, and sends nothing here.
  await page.getByRole("button", { name: "Rehearse in a scratch application" }).click();
  await expect(page.getByTestId("rehearsal")).toContainText("3 created, 0 existed, 0 would fail", {
    timeout: 20_000,
  });
  expect((await request.get(`${base}/users/${prefix}-1`, { headers })).status()).toBe(400);

  // Run it and follow it to the end.
  await page.getByRole("button", { name: "Run import" }).click();
  // The confirmation names the target and the plan's counts.
  const confirm = page.getByRole("alertdialog", {
    name: "Run the import into Default application?",
  });
  await expect(confirm.getByTestId("run-target-kind")).toHaveText("the embedded sandbox");
  await expect(confirm.getByTestId("run-plan-counts")).toContainText("3 to create");
  await confirm.getByRole("button", { name: "Run import" }).click();
  await expect(page.getByText("Completed", { exact: true })).toBeVisible({ timeout: 30_000 });
  // Its pace over the whole run, not the pace of a job that no longer sends anything.
  await expect(page.getByText("Rows per second, on average")).toBeVisible();
  await expect(page.getByTestId("per-second")).not.toHaveText("0");
  await expect(page.getByTestId("report-counts")).toContainText(
    "3 created · 1 existed · 0 failed · 4 invalid · 0 excluded",
  );
  await expect(page.getByTestId("rows-done")).toHaveText("3 of 3");

  // The report lists the invalid rows with their reasons.
  await page.getByLabel("Show").selectOption("invalid");
  const report = page.getByRole("table", { name: "Report" });
  await expect(report.getByRole("row")).toHaveCount(5);
  await expect(report).toContainText("Nickname is required.");

  // The failures CSV: the original columns plus a reason.
  const downloading = page.waitForEvent("download");
  await page.getByRole("link", { name: "Download failures (CSV)" }).click();
  const download = await downloading;
  expect(download.suggestedFilename()).toBe("people-failures.csv");
  const csv = fs
    .readFileSync((await download.path())!, "utf8")
    .trim()
    .split("\r\n");
  expect(csv[0]).toBe("id,Name,Avatar,metadata.team,active,reason,row");
  expect(csv).toHaveLength(5);
  expect(csv.find((line) => line.startsWith(`${prefix}-maybe,`))).toMatch(
    /maybe.*Active must be true or false/,
  );

  // The platform holds exactly the valid users; the existing one kept its nickname.
  for (const id of [`${prefix}-1`, `${prefix}-3`, `${prefix}-4`]) {
    expect((await request.get(`${base}/users/${id}`, { headers })).status()).toBe(200);
  }
  expect(await (await request.get(`${base}/users/${prefix}-2`, { headers })).json()).toMatchObject({
    nickname: "Before",
  });
  expect((await request.get(`${base}/users/${prefix}-no-name`, { headers })).status()).toBe(400);

  // Reopened later, the page shows the same.
  await page.goto("/imports");
  // The list shows each job's outcome counts.
  await expect(
    page
      .getByRole("row", { name: /people\.csv/ })
      .first()
      .getByTestId("job-outcome"),
  ).toHaveText("3 created, 1 existed, 0 failed, 4 left out");
  await page.getByRole("link", { name: "people.csv" }).first().click();
  await expect(page.getByTestId("report-counts")).toContainText("3 created · 1 existed");
});

/** Through the wizard to the preview of a users CSV; `rows` as the Validate button counts them. */
async function previewUsers(page: Page, fileName: string, csv: string, rows: string) {
  await openImportWizard(page);
  await page.getByRole("radio", { name: /Users/ }).check();
  await page.getByRole("button", { name: "Continue" }).click();
  await page
    .getByLabel("File to import")
    .setInputFiles({ name: fileName, mimeType: "text/csv", buffer: Buffer.from(csv) });
  await page.getByRole("button", { name: "Continue to mapping" }).click();
  await page.getByRole("button", { name: `Validate ${rows}` }).click();
}

test("a rehearsal shows rows done, pace and time left as it goes, and the same after a reload", async ({
  page,
}) => {
  test.setTimeout(180_000);
  const prefix = `reh${Date.now().toString(36)}`;
  const fileName = `${prefix}.csv`;
  // Long enough (about 10 s on a quiet machine) to be watched and reloaded mid-way.
  const rows = 20_000;
  const csv = [
    "user_id,nickname",
    ...Array.from({ length: rows }, (_, n) => `${prefix}-${n},User ${n}`),
  ].join("\n");
  await previewUsers(page, fileName, csv, "20,000 rows");
  await page.getByRole("button", { name: "Continue to plan" }).click();
  await expect(page).toHaveURL(/\/imports\/[0-9a-f-]{36}$/, { timeout: 60_000 });
  await expect(page.getByTestId("plan-create")).toHaveText("20,000", { timeout: 60_000 });

  await page.getByRole("button", { name: "Rehearse in a scratch application" }).click();
  await expect(page.getByTestId("rehearsal-done")).toHaveText(/^[\d,]+ of 20,000$/, {
    timeout: 30_000,
  });
  // Reopened mid-way, the page reads the same progress from the job: a pace, and the time left.
  await page.reload();
  await expect(page.getByTestId("rehearsal-done")).toHaveText(/^[\d,]+ of 20,000$/);
  await expect(page.getByTestId("rehearsal-per-second")).not.toHaveText("0");
  await expect(page.getByTestId("rehearsal-time-left")).toHaveText(/\d+ (s|min)/);
  await expect(page.getByTestId("rehearsal-counts")).toContainText(/So far: [\d,]+ created/);

  await expect(page.getByTestId("rehearsal")).toContainText("20,000 created, 0 existed", {
    timeout: 120_000,
  });
  await expect(page.getByTestId("rehearsal-progress")).toHaveCount(0);
  // No planned import is left behind to hold back the migration's last stage.
  await cancelImport(page);
});

test("an import whose upload stopped can be cancelled from its page", async ({ page }) => {
  const fileName = `stopped-${Date.now().toString(36)}.csv`;
  await previewUsers(page, fileName, "user_id,nickname\nstopped-1,Ann\n", "1 row");
  // The job is made (the first server action), then every chunk of rows is lost on the way.
  let actions = 0;
  await page.route("**/imports/new", (route) =>
    route.request().method() === "POST" && ++actions > 1 ? route.abort() : route.fallback(),
  );
  await page.getByRole("button", { name: "Continue to plan" }).click();
  await expect(page.getByText("The upload stopped")).toBeVisible({ timeout: 20_000 });
  await page.unroute("**/imports/new");

  // The job stays a draft; it is cancelled from its page, so it leaves the migration's stages.
  await page.goto("/imports");
  await page.getByRole("link", { name: fileName }).click();
  await expect(page.getByText("Draft", { exact: true })).toBeVisible();
  await page.getByRole("button", { name: "Cancel import" }).click();
  const cancel = page.getByRole("alertdialog", { name: "Cancel this import?" });
  // It names the job's target and what it is.
  await expect(cancel.getByTestId("cancel-target")).toHaveText(
    "The import into Default application (application local, the embedded sandbox).",
  );
  await expect(cancel).toContainText("Nothing has been sent to the platform");
  await cancel.getByRole("button", { name: "Cancel import" }).click();
  await expect(page.getByText("Cancelled", { exact: true })).toBeVisible({ timeout: 10_000 });
});

test("the list says a cancelled import's rows were not sent, not that they are to do", async ({
  page,
}) => {
  const fileName = `cancelled-${Date.now().toString(36)}.csv`;
  const csv = "user_id,nickname\ncancelled-1,Ann\ncancelled-2,Bob\n,No id\n";
  await previewUsers(page, fileName, csv, "3 rows");
  await page.getByRole("button", { name: "Continue to plan" }).click();
  await expect(page).toHaveURL(/\/imports\/[0-9a-f-]{36}$/, { timeout: 20_000 });
  await page.getByRole("button", { name: "Cancel import" }).click();
  await page
    .getByRole("alertdialog", { name: "Cancel this import?" })
    .getByRole("button", { name: "Cancel import" })
    .click();
  await expect(page.getByText("Cancelled", { exact: true })).toBeVisible({ timeout: 10_000 });
  await page.goto("/imports");
  await expect(
    page.getByRole("row", { name: new RegExp(fileName) }).getByTestId("job-outcome"),
  ).toHaveText("0 created, 0 failed, 1 left out, 2 not sent");
});
