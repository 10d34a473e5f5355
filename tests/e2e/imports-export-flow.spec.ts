import { expect, test } from "./support/test";
import { strToU8, zipSync } from "fflate";
import { openExportFlow } from "./support/export-flow";

/**
 * The export flow refusing what is not an export. Its screens with each format's export, and
 * the imports it creates run and verified, are in migration-cutover.spec.ts.
 */

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
