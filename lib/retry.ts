/**
 * The one retry policy of the code base: how many tries, how long between them, and which
 * failures are worth another. Every caller (the platform client's 429 waits, the import
 * plan, run and rehearsal, the console's test deliveries) states its policy with
 * `retryPolicy()` and asks `nextRetry()` or `withRetries()`; no path can try forever.
 */
export type RetryPolicy = {
  /** Tries in all, the first included (at least 1). */
  attempts: number;
  /** Ceiling of the wait after the first failure; it doubles with each further one. */
  baseMs: number;
  /** The ceiling never grows past this. */
  maxDelayMs: number;
  /**
   * Full jitter (a uniform wait between half the ceiling and the ceiling) spreads the retries
   * of many calls that failed together, so they do not come back as one burst. Off where
   * an interface fixes the waits (webhook deliveries: 1 s, then 2 s).
   */
  jitter: boolean;
  /** A failure that asks (Retry-After) for a longer wait than this is final. */
  maxRetryAfterMs: number;
  /** Whether a failure may succeed when tried again; anything else is final at once. */
  isTransient: (error: unknown) => boolean;
};

/** What a failure asks for; `retryAfterMs` is the peer's own wait (a 429's Retry-After). */
export type Failure = { retryAfterMs?: number | null };

export type RetryDecision =
  | { retry: true; delayMs: number }
  | { retry: false; reason: "permanent" | "exhausted" | "wait-too-long" };

export function retryPolicy(
  policy: Partial<RetryPolicy> & Pick<RetryPolicy, "isTransient">,
): RetryPolicy {
  const resolved: RetryPolicy = {
    attempts: 6,
    baseMs: 250,
    maxDelayMs: 30_000,
    jitter: true,
    maxRetryAfterMs: Number.POSITIVE_INFINITY,
    ...policy,
  };
  if (!Number.isInteger(resolved.attempts) || resolved.attempts < 1) {
    throw new RangeError(
      `A retry policy needs a whole number of attempts, at least 1 (got ${resolved.attempts}).`,
    );
  }
  return resolved;
}

/**
 * The wait before the next try, `attempt` being the tries already failed (1 after the first
 * failure). The peer's own wait wins when it asks for longer.
 */
export function retryDelay(
  policy: RetryPolicy,
  attempt: number,
  retryAfterMs: number | null = null,
  random: () => number = Math.random,
): number {
  const ceiling = Math.min(policy.maxDelayMs, policy.baseMs * 2 ** Math.max(0, attempt - 1));
  const ours = policy.jitter ? Math.round(ceiling / 2 + (random() * ceiling) / 2) : ceiling;
  return retryAfterMs === null ? ours : Math.max(ours, retryAfterMs);
}

/** Whether to try again after the `attempt`-th try failed with `error`, and after how long. */
export function nextRetry(
  policy: RetryPolicy,
  attempt: number,
  error: unknown,
  random: () => number = Math.random,
): RetryDecision {
  if (!policy.isTransient(error)) return { retry: false, reason: "permanent" };
  if (attempt >= policy.attempts) return { retry: false, reason: "exhausted" };
  const retryAfterMs = (error as Failure | null)?.retryAfterMs ?? null;
  if (retryAfterMs !== null && retryAfterMs > policy.maxRetryAfterMs)
    return { retry: false, reason: "wait-too-long" };
  return { retry: true, delayMs: retryDelay(policy, attempt, retryAfterMs, random) };
}

export type RetryOptions = {
  /** Stops waiting (and trying) when it fires; the signal's reason is thrown. */
  signal?: AbortSignal;
  /** Seen before each wait, e.g. to record an attempt. */
  onRetry?: (info: { attempt: number; error: unknown; delayMs: number }) => void;
  random?: () => number;
  sleep?: (ms: number, signal?: AbortSignal) => Promise<void>;
};

/**
 * Runs `call` until it succeeds, fails for good, or has used the policy's attempts; the
 * last failure is thrown as it was. `call` receives the attempt's number (1 for the first).
 */
export async function withRetries<T>(
  call: (attempt: number) => Promise<T>,
  policy: RetryPolicy,
  options: RetryOptions = {},
): Promise<T> {
  const wait = options.sleep ?? sleep;
  for (let attempt = 1; ; attempt++) {
    try {
      return await call(attempt);
    } catch (error) {
      if (options.signal?.aborted) throw options.signal.reason;
      const decision = nextRetry(policy, attempt, error, options.random);
      if (!decision.retry) throw error;
      options.onRetry?.({ attempt, error, delayMs: decision.delayMs });
      await wait(decision.delayMs, options.signal);
    }
  }
}

export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const timer = setTimeout(resolve, ms);
    signal?.addEventListener(
      "abort",
      () => {
        clearTimeout(timer);
        reject(signal.reason);
      },
      { once: true },
    );
  });
}
