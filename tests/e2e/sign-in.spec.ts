import { expect, test } from "./support/test";
import { signIn } from "./support/console";

// These tests start signed out, whatever the project's stored session.
test.use({ storageState: { cookies: [], origins: [] } });

test("a signed-out visitor is sent to the sign-in page, which remembers where they were going", async ({
  page,
}) => {
  await page.goto("/settings");
  await expect(page).toHaveURL(/\/sign-in\?next=%2Fsettings$/);
  await expect(page.getByRole("heading", { level: 1, name: "Sign in" })).toBeVisible();
  await expect(page.getByLabel("Administrator password")).toBeVisible();
});

test("a wrong password is refused with a message", async ({ page }) => {
  await page.goto("/sign-in");
  await page.getByLabel("Administrator password").fill("not-the-password");
  await page.getByRole("button", { name: "Sign in" }).click();
  await expect(page.getByText(/^Wrong password/)).toBeVisible();
  await expect(page).toHaveURL(/\/sign-in/);
  // No session was started: the console still sends us back.
  await page.goto("/");
  await expect(page).toHaveURL(/\/sign-in/);
});

test("signing in opens the page asked for, and signing out returns to the sign-in page", async ({
  page,
}) => {
  await signIn(page, "/imports");
  await expect(page.getByRole("heading", { level: 1, name: "Imports" })).toBeVisible();
  await expect(page).toHaveURL(/\/imports$/);

  const cookie = (await page.context().cookies()).find((c) => c.name === "switchboard_session");
  expect(cookie).toMatchObject({ httpOnly: true, sameSite: "Lax", path: "/" });

  await page.getByRole("button", { name: "Sign out" }).click();
  await expect(page.getByRole("heading", { level: 1, name: "Sign in" })).toBeVisible();
  await page.goto("/settings");
  await expect(page).toHaveURL(/\/sign-in/);
});

test.describe("before the page's script has loaded", () => {
  test.use({ javaScriptEnabled: false });

  test("a password sent by the form never appears in the address", async ({ page }) => {
    await page.goto("/sign-in");
    await page.getByLabel("Administrator password").fill("typed-before-the-script");
    const sent = page.waitForRequest(
      (request) => request.isNavigationRequest() && request.url().includes("/sign-in"),
    );
    await page.getByRole("button", { name: "Sign in" }).click();
    const request = await sent;
    expect(request.method()).toBe("POST");
    expect(request.url()).not.toContain("typed-before-the-script");
    await expect(page.getByLabel("Administrator password")).toBeVisible();
    expect(page.url()).not.toContain("typed-before-the-script");
  });
});

test("a sign-in page cannot send the administrator to another site", async ({ page, baseURL }) => {
  await signIn(page, "//evil.example/");
  await expect(page.getByRole("heading", { level: 1, name: "Overview" })).toBeVisible();
  expect(new URL(page.url()).origin).toBe(baseURL);
});

test("server actions refuse to work once the session is gone", async ({ page }) => {
  await signIn(page, "/settings");
  await expect(page.getByRole("heading", { level: 1, name: "Settings" })).toBeVisible();

  await page.context().clearCookies();
  await page.getByRole("button", { name: "Check connection" }).click();
  await expect(page.getByRole("alert").filter({ hasText: "Your session has ended" })).toBeVisible();
  await page.getByRole("button", { name: "Reveal API token of local" }).click();
  await expect(page.getByRole("alert").filter({ hasText: "Your session has ended" })).toHaveCount(
    2,
  );
  await expect(page.getByTestId("api-token").first()).toHaveText(/^•{8}/);
});
