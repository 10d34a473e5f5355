import { describe, expect, inject, it } from "vitest";

describe("console pages require a session", () => {
  const { origin } = inject("console");

  for (const page of ["/", "/webhooks", "/imports", "/settings"]) {
    it(`${page} redirects to the sign-in page when signed out`, async () => {
      const response = await fetch(`${origin}${page}`, { redirect: "manual" });
      expect([303, 307, 308]).toContain(response.status);
      const location = new URL(response.headers.get("location") ?? "", origin);
      expect(location.pathname).toBe("/sign-in");
    });
  }

  it("serves the sign-in page without a session", async () => {
    const response = await fetch(`${origin}/sign-in`);
    expect(response.status).toBe(200);
    expect(await response.text()).toContain("Sign in");
  });

  it("ignores a forged session cookie", async () => {
    const response = await fetch(`${origin}/settings`, {
      redirect: "manual",
      headers: { cookie: "switchboard_session=forged.value" },
    });
    expect([303, 307, 308]).toContain(response.status);
  });
});
