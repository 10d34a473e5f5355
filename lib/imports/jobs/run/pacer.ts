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
  /**
   * One request at a time until the platform has answered once. Every answer under a limit
   * announces it (`X-RateLimit-Limit`), so a fresh run learns the limit before it sends
   * more, instead of bursting into 429s. Only for a pacer whose answers reach `observe`.
   */
  learnFirst?: boolean;
  /** How long the others wait for that first answer before one more goes (it may be lost). */
  firstAnswerWaitMs?: number;
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
  private answered: boolean;
  private readonly firstAnswerWaitMs: number;
  /** When the request still waiting for the first answer went; null: none yet. */
  private probeSentAt: number | null = null;
  private readonly onAnswer: Array<() => void> = [];
  /** Counted for the report and the bench. */
  readonly stats = { responses: 0, rateLimited: 0 };

  constructor(options: PacerOptions = {}) {
    this.now = options.now ?? (() => performance.now());
    this.headroom = options.headroom ?? 0.99;
    this.burstSeconds = options.burstSeconds ?? 0.1;
    this.rate = options.initialRate ?? null;
    this.answered = !options.learnFirst;
    this.firstAnswerWaitMs = options.firstAnswerWaitMs ?? 5000;
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
    // One token more than the burst: time lost to a timer that fired late (a busy machine)
    // is made up by the next request rather than lost, so the rate is kept, not undershot.
    const capacity = 1 + this.rate * this.burstSeconds;
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
      if (!this.answered) await this.firstAnswer();
      for (;;) {
        const waitMs = this.reserve();
        if (waitMs <= 0) return;
        await sleep(Math.max(1, Math.ceil(waitMs)), undefined, { signal });
      }
    });
    this.queue = turn.catch(() => {});
    return turn;
  }

  /** Until the platform has answered: waits while a request is out for its first answer. */
  private async firstAnswer(): Promise<void> {
    while (!this.answered && this.probeSentAt !== null) {
      const left = this.probeSentAt + this.firstAnswerWaitMs - this.now();
      if (left <= 0) break;
      await new Promise<void>((resolve) => {
        const timer = setTimeout(done, left);
        function done() {
          clearTimeout(timer);
          resolve();
        }
        this.onAnswer.push(done);
      });
    }
    if (!this.answered) this.probeSentAt = this.now();
  }

  /** Every answer from the platform (success or not) goes through here. */
  observe(status: number, rateLimit: RateLimitInfo | null): void {
    this.stats.responses++;
    if (!this.answered) {
      this.answered = true;
      for (const done of this.onAnswer.splice(0)) done();
    }
    if (rateLimit?.limit && rateLimit.windowSeconds) {
      const ceiling = (rateLimit.limit / rateLimit.windowSeconds) * this.headroom;
      if (this.ceiling !== ceiling) {
        this.ceiling = ceiling;
        if (this.rate === null) {
          // Pacing starts now, the request just answered being its first: the next waits
          // its turn, rather than spending tokens saved up while nobody paced.
          this.rate = ceiling;
          this.tokens = 0;
          this.updatedAt = this.now();
        } else {
          this.rate = Math.min(this.rate, ceiling);
        }
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
