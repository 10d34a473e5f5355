import { describe, expect, it } from "vitest";
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
    expect(() => parseRateLimit("migration=0")).toThrow("migration must be a positive number");
  });
});

describe("RateLimiter", () => {
  it("keeps migration apart from writes when it has a limit, and counts it as a write when not", () => {
    const now = 0;
    const limiter = new RateLimiter(() => now);
    const take = (kind: "write" | "migration", limit: { write?: number; migration?: number }) =>
      limiter.take("app", kind, limit)?.allowed;
    const both = { write: 2, migration: 1 };
    expect([take("migration", both), take("migration", both)]).toEqual([true, false]);
    expect([take("write", both), take("write", both), take("write", both)]).toEqual([
      true,
      true,
      false,
    ]);

    const writesOnly = new RateLimiter(() => now);
    const decisions = [1, 2, 3].map(
      () => writesOnly.take("app", "migration", { write: 2 })?.allowed,
    );
    expect(decisions).toEqual([true, true, false]);
    expect(writesOnly.take("app", "write", { write: 2 })?.allowed).toBe(false);
  });
});
