import { expect, type Page } from "@playwright/test";
import { fixtureFiles, fixtureZip, type ExportFixture } from "../../fixtures/exports/build";
import { gotoHydrated } from "./console";

/** The export flow's steps as the browser tests drive them. */

type Dropped = { name: string; mimeType: string; buffer: Buffer };

export function droppedFiles(format: ExportFixture): Dropped[] {
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

export const openExportFlow = (page: Page) =>
  gotoHydrated(page, "/imports/export", '[data-testid="export-flow"]');

/** "Create the imports" from the forecast: the three imports' pages, once they are made. */
export async function createImports(page: Page) {
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
