import { test as base } from "@playwright/test";
import { consoles } from "../../../playwright.config";

export * from "@playwright/test";

/**
 * Playwright's `test`, with each test on its worker's console (playwright.config.ts): that
 * console's URL, and the administrator's session the setup project signed in there. A file that
 * starts signed out still says so with `test.use({ storageState: ... })`. (`provide` is what
 * Playwright's documentation calls `use`, renamed so that React's rule on hooks leaves it alone.)
 */
export const test = base.extend({
  baseURL: async ({}, provide, testInfo) => provide(consoleOf(testInfo.parallelIndex).baseURL),
  storageState: async ({}, provide, testInfo) =>
    provide(consoleOf(testInfo.parallelIndex).storageState),
});

function consoleOf(parallelIndex: number) {
  const found = consoles[parallelIndex];
  if (!found)
    throw new Error(
      `No console for worker ${parallelIndex}: playwright.config.ts starts ${consoles.length}`,
    );
  return found;
}
