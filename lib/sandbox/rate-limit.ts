import type { RateLimitSettings } from "@/lib/db/schema";

export type RateLimitKind = "get" | "write" | "migration";

export type RateLimitDecision =
  | { allowed: true; headers: Record<string, string> }
  | { allowed: false; headers: Record<string, string>; retryAfterSeconds: number };

/**
 * A token bucket per application and kind (get / write / migration), refilled continuously at
 * the configured rate with a one-second burst, which is what `limit;w=1` says.
 */
export class RateLimiter {
  private readonly buckets = new Map<string, { tokens: number; updatedAt: number }>();

  constructor(private readonly now: () => number = () => performance.now()) {}

  take(
    appId: string,
    kind: RateLimitKind,
    limit: RateLimitSettings | null,
  ): RateLimitDecision | null {
    // Migration requests are writes unless they have a limit of their own.
    if (kind === "migration" && !limit?.migration) kind = "write";
    const perSecond = limit?.[kind];
    if (!perSecond) return null;
    const key = `${appId}\u0000${kind}`;
    const now = this.now();
    const bucket = this.buckets.get(key) ?? { tokens: perSecond, updatedAt: now };
    bucket.tokens = Math.min(
      perSecond,
      bucket.tokens + ((now - bucket.updatedAt) / 1000) * perSecond,
    );
    bucket.updatedAt = now;
    this.buckets.set(key, bucket);
    const headers = { "X-RateLimit-Limit": `${formatRate(perSecond)};w=1` };
    if (bucket.tokens >= 1) {
      bucket.tokens -= 1;
      return {
        allowed: true,
        headers: { ...headers, "X-RateLimit-Remaining": String(Math.floor(bucket.tokens)) },
      };
    }
    const retryAfterSeconds = (1 - bucket.tokens) / perSecond;
    return {
      allowed: false,
      retryAfterSeconds,
      headers: {
        ...headers,
        "X-RateLimit-Remaining": "0",
        "Retry-After": String(Math.max(1, Math.ceil(retryAfterSeconds))),
        "X-RateLimit-RetryAfter": retryAfterSeconds.toFixed(3),
      },
    };
  }

  /** Forget an application's buckets, e.g. after its limit changed. */
  reset(appId: string): void {
    for (const key of this.buckets.keys()) {
      if (key.startsWith(`${appId}\u0000`)) this.buckets.delete(key);
    }
  }
}

function formatRate(perSecond: number): string {
  return Number.isInteger(perSecond) ? String(perSecond) : perSecond.toFixed(2);
}
