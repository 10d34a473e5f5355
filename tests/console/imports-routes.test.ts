import { describe, expect, inject, it } from "vitest";

describe("import job pages and routes require a session", () => {
  const { origin } = inject("console");
  const jobId = "6f1c2a53-8f3e-4a55-9f0e-2d5c1b7e9a10";

  for (const path of [
    `/imports/${jobId}`,
    `/imports/${jobId}/progress`,
    `/imports/${jobId}/rows`,
    `/imports/${jobId}/failures`,
  ]) {
    it(`${path} sends a signed-out caller to the sign-in page and reveals nothing`, async () => {
      const response = await fetch(`${origin}${path}`, { redirect: "manual" });
      expect([303, 307, 308]).toContain(response.status);
      expect(new URL(response.headers.get("location") ?? "", origin).pathname).toBe("/sign-in");
      expect(await response.text()).not.toContain("reason");
    });
  }
});
