import { openImportWizard, previewRow } from "./support/console";
import { expect, test, type Page } from "./support/test";
import {
  latin1Csv,
  pngFile,
  raggedCsv,
  usersCsv,
  usersWithMistakes,
  utf16Csv,
} from "../fixtures/imports";
import { xlsxWorkbook } from "../fixtures/xlsx";

async function startUsersImport(page: Page) {
  await openImportWizard(page);
  await page.getByRole("radio", { name: /Users/ }).check();
  await page.getByRole("button", { name: "Continue" }).click();
}

async function pick(page: Page, name: string, content: string | Buffer) {
  await page
    .getByLabel("File to import")
    .setInputFiles({ name, mimeType: "text/csv", buffer: Buffer.from(content) });
}

function count(page: Page, label: string) {
  return page.getByTestId(`count-${label}`);
}

test("a users CSV is mapped and previewed: each problem on its row, a fix and an exclusion change the counts", async ({
  page,
}) => {
  const { users, problems } = usersWithMistakes(`e2e${Date.now().toString(36)}`);
  await startUsersImport(page);
  await pick(page, "users.csv", usersCsv(users));
  await expect(page.getByText("users.csv: CSV")).toContainText("8 rows and 5 columns");
  await page.getByRole("button", { name: "Continue to mapping" }).click();

  // Matched by alias: id, Name, Avatar, active; metadata.* becomes a metadata item.
  await expect(page.getByLabel("Field for column id")).toHaveValue("user_id");
  await expect(page.getByLabel("Field for column Name")).toHaveValue("nickname");
  await expect(page.getByLabel("Field for column Avatar")).toHaveValue("profile_url");
  await expect(page.getByLabel("Metadata key for column metadata.team")).toHaveValue("team");
  await expect(page.getByLabel("Field for column active")).toHaveValue("is_active");
  await page.getByRole("button", { name: "Validate 8 rows" }).click();

  await expect(count(page, "rows")).toHaveText("8");
  await expect(count(page, "valid")).toHaveText("4");
  await expect(count(page, "with-errors")).toHaveText("4");
  await expect(count(page, "excluded")).toHaveText("0");
  // The preview opens on the rows with errors, each message beside its cell.
  await expect(page.getByRole("button", { name: /With errors/ })).toHaveAttribute(
    "aria-pressed",
    "true",
  );
  for (const [row, message] of Object.entries(problems)) {
    await expect(previewRow(page, Number(row))).toContainText(message);
  }

  // Fix the missing nickname in place.
  await page.getByRole("button", { name: "Edit row 7, Name: empty" }).click();
  await page.getByLabel("Row 7, Name").fill("Now Named");
  await page.getByLabel("Row 7, Name").press("Enter");
  await expect(count(page, "valid")).toHaveText("5");
  await expect(count(page, "with-errors")).toHaveText("3");
  await expect(previewRow(page, 7)).toHaveCount(0);

  // Exclude the row with "maybe".
  await page.getByRole("button", { name: "Exclude row 8" }).click();
  await expect(count(page, "excluded")).toHaveText("1");
  await expect(count(page, "with-errors")).toHaveText("2");

  // Fixing the duplicate's user id clears the cross-row error.
  await page.getByRole("button", { name: /^Edit row 9, id:/ }).click();
  await page.getByLabel("Row 9, id").fill("someone-else");
  await page.getByLabel("Row 9, id").press("Enter");
  await expect(count(page, "with-errors")).toHaveText("1");
  await expect(count(page, "valid")).toHaveText("6");

  await page.getByRole("button", { name: /All rows/ }).click();
  await expect(previewRow(page, 2)).toContainText("Valid");
  await expect(previewRow(page, 8)).toContainText("Excluded");

  // The rows go to the server in chunks; the plan opens on the job's page.
  await expect(page.getByText("6 rows will be planned; 2 are left out.")).toBeVisible();
  await page.getByRole("button", { name: "Continue to plan" }).click();
  await expect(page).toHaveURL(/\/imports\/[0-9a-f-]{36}$/, { timeout: 20_000 });
});

