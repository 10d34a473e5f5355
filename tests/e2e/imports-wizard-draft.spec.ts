import { openImportWizard, previewRow } from "./support/console";
import { expect, test, type Page } from "./support/test";
import { csv, usersCsv, usersWithMistakes } from "../fixtures/imports";
import { xlsxWorkbook } from "../fixtures/xlsx";

async function startUsersImport(page: Page) {
  await openImportWizard(page);
  await page.getByRole("radio", { name: /Users/ }).check();
  await page.getByRole("button", { name: "Continue" }).click();
}

function count(page: Page, label: string) {
  return page.getByTestId(`count-${label}`);
}

async function previewMistakes(page: Page) {
  const { users } = usersWithMistakes(`d${Date.now().toString(36)}`);
  await startUsersImport(page);
  await page.getByLabel("File to import").setInputFiles({
    name: "users.csv",
    mimeType: "text/csv",
    buffer: Buffer.from(usersCsv(users)),
  });
  await page.getByRole("button", { name: "Continue to mapping" }).click();
  await page.getByRole("button", { name: "Validate 8 rows" }).click();
  await expect(count(page, "with-errors")).toHaveText("4");
}

test("reload in the preview after fixing a cell: the fix is still there", async ({ page }) => {
  await previewMistakes(page);
  await page.getByRole("button", { name: "Edit row 7, Name: empty" }).click();
  await page.getByLabel("Row 7, Name").fill("Now Named");
  await page.getByLabel("Row 7, Name").press("Enter");
  await page.getByRole("button", { name: "Exclude row 8" }).click();
  await expect(count(page, "excluded")).toHaveText("1");
  await expect(page.getByTestId("draft-status")).toHaveText("Draft saved in this browser");

  await page.reload();
  await expect(page.getByText("Your unfinished import is back")).toBeVisible();
  await expect(count(page, "valid")).toHaveText("5");
  await expect(count(page, "with-errors")).toHaveText("2");
  await expect(count(page, "excluded")).toHaveText("1");
  await page.getByRole("button", { name: /All rows/ }).click();
  await expect(page.getByRole("button", { name: "Edit row 7, Name: Now Named" })).toBeVisible();
  await expect(previewRow(page, 8)).toContainText("Excluded");

  // The imports list offers the draft, and resuming it comes back to the same preview.
  await page.goto("/imports");
  await expect(page.getByTestId("import-draft")).toContainText(
    "users.csv, left while previewing rows with 1 fixed cell and 1 excluded row",
  );
  await page.getByRole("link", { name: "Resume import" }).click();
  await expect(count(page, "valid")).toHaveText("5");
  await page.getByRole("button", { name: /All rows/ }).click();
  await expect(page.getByRole("button", { name: "Edit row 7, Name: Now Named" })).toBeVisible();

  // Discarding it from the list leaves a fresh wizard.
  await page.goto("/imports");
  await page.getByRole("button", { name: "Discard" }).click();
  await expect(page.getByTestId("import-draft")).toHaveCount(0);
  await page.goto("/imports/new");
  await expect(page.getByRole("heading", { name: "What are you importing?" })).toBeVisible();
});

test("the grid: keyboard moves between cells, the full message of the focused cell, bulk exclude and replace", async ({
  page,
}) => {
  await previewMistakes(page);
  // Row 6's user id is 81 characters: its message is read in full beside the grid.
  await page.getByRole("button", { name: /^Edit row 6, id:/ }).focus();
  const details = page.getByTestId("cell-details");
  await expect(details).toContainText("Row 6, id");
  await expect(details).toContainText(/Error: .*80/);
  await page.keyboard.press("ArrowRight");
  await expect(page.getByRole("button", { name: /^Edit row 6, Name:/ })).toBeFocused();
  await page.keyboard.press("ArrowDown");
  await expect(page.getByRole("button", { name: "Edit row 7, Name: empty" })).toBeFocused();
  await expect(details).toContainText("Row 7, Name");
  await page.keyboard.press("Enter");
  await page.keyboard.type("Typed In");
  await page.keyboard.press("Enter");
  await expect(count(page, "with-errors")).toHaveText("3");

  // Find and replace: "maybe" becomes "yes" in the active column.
  await page.getByRole("button", { name: "Find and replace" }).click();
  const form = page.getByRole("form", { name: "Find and replace in a column" });
  await form.getByLabel("Column").selectOption("active");
  // Nothing to find, without whole cells, finds nothing: said beside the field, nothing changed.
  await form.getByRole("button", { name: "Replace all" }).click();
  await expect(form.getByLabel("Find", { exact: true })).toHaveAccessibleDescription(
    /Type what to find/,
  );
  await form.getByLabel("Find", { exact: true }).fill("maybe");
  await form.getByLabel("Replace with").fill("yes");
  await form.getByRole("button", { name: "Replace all" }).click();
  await expect(form.getByRole("status")).toHaveText("Replaced in 1 cell of active.");
  await expect(count(page, "with-errors")).toHaveText("2");

  await page.getByRole("button", { name: "Exclude all 2 rows with errors" }).click();
  await expect(count(page, "excluded")).toHaveText("2");
  await expect(count(page, "with-errors")).toHaveText("0");
  await expect(count(page, "valid")).toHaveText("6");
});

