import { expect, test as setup } from "@playwright/test";
import { storageState } from "../../playwright.config";
import { signIn } from "./support/console";

setup("sign in once and keep the session", async ({ page }) => {
  await signIn(page);
  await expect(page.getByRole("heading", { level: 1, name: "Overview" })).toBeVisible();
  await page.context().storageState({ path: storageState });
});
