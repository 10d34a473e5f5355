/** How long to wait before the next try of a transient failure: exponential, with full jitter. */
export type BackoffOptions = { baseMs?: number; maxMs?: number; random?: () => number };

/**
 * `attempt` counts the tries already failed (1 after the first failure). Full jitter
 * (a uniform wait below the exponential ceiling) spreads retries of many rows that failed
 * together, so they do not come back as one burst.
 */
export function backoffDelay(attempt: number, options: BackoffOptions = {}): number {
  const { baseMs = 250, maxMs = 30_000, random = Math.random } = options;
  const ceiling = Math.min(maxMs, baseMs * 2 ** Math.max(0, attempt - 1));
  return Math.round(ceiling / 2 + (random() * ceiling) / 2);
}

/** The platform's own wait (Retry-After) wins over ours when it asks for longer. */
export function retryDelay(attempt: number, retryAfterMs: number | null, options: BackoffOptions = {}): number {
  const ours = backoffDelay(attempt, options);
  return retryAfterMs === null ? ours : Math.max(ours, retryAfterMs);
}
