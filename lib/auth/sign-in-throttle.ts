import ipaddr from "ipaddr.js";

/** Failures further apart than this are forgotten. */
export const failureWindowMs = 15 * 60 * 1000;
export const maxDelayMs = 8000;
/** Password checks (scrypt) running at once, whatever the number of clients. */
export const maxConcurrentChecks = 2;

/**
 * How long to refuse attempts after `failures` consecutive failures: one typo is free,
 * then 0.5 s, 1 s, 2 s, 4 s, 8 s, and 8 s from then on.
 */
export function delayAfterFailures(failures: number): number {
  if (failures < 2) return 0;
  return Math.min(500 * 2 ** (failures - 2), maxDelayMs);
}

type ClientRecord = { failures: number; lastFailureAt: number; checking: boolean };

export type SignInOutcome =
  | { outcome: "signed-in" }
  | { outcome: "wrong-password"; retryAfterMs: number }
  /** Refused before any password check: a check from this client is under way or its delay runs. */
  | { outcome: "throttled"; retryAfterMs: number };

/**
 * Slows down password guessing per client address. Each address has one slot: the decision
 * and the slot are taken in one synchronous step before the password is checked, so parallel
 * guesses from one address get one check, not one each. Failures delay only the address they
 * come from; across addresses, checks wait their turn for one of `maxConcurrentChecks`
 * permits (first come, first served, at most one queued per address), so a flood from other
 * addresses can slow the administrator's check but never refuse it. In memory: a restart
 * forgets, which only helps the administrator.
 */
export class SignInThrottle {
  private readonly clients = new Map<string, ClientRecord>();
  private running = 0;
  private readonly waiting: Array<() => void> = [];

  constructor(
    private readonly now: () => number = Date.now,
    private readonly concurrency: number = maxConcurrentChecks,
  ) {}

  /** How long `clientKey` must wait before a check would be allowed (0: now). */
  waitFor(clientKey: string): number {
    const client = this.current(clientKey, this.now());
    if (client.checking) return 1000;
    return Math.max(0, client.lastFailureAt + delayAfterFailures(client.failures) - this.now());
  }

  /** Decides, takes the client's slot, checks the password (bounded concurrency), records. */
  async attempt(clientKey: string, checkPassword: () => Promise<boolean>): Promise<SignInOutcome> {
    const now = this.now();
    const retryAfterMs = this.waitFor(clientKey);
    if (retryAfterMs > 0) return { outcome: "throttled", retryAfterMs };
    const client = this.current(clientKey, now);
    // Synchronous since the decision: no other attempt from this client can slip in between.
    client.checking = true;
    this.clients.set(clientKey, client);
    let correct = false;
    try {
      await this.permit();
      try {
        correct = await checkPassword();
      } finally {
        this.releasePermit();
      }
    } finally {
      client.checking = false;
    }
    if (correct) {
      this.clients.delete(clientKey);
      return { outcome: "signed-in" };
    }
    const failedAt = this.now();
    client.failures += 1;
    client.lastFailureAt = failedAt;
    this.prune(failedAt);
    return { outcome: "wrong-password", retryAfterMs: this.waitFor(clientKey) };
  }

  private permit(): Promise<void> {
    if (this.running < this.concurrency) {
      this.running += 1;
      return Promise.resolve();
    }
    return new Promise((resolve) => this.waiting.push(resolve));
  }

  private releasePermit(): void {
    const next = this.waiting.shift();
    // The permit passes straight to the next in line, so `running` stays the same.
    if (next) next();
    else this.running -= 1;
  }

  private current(clientKey: string, now: number): ClientRecord {
    const record = this.clients.get(clientKey);
    if (!record) return { failures: 0, lastFailureAt: 0, checking: false };
    if (!record.checking && now - record.lastFailureAt > failureWindowMs) {
      record.failures = 0;
      record.lastFailureAt = 0;
    }
    return record;
  }

  private prune(now: number): void {
    if (this.clients.size < 10_000) return;
    for (const [key, record] of this.clients) {
      if (!record.checking && now - record.lastFailureAt > failureWindowMs)
        this.clients.delete(key);
    }
  }
}

/**
 * The throttle's key for an address: IPv6 clients usually hold a whole /64, so they are
 * counted per /64; IPv4 per address.
 */
export function addressKey(address: string): string {
  if (!ipaddr.isValid(address)) return address;
  const parsed = ipaddr.process(address);
  if (parsed.kind() === "ipv4") return parsed.toString();
  return `${parsed.toNormalizedString().split(":").slice(0, 4).join(":")}::/64`;
}
