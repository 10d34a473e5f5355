import ipaddr from "ipaddr.js";

/** Failures further apart than this are forgotten. */
export const failureWindowMs = 15 * 60 * 1000;
export const maxDelayMs = 8000;
/** Password checks (scrypt) running at once, whatever the number of clients. */
export const maxConcurrentChecks = 2;
/** Failed sign-ins in the last minute, over all clients, beyond which checks are paced. */
export const freeFailuresPerMinute = 30;
/** While paced: one password check per this interval, over all clients. */
export const pacedCheckIntervalMs = 1000;
/** How long an attempt waits for a paced check before it is answered "busy" (a failure of its client). */
export const maxPacedWaitMs = 5000;
/** A remembered browser keeps its priority until it has failed this many times. */
export const trustedClientMaxFailures = 5;

const minuteMs = 60_000;

/**
 * How long to refuse attempts after `failures` consecutive failures: one typo is free,
 * then 0.5 s, 1 s, 2 s, 4 s, 8 s, and 8 s from then on.
 */
export function delayAfterFailures(failures: number): number {
  if (failures < 2) return 0;
  return Math.min(500 * 2 ** (failures - 2), maxDelayMs);
}

/**
 * Who is signing in: an address (IPv6 per /64), or a browser that has signed in before
 * (`trusted`, from its remembered-browser cookie), which goes first when checks are paced.
 */
export type SignInClient = { key: string; trusted: boolean };

type ClientRecord = { failures: number; lastFailureAt: number; checking: boolean };

export type SignInOutcome =
  | { outcome: "signed-in" }
  | { outcome: "wrong-password"; retryAfterMs: number }
  /** Refused before any password check: a check from this client is under way or its delay runs. */
  | { outcome: "throttled"; retryAfterMs: number }
  /** Refused before any password check: while paced, no check was free for it in maxPacedWaitMs. */
  | { outcome: "busy"; retryAfterMs: number };

type Waiter = { rank: number; admit: (admitted: boolean) => void };

export type SignInThrottleOptions = {
  now?: () => number;
  concurrency?: number;
  freeFailuresPerMinute?: number;
  pacedCheckIntervalMs?: number;
  maxPacedWaitMs?: number;
};

/**
 * Slows down password guessing, per client and overall.
 *
 * Per client: each client has one slot, taken in the same synchronous step as the decision
 * before the password is checked, so parallel guesses from one client get one check, not one
 * each; failures delay only the client they come from.
 *
 * Overall: once more than freeFailuresPerMinute sign-ins failed in the last minute (over all
 * clients), checks are paced to one per pacedCheckIntervalMs, however many addresses guess.
 * Waiting attempts are not refused at once: the next check goes to the remembered browser
 * first, then to the client with the fewest failures, then to the longest waiting. A flood's
 * addresses pile up failures (an attempt that waits maxPacedWaitMs in vain counts as one), so
 * the administrator, from a remembered browser or from an address that has not failed, is
 * checked within a pace or two; a guesser gains no check by waiting or by adding addresses.
 * Checks then wait for one of `concurrency` permits, first come, first served.
 *
 * In memory: a restart forgets, which only helps the administrator.
 */
export class SignInThrottle {
  private readonly clients = new Map<string, ClientRecord>();
  private running = 0;
  /** Attempts let through to a check (waiting for a permit or checking) and not yet answered. */
  private checksUnderWay = 0;
  private readonly permitQueue: Array<() => void> = [];
  /** Times of recent failures over all clients (oldest first, from `failuresFrom`). */
  private readonly recentFailures: number[] = [];
  private failuresFrom = 0;
  private readonly paced = new Set<Waiter>();
  private lastPacedCheckAt = -Infinity;
  private pacer: ReturnType<typeof setTimeout> | undefined;
  private readonly now: () => number;
  private readonly concurrency: number;
  private readonly freeFailuresPerMinute: number;
  private readonly pacedCheckIntervalMs: number;
  private readonly maxPacedWaitMs: number;

  constructor(options: SignInThrottleOptions = {}) {
    this.now = options.now ?? Date.now;
    this.concurrency = options.concurrency ?? maxConcurrentChecks;
    this.freeFailuresPerMinute = options.freeFailuresPerMinute ?? freeFailuresPerMinute;
    this.pacedCheckIntervalMs = options.pacedCheckIntervalMs ?? pacedCheckIntervalMs;
    this.maxPacedWaitMs = options.maxPacedWaitMs ?? maxPacedWaitMs;
  }

  /** How long `clientKey` must wait before a check would be allowed (0: now). */
  waitFor(clientKey: string): number {
    const client = this.current(clientKey, this.now());
    if (client.checking) return 1000;
    return Math.max(0, client.lastFailureAt + delayAfterFailures(client.failures) - this.now());
  }

