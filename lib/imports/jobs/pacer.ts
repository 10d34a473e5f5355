import { setTimeout as sleep } from "node:timers/promises";
import type { RateLimitInfo } from "@/lib/platform/rate-limit";

export type PacerOptions = {
  now?: () => number;
  /** Share of the platform's announced limit to aim at: just under, never at it. */
  headroom?: number;
  /** Requests per second before the platform has said anything; null: only concurrency bounds it. */
  initialRate?: number | null;
  /** Most requests sent back to back after a quiet spell. */
  burstSeconds?: number;
};

/**
 * A token bucket whose rate follows the platform: set from `X-RateLimit-Limit` (aiming at
 * `headroom` of it), cut multiplicatively on a 429 and raised additively while answers come
 * back (AIMD), and stopped for the whole `Retry-After` the platform asked for.
 */
export class Pacer {
  private readonly now: () => number;
  private readonly headroom: number;
  private readonly burstSeconds: number;
  /** Requests per second we send at; null: unpaced. */
  private rate: number | null;
  /** The rate the platform allows, times headroom, once it has said. */
  private ceiling: number | null = null;
  private tokens = 1;
  private updatedAt: number;
  private blockedUntil = 0;
  private queue: Promise<void> = Promise.resolve();
  /** Counted for the report and the bench. */
  readonly stats = { responses: 0, rateLimited: 0 };

  constructor(options: PacerOptions = {}) {
    this.now = options.now ?? (() => performance.now());
    this.headroom = options.headroom ?? 0.95;
    this.burstSeconds = options.burstSeconds ?? 0.1;
    this.rate = options.initialRate ?? null;
    this.updatedAt = this.now();
  }

  get currentRate(): number | null {
    return this.rate;
  }

  /**
   * Takes a token if one is there; otherwise says how many milliseconds until one is.
   * Exposed for tests; senders use `acquire`.
   */
  reserve(): number {
    const now = this.now();
    if (now < this.blockedUntil) return this.blockedUntil - now;
    if (this.rate === null) return 0;
    const capacity = Math.max(1, this.rate * this.burstSeconds);
    this.tokens = Math.min(capacity, this.tokens + ((now - this.updatedAt) / 1000) * this.rate);
    this.updatedAt = now;
    if (this.tokens >= 1) {
      this.tokens -= 1;
      return 0;
    }
    return ((1 - this.tokens) / this.rate) * 1000;
  }

  /** Waits for a token; callers are served in the order they asked. */
  acquire(signal?: AbortSignal): Promise<void> {
    const turn = this.queue.then(async () => {
      for (;;) {
        const waitMs = this.reserve();
        if (waitMs <= 0) return;
        await sleep(Math.max(1, Math.ceil(waitMs)), undefined, { signal });
      }
    });
    this.queue = turn.catch(() => {});
    return turn;
  }

  /** Every answer from the platform (success or not) goes through here. */
  observe(status: number, rateLimit: RateLimitInfo | null): void {
    this.stats.responses++;
    if (rateLimit?.limit && rateLimit.windowSeconds) {
      const ceiling = (rateLimit.limit / rateLimit.windowSeconds) * this.headroom;
      if (this.ceiling !== ceiling) {
        this.ceiling = ceiling;
        this.rate = this.rate === null ? ceiling : Math.min(this.rate, ceiling);
      }
    }
    if (status === 429) {
      this.stats.rateLimited++;
      const retryAfterMs = rateLimit?.retryAfterMs ?? 1000;
      this.blockedUntil = Math.max(this.blockedUntil, this.now() + retryAfterMs);
      // Multiplicative decrease; with no limit announced, start pacing from a modest guess.
      this.rate = Math.max(1, (this.rate ?? 20) * 0.7);
      this.tokens = 0;
      return;
    }
    if (this.rate !== null && status < 500) {
      // Additive increase, one step per answer, up to the announced ceiling.
      const step = Math.max(0.05, (this.ceiling ?? this.rate) * 0.005);
      this.rate =
        this.ceiling === null ? this.rate + step : Math.min(this.ceiling, this.rate + step);
    }
    if (rateLimit?.remaining === 0) this.tokens = Math.min(this.tokens, 0);
  }
}
