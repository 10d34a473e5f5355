import { retryPolicy, type RetryPolicy } from "@/lib/retry";
import { isPlatformError } from "./errors";

/** Timeouts, lost connections, 5xx and 429 may succeed when tried again; nothing else does. */
export function isTransientPlatformError(error: unknown): boolean {
  return isPlatformError(error) && error.transient;
}

/** Platform calls tried again after transient failures, with backoff and full jitter. */
export function platformRetries(attempts = 6): RetryPolicy {
  return retryPolicy({
    attempts,
    baseMs: 250,
    maxDelayMs: 30_000,
    isTransient: isTransientPlatformError,
  });
}

/**
 * The client's own waits: a 429 is waited out (its Retry-After, else about a second) and
 * sent again, `retries` times at most; one asking for longer than `maxWaitMs` is thrown at once.
 */
export function rateLimitWaits(retries: number, maxWaitMs: number): RetryPolicy {
  return retryPolicy({
    attempts: retries + 1,
    baseMs: 1000,
    maxDelayMs: maxWaitMs,
    maxRetryAfterMs: maxWaitMs,
    isTransient: (error) => isPlatformError(error) && error.status === 429,
  });
}
