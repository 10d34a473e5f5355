import { describe, expect, it } from "vitest";
import { rateLimitSchema } from "@/lib/schemas/sandbox-applications";
import { parseRateLimit } from "@/lib/sandbox/config";
import { RateLimiter } from "@/lib/sandbox/rate-limit";

describe("SANDBOX_RATE_LIMIT", () => {
  it("reads get, write and migration", () => {
    expect(parseRateLimit("get=600,write=200,migration=5")).toEqual({
      get: 600,
      write: 200,
      migration: 5,
    });
    expect(() => parseRateLimit("import=5")).toThrow(
      'unknown key "import" (use get, write and migration)',
    );
    expect(() => parseRateLimit("migration=0")).toThrow("migration must be a number");
  });

  it("refuses a rate below one request per second, which would let no request through", () => {
    for (const rate of ["0.0000001", "0.5", "abc"]) {
      expect(() => parseRateLimit(`get=${rate}`)).toThrow(
        "get must be a number of requests per second, at least 1 (below it, no request would get through)",
      );
    }
    expect(parseRateLimit("get=1,write=2.5")).toEqual({ get: 1, write: 2.5 });
  });
});

describe("the Settings page's rate limit form", () => {
  const parse = (get: string) =>
    rateLimitSchema.safeParse({ appId: "default", get, write: "", migration: "5" });

  it("refuses a rate below one request per second, and says why", () => {
    for (const rate of ["0.0000001", "0.5", "0"]) {
      const result = parse(rate);
      expect(result.success, rate).toBe(false);
      expect(result.error?.issues).toEqual([
        expect.objectContaining({
          path: ["get"],
          message: "Use 1 to 100,000 requests per second: below 1, no request would get through.",
        }),
      ]);
    }
  });

  it("keeps 1 and above, and blank for no limit", () => {
    expect(parse("1").data).toEqual({ appId: "default", get: 1, migration: 5 });
    expect(parse("").data).toEqual({ appId: "default", migration: 5 });
  });
});

describe("RateLimiter", () => {
  const app = { id: "app", createdAt: new Date("2026-11-26T10:00:00Z") };

  it("keeps migration apart from writes when it has a limit, and counts it as a write when not", () => {
    const now = 0;
    const limiter = new RateLimiter(() => now);
    const take = (kind: "write" | "migration", limit: { write?: number; migration?: number }) =>
      limiter.take(app, kind, limit)?.allowed;
    const both = { write: 2, migration: 1 };
    expect([take("migration", both), take("migration", both)]).toEqual([true, false]);
    expect([take("write", both), take("write", both), take("write", both)]).toEqual([
      true,
      true,
      false,
    ]);

    const writesOnly = new RateLimiter(() => now);
    const decisions = [1, 2, 3].map(() => writesOnly.take(app, "migration", { write: 2 })?.allowed);
    expect(decisions).toEqual([true, true, false]);
    expect(writesOnly.take(app, "write", { write: 2 })?.allowed).toBe(false);
  });

  it("starts a full bucket at a new limit, and for an application created again under its id", () => {
    let now = 0;
    const limiter = new RateLimiter(() => now);
    const remaining = (application: typeof app, get: number) =>
      limiter.take(application, "get", { get })?.headers["X-RateLimit-Remaining"];
    expect([remaining(app, 2), remaining(app, 2)]).toEqual(["1", "0"]);
    now = 100;
    // The same limit keeps its bucket: a tenth of a second refills a fifth of a request.
    expect(limiter.take(app, "get", { get: 2 })?.allowed).toBe(false);
    // Another limit (set in this process or another, read from the row): full at once.
    expect(remaining(app, 10)).toBe("9");
    const recreated = { id: app.id, createdAt: new Date(app.createdAt.getTime() + 1) };
    expect(remaining(recreated, 10)).toBe("9");
    expect(remaining(recreated, 10)).toBe("8");
  });
});
