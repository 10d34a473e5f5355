import { expect, test as setup } from "@playwright/test";
import { consoles } from "../../playwright.config";
import { signIn } from "./support/console";

setup("sign in once on each console and keep the sessions", async ({ browser }) => {
  for (const { baseURL, storageState } of consoles) {
    const context = await browser.newContext({ baseURL });
    const page = await context.newPage();
    await signIn(page);
    await expect(page.getByRole("heading", { level: 1, name: "Overview" })).toBeVisible();
    await context.storageState({ path: storageState });
    await context.close();
  }
});