  /**
   * Whether checks are paced now: too many failures in the last minute, over all clients.
   * Checks under way count as failures to come, so a burst of parallel guesses is bounded too.
   */
  isPaced(): boolean {
    return this.failuresInLastMinute() + this.checksUnderWay >= this.freeFailuresPerMinute;
  }

  /** Decides, takes the client's slot, waits its turn, checks the password, records. */
  async attempt(
    { key, trusted }: SignInClient,
    checkPassword: () => Promise<boolean>,
  ): Promise<SignInOutcome> {
    const now = this.now();
    const retryAfterMs = this.waitFor(key);
    if (retryAfterMs > 0) return { outcome: "throttled", retryAfterMs };
    const client = this.current(key, now);
    // Synchronous since the decision: no other attempt from this client can slip in between.
    client.checking = true;
    this.clients.set(key, client);
    let correct = false;
    try {
      const rank = trusted && client.failures < trustedClientMaxFailures ? 0 : 1 + client.failures;
      if (!(await this.turn(rank))) {
        client.checking = false;
        this.recordFailure(client);
        return {
          outcome: "busy",
          retryAfterMs: Math.max(this.waitFor(key), this.pacedCheckIntervalMs),
        };
      }
      try {
        await this.permit();
        try {
          correct = await checkPassword();
        } finally {
          this.releasePermit();
        }
      } finally {
        this.checksUnderWay -= 1;
      }
    } finally {
      client.checking = false;
    }
    if (correct) {
      this.clients.delete(key);
      return { outcome: "signed-in" };
    }
    this.recordFailure(client);
    return { outcome: "wrong-password", retryAfterMs: this.waitFor(key) };
  }

  /**
   * Resolves true when this attempt may be checked (counted under way from that moment, in
   * the same synchronous step), false when it waited maxPacedWaitMs in vain.
   */
  private turn(rank: number): Promise<boolean> {
    const now = this.now();
    if (this.paced.size === 0) {
      const paced = this.isPaced();
      if (!paced || now - this.lastPacedCheckAt >= this.pacedCheckIntervalMs) {
        if (paced) this.lastPacedCheckAt = now;
        this.checksUnderWay += 1;
        return Promise.resolve(true);
      }
    }
    return new Promise((resolve) => {
      const waiter: Waiter = {
        rank,
        admit: (admitted) => {
          clearTimeout(timer);
          resolve(admitted);
        },
      };
      const timer = setTimeout(() => {
        this.paced.delete(waiter);
        waiter.admit(false);
      }, this.maxPacedWaitMs);
      this.paced.add(waiter);
      this.schedulePacer();
    });
  }

  private schedulePacer(): void {
    if (this.pacer || this.paced.size === 0) return;
    const wait = Math.max(0, this.lastPacedCheckAt + this.pacedCheckIntervalMs - this.now());
    this.pacer = setTimeout(() => {
      this.pacer = undefined;
      this.admitNext();
      this.schedulePacer();
    }, wait);
  }

  /**
   * Lets the best waiting attempt be checked, this pace's one; once checks are no longer paced,
   * more of them, as long as the bound allows (each admitted check counts towards it).
   */
  private admitNext(): void {
    if (this.paced.size === 0) return;
    this.lastPacedCheckAt = this.now();
    do {
      const waiter = this.bestWaiter();
      this.paced.delete(waiter);
      this.checksUnderWay += 1;
      waiter.admit(true);
    } while (this.paced.size > 0 && !this.isPaced());
  }

  /** The remembered browser first, then the fewest failures, then the longest waiting (Set order). */
  private bestWaiter(): Waiter {
    let best: Waiter | undefined;
    for (const waiter of this.paced) if (!best || waiter.rank < best.rank) best = waiter;
    return best!;
  }

  private recordFailure(client: ClientRecord): void {
    const failedAt = this.now();
    client.failures += 1;
    client.lastFailureAt = failedAt;
    this.recentFailures.push(failedAt);
    this.prune(failedAt);
  }

  private failuresInLastMinute(): number {
    const since = this.now() - minuteMs;
    while (
      this.failuresFrom < this.recentFailures.length &&
      this.recentFailures[this.failuresFrom]! <= since
    )
      this.failuresFrom += 1;
    if (this.failuresFrom > 1024) {
      this.recentFailures.splice(0, this.failuresFrom);
      this.failuresFrom = 0;
    }
    return this.recentFailures.length - this.failuresFrom;
  }

  private permit(): Promise<void> {
    if (this.running < this.concurrency) {
      this.running += 1;
      return Promise.resolve();
    }
    return new Promise((resolve) => this.permitQueue.push(resolve));
  }

  private releasePermit(): void {
    const next = this.permitQueue.shift();
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
