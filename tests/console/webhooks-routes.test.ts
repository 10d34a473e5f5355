import { beforeAll, describe, expect, inject, it } from "vitest";
import { signIn } from "./support/sign-in";

/** The Webhooks page's reads over HTTP: a bad query is the caller's 400, never a 5xx. */
describe("the Webhooks page's routes refuse a bad query with 400", () => {
  const { origin } = inject("console");
  let cookie = "";
  beforeAll(async () => {
    cookie = await signIn();
  });
  const get = async (path: string) => {
    const response = await fetch(`${origin}${path}`, { headers: { cookie } });
    return { status: response.status, body: (await response.json()) as Record<string, unknown> };
  };

  it("a paging token the log never issued", async () => {
    const answer = await get("/webhooks/deliveries?token=garbage");
    expect(answer.status).toBe(400);
    expect(answer.body.error).toMatch(/^The platform refused: /);
    // Without one, the log answers.
    expect((await get("/webhooks/deliveries?limit=1")).status).toBe(200);
  });

  it("a category or an outcome the log never holds, on the log and on its counts", async () => {
    for (const path of ["/webhooks/deliveries", "/webhooks/deliveries/counts"]) {
      const category = await get(`${path}?category=bogus`);
      expect(category.status, path).toBe(400);
      expect(category.body.error).toMatch(
        /^There is no webhook category "bogus": use one of direct_call:dial, /,
      );
      const outcome = await get(`${path}?outcome=bogus`);
      expect(outcome.status, path).toBe(400);
      expect(outcome.body.error).toMatch(/"delivered"/);
      expect((await get(`${path}?category=room:create&outcome=failed`)).status, path).toBe(200);
    }
  });

  it("a URL check of anything the form would not save", async () => {
    for (const url of ["javascript:alert(1)", "ftp://example.com/x", "", "x".repeat(3000)]) {
      const answer = await get(`/webhooks/url-check?url=${encodeURIComponent(url)}`);
      expect(answer.status, url.slice(0, 40)).toBe(400);
      expect(answer.body.error).toMatch(/"url"/);
    }
    const loopback = await get(
      `/webhooks/url-check?url=${encodeURIComponent("http://127.0.0.1:9/hooks")}`,
    );
    expect(loopback).toMatchObject({ status: 200, body: { allowed: true } });
    expect(loopback.body.warning).toMatch(/loopback/);
  });
});
