import { expect, test, type Page } from "./support/test";
import { csv } from "../fixtures/imports";
import { previewRow, revealApiToken } from "./support/console";
import { pickFile } from "./support/migration";

/**
 * The messages preview checks what the rows name against what exists: a channel neither on
 * the platform nor in a channel import of this console, and a sender who is no user, show
 * their error beside the cell before anything is uploaded; fixing the cell checks again.
 * A channel import that has not finished makes the wizard warn about the platform's order.
 */

/** The cell of `column` in row `number`: its value, and the messages under it. */
function cell(page: Page, number: number, column: string) {
  return previewRow(page, number)
    .getByRole("gridcell")
    .filter({
      has: page.getByRole("button", { name: new RegExp(`^Edit row ${number}, ${column}:`) }),
    });
}

async function startImport(page: Page, resource: RegExp, name: string, content: string) {
  await pickFile(page, resource, name, content, "text/plain");
  await page.getByRole("button", { name: "Continue to mapping" }).click();
}

test("a channel and a sender that exist nowhere are errors beside their cells; the order warning shows", async ({
  page,
  request,
}) => {
  test.setTimeout(90_000);
  const p = `msg${Date.now().toString(36)}`;
  await page.goto("/settings");
  const token = await revealApiToken(page, "local");
  const origin = new URL(page.url()).origin;
  const created = await request.post(`${origin}/sandbox/local/v3/users`, {
    headers: { "Api-Token": token },
    data: { user_id: `${p}-ada`, nickname: "Ada", profile_url: "" },
  });
  expect(created.status()).toBe(200);

  // A channel import uploaded and planned, not run: its channel counts, and it has not finished.
  await startImport(
    page,
    /Group channels/,
    "channels.csv",
    csv([
      ["channel_url", "name", "members"],
      [`${p}-general`, "General", `${p}-ada`],
    ]),
  );
  await page.getByRole("button", { name: "Validate 1 row" }).click();
  await page.getByRole("button", { name: "Continue to plan" }).click();
  await expect(page).toHaveURL(/\/imports\/[0-9a-f-]{36}$/, { timeout: 20_000 });
  const channelJob = page.url();

  const line = (channel: string, sender: string, second: number) =>
    JSON.stringify({
      channel_url: channel,
      user_id: sender,
      message_type: "MESG",
      message: `hello ${second}`,
      timestamp: 1_700_000_000_000 + second * 1000,
    });
  await startImport(
    page,
    /Messages/,
    "messages.ndjson",
    [
      line(`${p}-general`, `${p}-ada`, 1),
      line(`${p}-nowhere`, `${p}-ada`, 2),
      line(`${p}-general`, `${p}-ghost`, 3),
    ].join("\n"),
  );
  const warning = page.getByText("1 channel import has not finished yet");
  await expect(warning).toBeVisible();
  await expect(page.getByRole("link", { name: "See the migration overview" })).toHaveAttribute(
    "href",
    "/imports/migration",
  );
  await page.getByRole("button", { name: "Validate 3 rows" }).click();

  await expect(page.getByTestId("reference-check")).toContainText("were checked", {
    timeout: 20_000,
  });
  await expect(page.getByTestId("count-with-errors")).toHaveText("2");
  await page.getByRole("button", { name: /^All rows/ }).click();
  await expect(cell(page, 2, "channel_url")).toContainText(
    `No channel "${p}-nowhere" on the platform or in a channel import of this console`,
  );
  await expect(cell(page, 2, "user_id")).not.toContainText("No user");
  await expect(cell(page, 3, "user_id")).toContainText(
    `No user "${p}-ghost" on the platform or in a users import of this console`,
  );
  await expect(previewRow(page, 1)).not.toContainText("No channel");
  await expect(page.getByText("1 channel import has not finished yet")).toBeVisible();

  // Fixed in place: the new channel is looked up, and the error goes.
  await page.getByRole("button", { name: /^Edit row 2, channel_url:/ }).click();
  await page.getByLabel("Row 2, channel_url", { exact: true }).fill(`${p}-general`);
  await page.getByLabel("Row 2, channel_url", { exact: true }).press("Enter");
  await expect(cell(page, 2, "channel_url")).not.toContainText("No channel");
  await expect(page.getByTestId("count-with-errors")).toHaveText("1");
  // And a sender fixed to someone else who does not exist is looked up and refused.
  await page.getByRole("button", { name: /^Edit row 3, user_id:/ }).click();
  await page.getByLabel("Row 3, user_id", { exact: true }).fill(`${p}-nobody`);
  await page.getByLabel("Row 3, user_id", { exact: true }).press("Enter");
  await expect(cell(page, 3, "user_id")).toContainText(`No user "${p}-nobody"`);
  await page.getByRole("button", { name: "Exclude row 3" }).click();
  await expect(page.getByTestId("count-valid")).toHaveText("2");

  // The console is shared by the specs after this one: the unfinished channel import goes.
  await page.goto(channelJob);
  await page.getByRole("button", { name: "Cancel import" }).click();
  await page
    .getByRole("alertdialog", { name: "Cancel this import?" })
    .getByRole("button", { name: "Cancel import" })
    .click();
  await expect(page.getByText("Cancelled", { exact: true })).toBeVisible({ timeout: 30_000 });
});
