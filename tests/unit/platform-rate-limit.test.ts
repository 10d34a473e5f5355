import { describe, expect, it } from "vitest";
import { parseRateLimitHeaders, parseRetryAfter } from "@/lib/platform/rate-limit";

describe("parseRateLimitHeaders", () => {
  it("reads limit, window and remaining", () => {
    const info = parseRateLimitHeaders(
      new Headers({ "X-RateLimit-Limit": "200;w=1", "X-RateLimit-Remaining": "17" }),
    );
    expect(info).toEqual({ limit: 200, windowSeconds: 1, remaining: 17, retryAfterMs: null });
  });

  it("returns null when the response says nothing about limits", () => {
    expect(parseRateLimitHeaders(new Headers({ "content-type": "application/json" }))).toBeNull();
  });

  it("assumes a one-second window when none is given", () => {
    expect(parseRateLimitHeaders(new Headers({ "X-RateLimit-Limit": "50" }))?.windowSeconds).toBe(
      1,
    );
  });
});

describe("parseRetryAfter", () => {
  it("prefers the decimal X-RateLimit-RetryAfter", () => {
    expect(
      parseRetryAfter(new Headers({ "Retry-After": "1", "X-RateLimit-RetryAfter": "0.125" })),
    ).toBe(125);
  });

  it("reads whole seconds", () => {
    expect(parseRetryAfter(new Headers({ "Retry-After": "3" }))).toBe(3000);
  });

  it("reads an HTTP date", () => {
    const now = Date.parse("2026-11-21T10:00:00Z");
    expect(
      parseRetryAfter(new Headers({ "Retry-After": "Sat, 21 Nov 2026 10:00:04 GMT" }), now),
    ).toBe(4000);
  });

  it("ignores garbage", () => {
    expect(parseRetryAfter(new Headers({ "Retry-After": "soon" }))).toBeNull();
  });
});