const badFiles: Array<{ name: string; content: string | Buffer; message: RegExp }> = [
  { name: "empty.csv", content: "", message: /The file is empty \(0 bytes\)/ },
  {
    name: "photo.csv",
    content: pngFile,
    message: /not a CSV, TSV, JSON or XLSX file: its content is a PNG image/,
  },
  {
    name: "ragged.csv",
    content: raggedCsv,
    message: /Rows 3, 4 have a different number of cells than the header \(3\)/,
  },
  { name: "latin1.csv", content: latin1Csv, message: /not UTF-8 text/ },
  { name: "utf16.csv", content: utf16Csv, message: /saved as UTF-16/ },
];

for (const bad of badFiles) {
  test(`a bad file (${bad.name}) gets a clear message`, async ({ page }) => {
    await startUsersImport(page);
    await pick(page, bad.name, bad.content);
    const alert = page.getByRole("alert").filter({ hasText: `${bad.name} cannot be imported` });
    await expect(alert).toContainText(bad.message);
    await expect(page.getByRole("button", { name: "Continue to mapping" })).toBeDisabled();
  });
}

test("a header row that cannot be read stays shown as chosen, beside its reason", async ({
  page,
}) => {
  await startUsersImport(page);
  // The widest row (the file's row 2) is suggested; row 3 has fewer cells, so it cannot be.
  await pick(page, "ragged-header.csv", "user_id,nickname\nann,Ann,extra\nbob\n");
  const alert = page.getByRole("alert").filter({ hasText: "ragged-header.csv cannot be imported" });
  await expect(alert).toContainText("than the header (3)");
  await expect(page.getByLabel("Header row")).toHaveValue("1");
  // Choosing row 1 instead reads the file with it.
  await page.getByLabel("Header row").selectOption("0");
  await expect(alert).toContainText("than the header (2)");
});

test("a title line above the header: the header row is suggested and can be chosen", async ({
  page,
}) => {
  await startUsersImport(page);
  await pick(
    page,
    "titled.csv",
    "Export of users\nuser_id,nickname,profile_url\nu1,Ann,\nu2,Bob,\n",
  );
  await expect(page.getByLabel("Header row")).toHaveValue("1");
  await expect(page.getByText("titled.csv: CSV")).toContainText("2 rows and 3 columns");
});

test("a title row as wide as the table (Excel pads it with commas) is not taken as the header", async ({
  page,
}) => {
  await startUsersImport(page);
  await pick(
    page,
    "excel-titled.csv",
    "Users export,,\r\n,,\r\nuser_id,nickname,profile_url\r\nu1,Ann,\r\nu2,Bob,\r\n",
  );
  await expect(page.getByLabel("Header row")).toHaveValue("2");
  await expect(page.getByText("excel-titled.csv: CSV")).toContainText("2 rows and 3 columns");
});

test("a workbook: each sheet's header is found below its title, again when the sheet changes", async ({
  page,
}) => {
  await startUsersImport(page);
  const workbook = xlsxWorkbook([
    {
      name: "Staff",
      rows: [
        ["Staff, March", null, null],
        ["user_id", "nickname", "is_active"],
        ["s1", "Sam", true],
      ],
    },
    {
      name: "Contractors",
      rows: [
        ["Contractors", null, null, null],
        ["Exported by Ann", null, null, null],
        [null, null, null, null],
        ["user_id", "nickname", "profile_url", "is_active"],
        ["c1", "Cy", "https://example.com/c1.png", true],
        ["c2", "Di", null, false],
      ],
    },
  ]);
  await page.getByLabel("File to import").setInputFiles({
    name: "people.xlsx",
    mimeType: "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet",
    buffer: Buffer.from(workbook),
  });
  const summary = page.getByText("people.xlsx: XLSX");
  await expect(summary).toContainText('sheet "Staff", 1 row and 3 columns');
  await expect(page.getByLabel("Header row")).toHaveValue("1");
  await page.getByLabel("Sheet").selectOption("Contractors");
  await expect(summary).toContainText('sheet "Contractors", 2 rows and 4 columns');
  await expect(page.getByLabel("Header row")).toHaveValue("3");
  await page.getByRole("button", { name: "Continue to mapping" }).click();
  await expect(page.getByLabel("Field for column profile_url")).toHaveValue("profile_url");
  await page.getByRole("button", { name: "Back" }).click();
  await page.getByLabel("Sheet").selectOption("Staff");
  await expect(summary).toContainText('sheet "Staff", 1 row and 3 columns');
  await expect(page.getByLabel("Header row")).toHaveValue("1");
});

