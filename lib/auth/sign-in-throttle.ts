/** Failures further apart than this are forgotten. */
export const failureWindowMs = 15 * 60 * 1000;
export const maxDelayMs = 8000;
/** The global counter tolerates this many times more failures than one client. */
export const globalFailureFactor = 10;

/**
 * How long to refuse attempts after `failures` consecutive failures: one typo is free,
 * then 0.5 s, 1 s, 2 s, 4 s, 8 s, and 8 s from then on.
 */
export function delayAfterFailures(failures: number): number {
  if (failures < 2) return 0;
  return Math.min(500 * 2 ** (failures - 2), maxDelayMs);
}

type FailureRecord = { failures: number; lastFailureAt: number };

export type ThrottleDecision = { allowed: true } | { allowed: false; retryAfterMs: number; scope: "client" | "global" };

/**
 * Slows down password guessing per client address and, because addresses can be spoofed or
 * rotated, across all clients. In memory: a restart forgets, which only helps the administrator.
 */
export class SignInThrottle {
  private readonly clients = new Map<string, FailureRecord>();
  private global: FailureRecord = { failures: 0, lastFailureAt: 0 };

  constructor(private readonly now: () => number = Date.now) {}

  check(clientKey: string): ThrottleDecision {
    const now = this.now();
    const client = this.current(this.clients.get(clientKey), now);
    const global = this.current(this.global, now);
    const clientWait = client.lastFailureAt + delayAfterFailures(client.failures) - now;
    const globalWait =
      global.lastFailureAt + delayAfterFailures(Math.floor(global.failures / globalFailureFactor)) - now;
    if (clientWait <= 0 && globalWait <= 0) return { allowed: true };
    return clientWait >= globalWait
      ? { allowed: false, retryAfterMs: clientWait, scope: "client" }
      : { allowed: false, retryAfterMs: globalWait, scope: "global" };
  }

  /** Records a failure and says how long the client must now wait. */
  recordFailure(clientKey: string): number {
    const now = this.now();
    const client = this.current(this.clients.get(clientKey), now);
    this.clients.set(clientKey, { failures: client.failures + 1, lastFailureAt: now });
    const global = this.current(this.global, now);
    this.global = { failures: global.failures + 1, lastFailureAt: now };
    this.prune(now);
    const decision = this.check(clientKey);
    return decision.allowed ? 0 : decision.retryAfterMs;
  }

  /** A success forgives the client, not the others: their guesses still count globally. */
  recordSuccess(clientKey: string): void {
    this.clients.delete(clientKey);
  }

  private current(record: FailureRecord | undefined, now: number): FailureRecord {
    if (!record || now - record.lastFailureAt > failureWindowMs) return { failures: 0, lastFailureAt: 0 };
    return record;
  }

  private prune(now: number): void {
    if (this.clients.size < 10_000) return;
    for (const [key, record] of this.clients) {
      if (now - record.lastFailureAt > failureWindowMs) this.clients.delete(key);
    }
  }
}
