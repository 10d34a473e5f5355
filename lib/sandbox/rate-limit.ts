import type { RateLimitSettings } from "@/lib/db/schema";

export type RateLimitKind = "get" | "write" | "migration";

export type RateLimitDecision =
  | { allowed: true; headers: Record<string, string> }
  | { allowed: false; headers: Record<string, string>; retryAfterSeconds: number };

/** The application a bucket belongs to: a deleted one created again under its id starts afresh. */
export type RateLimitedApplication = { id: string; createdAt: Date };

type Bucket = { tokens: number; updatedAt: number; perSecond: number; createdAt: number };

/**
 * A token bucket per application and kind (get / write / migration), refilled continuously at
 * the configured rate with a one-second burst, which is what `limit;w=1` says. A bucket is
 * sized for its limit: once the application's row carries another limit (changed in this
 * process or another, see lib/sandbox/applications), it starts full at the new one.
 */
export class RateLimiter {
  private readonly buckets = new Map<string, Bucket>();

  constructor(private readonly now: () => number = () => performance.now()) {}

  take(
    app: RateLimitedApplication,
    kind: RateLimitKind,
    limit: RateLimitSettings | null,
  ): RateLimitDecision | null {
    // Migration requests are writes unless they have a limit of their own.
    if (kind === "migration" && !limit?.migration) kind = "write";
    const perSecond = limit?.[kind];
    if (!perSecond) return null;
    const key = `${app.id}\u0000${kind}`;
    const now = this.now();
    const createdAt = app.createdAt.getTime();
    const kept = this.buckets.get(key);
    const bucket =
      kept && kept.perSecond === perSecond && kept.createdAt === createdAt
        ? kept
        : { tokens: perSecond, updatedAt: now, perSecond, createdAt };
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
}

function formatRate(perSecond: number): string {
  return Number.isInteger(perSecond) ? String(perSecond) : perSecond.toFixed(2);
}