test("NDJSON with nested metadata maps and validates", async ({ page }) => {
  await startUsersImport(page);
  const lines = [
    { user_id: "j1", nickname: "Jo", metadata: { team: "red" } },
    { user_id: "j2", nickname: "Al", metadata: { team: "blue" }, is_active: false },
  ];
  await pick(page, "users.ndjson", lines.map((line) => JSON.stringify(line)).join("\n"));
  // An NDJSON file has no header row: nothing says its first row names the columns.
  await expect(page.getByText("users.ndjson: NDJSON")).toBeVisible();
  await expect(page.getByText(/first row names the columns/i)).toHaveCount(0);
  await expect(page.getByText("in JSON and NDJSON, each object's keys do")).toBeVisible();
  await expect(page.getByLabel("Header row")).toHaveCount(0);
  await page.getByRole("button", { name: "Continue to mapping" }).click();
  await expect(page.getByLabel("Metadata key for column metadata.team")).toHaveValue("team");
  await page.getByRole("button", { name: "Validate 2 rows" }).click();
  await expect(count(page, "valid")).toHaveText("2");
  await expect(page.getByText("2 rows will be planned; 0 are left out.")).toBeVisible();
  await page.getByRole("button", { name: "Exclude row 2" }).click();
  await expect(page.getByText("1 row will be planned; 1 is left out.")).toBeVisible();
});

test("a file dropped on the upload area is read like a picked one", async ({ page }) => {
  await startUsersImport(page);
  const dataTransfer = await page.evaluateHandle((text) => {
    const transfer = new DataTransfer();
    transfer.items.add(new File([text], "dropped.csv", { type: "text/csv" }));
    return transfer;
  }, "user_id,nickname\nd1,Dee\n");
  await page.getByTestId("import-drop-zone").dispatchEvent("drop", { dataTransfer });
  await expect(page.getByText("dropped.csv: CSV")).toContainText("1 row and 2 columns");
});

test("group channels: each platform rule on its row", async ({ page }) => {
  await openImportWizard(page);
  await page.getByRole("radio", { name: /Group channels/ }).check();
  await expect(
    page.getByText(
      "A migration follows the platform's order: users, then channels, then messages.",
    ),
  ).toBeVisible();
  await page.getByRole("button", { name: "Continue" }).click();
  const members = (count: number) => Array.from({ length: count }, (_, at) => `m${at}`).join(";");
  const rows = [
    ["channel_url", "members", "is_super", "is_distinct", "is_public", "access_code", "frozen"],
    ["team-ok", "a;b", "", "", "", "", "yes"],
    ["team-super", "a", "true", "true", "", "", ""],
    ["team-code", "a", "", "", "no", "1234", ""],
    ["team-big", members(101), "", "", "", "", ""],
    ["bad url!", "a", "", "", "", "", ""],
  ];
  await pick(page, "channels.csv", rows.map((row) => row.join(",")).join("\n"));
  await page.getByRole("button", { name: "Continue to mapping" }).click();
  await expect(page.getByLabel("Field for column members")).toHaveValue("user_ids");
  await page.getByRole("button", { name: "Validate 5 rows" }).click();
  await expect(count(page, "valid")).toHaveText("1");
  await expect(count(page, "with-errors")).toHaveText("4");
  await expect(previewRow(page, 3)).toContainText("A supergroup cannot be distinct");
  await expect(previewRow(page, 4)).toContainText(
    "An access code is allowed only on a public channel",
  );
  await expect(previewRow(page, 5)).toContainText(
    "101 member ids, but a group channel holds at most 100",
  );
  await expect(previewRow(page, 6)).toContainText(
    "Channel URL may contain only letters, digits, underscore and hyphen.",
  );
});
