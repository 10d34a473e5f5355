import { expect, test, type Page } from "./support/test";
import { csv, flattenedTable, slackUsers } from "../fixtures/imports";
import { finishMigration, openImportWizard, previewRow, revealApiToken } from "./support/console";

/** The mapping step's row of one column of the file. */
function mappingRow(page: Page, column: string) {
  return page
    .getByRole("row")
    .filter({ has: page.getByRole("rowheader", { name: column, exact: true }) });
}

const fieldOf = (page: Page, column: string) =>
  page.getByLabel(`Field for column ${column}`, { exact: true });

test("a Slack users.json flattened to CSV: the image is the profile image, never the email, and why; transforms reach the platform", async ({
  page,
  request,
}) => {
  test.setTimeout(180_000);
  const prefix = `sl${Date.now().toString(36)}`;
  const file = flattenedTable(slackUsers(prefix));
  const slackId = (at: number) => `U0${prefix.toUpperCase()}${at}`;
  const importedId = (at: number) => `slack-${prefix.toUpperCase()}${at}`;

  await openImportWizard(page);
  await page.getByRole("radio", { name: /Users/ }).check();
  await page.getByRole("button", { name: "Continue" }).click();
  await page.getByLabel("File to import").setInputFiles({
    name: "slack-users.csv",
    mimeType: "text/csv",
    buffer: Buffer.from(csv([file.columns, ...file.rows])),
  });
  await expect(page.getByText("slack-users.csv: CSV")).toContainText(
    `6 rows and ${file.columns.length} columns`,
  );
  await page.getByRole("button", { name: "Continue to mapping" }).click();

  // The 512 px image, by its name and its values; the email is passed over, and says why.
  await expect(fieldOf(page, "profile.image_512")).toHaveValue("profile_url");
  await expect(mappingRow(page, "profile.image_512")).toContainText(
    "Suggested: name matches; values look like web addresses.",
  );
  for (const smaller of ["profile.image_24", "profile.image_72", "profile.image_192"])
    await expect(fieldOf(page, smaller)).toHaveValue("");
  await expect(fieldOf(page, "profile.email")).toHaveValue("");
  await expect(mappingRow(page, "profile.email")).toContainText(
    "Not suggested. Its name is like Profile image URL, but its values look like email addresses.",
  );
  // One image is not a web address: a warning with the example, before any row is validated.
  await expect(mappingRow(page, "profile.image_512")).toContainText(
    'Not web addresses (http:// or https://): 1 of the 6 values read, such as "not a url".',
  );
  await expect(page.getByRole("status").filter({ hasText: "Check these columns" })).toContainText(
    "“profile.image_512” fills Profile image URL",
  );
  // Slack's `deleted` is the opposite of Active: mapped inverted, and it says so.
  await expect(fieldOf(page, "id")).toHaveValue("user_id");
  await expect(fieldOf(page, "name")).toHaveValue("nickname");
  await expect(fieldOf(page, "deleted")).toHaveValue("is_active");
  await expect(mappingRow(page, "deleted")).toContainText(
    'Suggested: "deleted" means the opposite, so its values are inverted; values are true or false.',
  );
  await expect(mappingRow(page, "deleted")).toContainText("Transform: inverted.");
  for (const ignored of ["real_name", "is_bot", "tz", "profile.display_name", "profile.fields"])
    await expect(fieldOf(page, ignored)).toHaveValue("");
  await page.screenshot({ path: test.info().outputPath("mapping-step.png"), fullPage: true });

  // Choosing the email for the image anyway: the warning says what the values are.
  await fieldOf(page, "profile.email").selectOption("profile_url");
  await expect(mappingRow(page, "profile.email")).toContainText(
    `Email addresses, not web addresses (http:// or https://): all 5 values read, such as "ann@example.com", "bob@example.com", "cy@example.com".`,
  );
  await expect(page.getByText("Profile image URL is chosen for")).toBeVisible();
  await fieldOf(page, "profile.email").selectOption("");

  // The form opens with the focus in it, and Escape closes it unchanged.
  await page
    .getByRole("button", { name: "Transform the values of column name", exact: true })
    .click();
  const nameForm = page.getByRole("form", { name: "Transform the values of column name" });
  await expect(nameForm.getByLabel("Find (a pattern)")).toBeFocused();
  await page.keyboard.type("^");
  await page.keyboard.press("Escape");
  await expect(nameForm).toHaveCount(0);
  await expect(mappingRow(page, "name")).not.toContainText("Transform:");

  // A find and replace on the ids, with a before-and-after while it is typed.
  await page.getByRole("button", { name: "Transform the values of column id" }).click();
  const form = page.getByRole("form", { name: "Transform the values of column id" });
  await form.getByLabel("Find (a pattern)").fill("(?=U)");
  await expect(form).toContainText("The pattern cannot be read");
  await form.getByLabel("Find (a pattern)").fill("^U0(.+)$");
  await form.getByLabel("Replace with").fill("slack-$1");
  await expect(form.getByRole("row", { name: slackId(1) })).toContainText(importedId(1));
  await page.screenshot({ path: test.info().outputPath("transform-form.png"), fullPage: true });
  await form.getByRole("button", { name: "Apply" }).click();
  await expect(mappingRow(page, "id")).toContainText(
    'Transform: replace /^U0(.+)$/ with "slack-$1".',
  );

  // A reload keeps the mapping and its transforms (the draft).
  await expect(page.getByTestId("draft-status")).toHaveText("Draft saved in this browser");
  await page.reload();
  await expect(page.getByText("Your unfinished import is back")).toBeVisible();
  await expect(mappingRow(page, "id")).toContainText(
    'Transform: replace /^U0(.+)$/ with "slack-$1".',
  );
  await expect(mappingRow(page, "deleted")).toContainText("Transform: inverted.");

  await page.getByRole("button", { name: "Validate 6 rows" }).click();
  await expect(page.getByTestId("count-valid")).toHaveText("6");
  await expect(page.getByTestId("count-with-warnings")).toHaveText("1");
  await page.getByRole("button", { name: /With warnings/ }).click();
  await expect(previewRow(page, 7)).toContainText(
    'Profile image URL: "not a url" is not a web address (http:// or https://).',
  );
  await page.getByRole("button", { name: /All rows/ }).click();
  // The bot is left out.
  await page.getByRole("button", { name: "Exclude row 6" }).click();
  await expect(page.getByText("5 rows will be planned; 1 is left out.")).toBeVisible();
  await page.getByRole("button", { name: "Continue to plan" }).click();
  await expect(page).toHaveURL(/\/imports\/[0-9a-f-]{36}$/, { timeout: 30_000 });
  await expect(page.getByTestId("plan-create")).toHaveText("5", { timeout: 30_000 });
  await page.getByRole("button", { name: "Run import" }).click();
  await page
    .getByRole("alertdialog", { name: /Run the import/ })
    .getByRole("button", { name: "Run import" })
    .click();
  await expect(page.getByText("Completed", { exact: true })).toBeVisible({ timeout: 60_000 });

  // The platform holds the users under their new ids; the deleted ones are deactivated in
  // the migration's last stage.
  await finishMigration(page);
  await page.goto("/settings");
  const token = await revealApiToken(page, "local");
  const base = `${new URL(page.url()).origin}/sandbox/local/v3`;
  const user = async (id: string) => {
    const response = await request.get(`${base}/users/${encodeURIComponent(id)}`, {
      headers: { "Api-Token": token },
    });
    return { status: response.status(), body: await response.json() };
  };
  expect((await user(importedId(1))).body).toMatchObject({
    nickname: "ann",
    is_active: true,
    profile_url: `https://avatars.slack-edge.com/2024-01-01/${slackId(1)}_512.jpg`,
  });
  for (const deleted of [2, 4])
    expect((await user(importedId(deleted))).body).toMatchObject({ is_active: false });
  expect((await user(importedId(3))).body).toMatchObject({ is_active: true });
  expect((await user(importedId(6))).body).toMatchObject({ profile_url: "not a url" });
  expect((await user(importedId(5))).status).toBe(400);
  expect((await user(slackId(1))).status).toBe(400);
});
