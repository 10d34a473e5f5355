import { beforeAll, describe, expect, inject, it } from "vitest";
import { signIn } from "./support/sign-in";

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

describe("the page of an import that does not exist", () => {
  const { origin } = inject("console");
  let cookie = "";
  beforeAll(async () => {
    cookie = await signIn();
  });
  const open = (path: string) => fetch(`${origin}${path}`, { headers: { cookie } });

  for (const id of ["abc", "6f1c2a53-8f3e-4a55-9f0e-2d5c1b7e9a10"]) {
    it(`/imports/${id} answers 404 with the not-found page`, async () => {
      const response = await open(`/imports/${id}`);
      expect(response.status).toBe(404);
      expect(await response.text()).toContain("There is no page here");
    });
  }

  it("the other pages under /imports/ still open", async () => {
    for (const path of ["/imports/new", "/imports/migration"]) {
      expect((await open(path)).status, path).toBe(200);
    }
  });
});