test("an XLSX workbook: a sheet is picked, columns show their fill rate, a metadata key with a comma is renamed", async ({
  page,
}) => {
  await startUsersImport(page);
  const workbook = xlsxWorkbook([
    { name: "Read me", rows: [["Exported from the old system"]] },
    {
      name: "People",
      rows: [
        ["user_id", "nickname", "metadata.team,region", "is_active"],
        ["x1", "Xena", "red", true],
        ["x2", "Xavier", null, false],
        [3, "Xu", "blue", true],
      ],
    },
  ]);
  await page.getByLabel("File to import").setInputFiles({
    name: "people.xlsx",
    mimeType: "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet",
    buffer: Buffer.from(workbook),
  });
  await expect(page.getByText("people.xlsx: XLSX")).toContainText('sheet "Read me"');
  await page.getByLabel("Sheet").selectOption("People");
  await expect(page.getByText("people.xlsx: XLSX")).toContainText(
    'sheet "People", 3 rows and 4 columns',
  );
  await page.getByRole("button", { name: "Continue to mapping" }).click();

  const teamRow = page.getByRole("row", { name: /metadata\.team,region/ });
  await expect(teamRow).toContainText("67%");
  await expect(teamRow).toContainText("red · blue");
  await expect(
    page.getByText('The metadata key "team,region" of column "metadata.team,region" has a comma'),
  ).toBeVisible();
  await expect(page.getByRole("button", { name: "Validate 3 rows" })).toBeDisabled();
  await teamRow.getByRole("button", { name: "Rename to “team_region”" }).click();
  await expect(page.getByLabel("Metadata key for column metadata.team,region")).toHaveValue(
    "team_region",
  );
  await page.getByRole("button", { name: "Validate 3 rows" }).click();
  await expect(count(page, "valid")).toHaveText("3");
});

test("mapping by likeness: a misspelt column is matched and marked", async ({ page }) => {
  await startUsersImport(page);
  await page.getByLabel("File to import").setInputFiles({
    name: "typo.csv",
    mimeType: "text/csv",
    buffer: Buffer.from(
      csv([
        ["user_id", "Nicknmae"],
        ["t1", "Tia"],
      ]),
    ),
  });
  await page.getByRole("button", { name: "Continue to mapping" }).click();
  await expect(page.getByLabel("Field for column Nicknmae")).toHaveValue("nickname");
  await expect(page.getByRole("row", { name: /Nicknmae/ })).toContainText("similar name");
});

test("closing the page while a cell is being edited asks first", async ({ page }) => {
  await previewMistakes(page);
  await page.getByRole("button", { name: "Edit row 7, Name: empty" }).click();
  await page.getByLabel("Row 7, Name").fill("Half typed");
  const asked = page.waitForEvent("dialog");
  await page.close({ runBeforeUnload: true });
  const dialog = await asked;
  expect(dialog.type()).toBe("beforeunload");
  await dialog.dismiss();
  expect(page.isClosed()).toBe(false);
  // Once the edit is saved, the draft holds everything and the page closes without a question.
  await page.getByLabel("Row 7, Name").press("Enter");
  await expect(page.getByTestId("draft-status")).toHaveText("Draft saved in this browser");
  await page.close({ runBeforeUnload: true });
  await expect.poll(() => page.isClosed()).toBe(true);
});
