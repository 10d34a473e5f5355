import { expect, test } from "./support/test";

const pages = [
  { link: "Overview", path: "/", heading: "Overview" },
  { link: "Webhooks", path: "/webhooks", heading: "Webhooks" },
  { link: "Imports", path: "/imports", heading: "Imports" },
  { link: "Settings", path: "/settings", heading: "Settings" },
];

test("every console page opens from the navigation, marked as the current page", async ({
  page,
  baseURL,
}) => {
  await page.goto("/");
  const nav = page.getByRole("navigation", { name: "Console" });
  for (const { link, path, heading } of pages) {
    await nav.getByRole("link", { name: link }).click();
    await expect(page).toHaveURL(path === "/" ? `${baseURL}/` : new RegExp(`${path}$`));
    await expect(page.getByRole("heading", { level: 1, name: heading })).toBeVisible();
    await expect(nav.getByRole("link", { name: link })).toHaveAttribute("aria-current", "page");
    await expect(nav.locator("[aria-current=page]")).toHaveCount(1);
  }
});

test("each page also opens directly by its address", async ({ page }) => {
  for (const { path, heading } of pages) {
    await page.goto(path);
    await expect(page.getByRole("heading", { level: 1, name: heading })).toBeVisible();
  }
});

test("an unknown address shows the not-found page", async ({ page }) => {
  const response = await page.goto("/no-such-page");
  expect(response?.status()).toBe(404);
  await expect(page.getByRole("heading", { name: "There is no page here" })).toBeVisible();
});

test("the skip link moves focus to the page content", async ({ page }) => {
  await page.goto("/settings");
  await page.keyboard.press("Tab");
  const skip = page.getByRole("link", { name: "Skip to content" });
  await expect(skip).toBeFocused();
  await page.keyboard.press("Enter");
  await expect(page.locator("main#main")).toBeFocused();
});

test("every page loads with an empty browser console, and the favicon is served", async ({
  page,
}) => {
  const messages: string[] = [];
  page.on("console", (message) => {
    if (message.type() === "error" || message.type() === "warning")
      messages.push(`${page.url()}: ${message.text()}`);
  });
  page.on("pageerror", (error) => messages.push(`${page.url()}: ${error.message}`));
  for (const path of [...pages.map((entry) => entry.path), "/webhooks/reference"]) {
    await page.goto(path);
    await page.waitForLoadState("networkidle");
  }
  expect(messages).toEqual([]);
  expect((await page.request.get("/favicon.ico")).status()).toBe(200);
  await expect(page.locator('link[rel="icon"]').first()).toHaveAttribute("href", /icon|favicon/);
});
