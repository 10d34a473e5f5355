import { randomUUID } from "node:crypto";
import type { Database } from "@/lib/db/client";
import type { AddressPolicy } from "@/lib/delivery/address-guard";
import { keepRenewed } from "@/lib/background/lease";
import { startPollLoop } from "@/lib/background/poll-loop";
import { postJson } from "@/lib/delivery/post-json";
import { purgeDeliveries } from "./deliveries";
import {
  claimDueEvents,
  judgeAttempt,
  recordAttempts,
  releaseDeadHolders,
  releaseEvents,
  removeHolder,
  renewHolder,
  type AttemptRecord,
  type HeldEvent,
} from "./outbox";

/**
 * Finished attempts are recorded together, up to this many or this old: the delivery rate is
 * not bound by one commit per attempt. A crash before the record leaves the attempt marked as
 * started, and it is recorded as interrupted by whoever takes the event over.
 */
const RECORD_BATCH = 100;
const RECORD_DELAY_MS = 10;
/** How often old deliveries are removed. */
const RETENTION_EVERY_MS = 10 * 60_000;
/** Events stored beyond this many held in memory wait in the outbox for a claim instead. */
const MAX_HELD = 20_000;
/** Finished attempts not yet recorded; claiming pauses while too many wait. */
const MAX_UNRECORDED = 1_000;

export type WebhookWorkerOptions = {
  getDb: () => Promise<Database>;
  timeoutMs: number;
  policy: AddressPolicy;
  /** Attempts in flight at once, all endpoints together. */
  concurrency?: number;
  /** Attempts in flight at once to one endpoint URL (the keep-alive agent's sockets per host match it). */
  perEndpoint?: number;
  /** How often the outbox is looked at when nobody nudges. */
  pollMs?: number;
  /** Finished deliveries older than this many days are removed (WEBHOOK_LOG_RETENTION_DAYS). */
  retentionDays?: number;
};

/** What the sandbox's routes tell the worker of their process about the events they store. */
export type WebhookDispatch = {
  /** The holder to store new events for, when this worker can take more in memory. */
  holder: () => string | undefined;
  /** Events were stored: `held` go out from memory; `waiting` says others wait in the outbox. */
  accepted: (held: readonly HeldEvent[], waiting: boolean) => void;
};

export type WebhookWorker = WebhookDispatch & {
  /** Look at the outbox now. */
  nudge: () => void;
  stop: () => Promise<void>;
};

/**
 * Delivers events concurrently: those its process stored and holds, straight from memory, and
 * those it claims from the outbox (retries, events behind an older one of their call or room,
 * events of a worker that died). Events of one direct call or one room go out one after
 * another, in the order they happened (dial before accept before end); everything else goes
 * side by side, with a bound on the requests in flight per endpoint. The API that accepted an
 * event never waits for any of this.
 *
 * The worker's row in `webhook_holders`, renewed every third of its lease, keeps the events it
 * holds its own; when the process dies, the row runs out and any worker takes them over.
 */
export function startWebhookWorker(options: WebhookWorkerOptions): WebhookWorker {
  const concurrency = options.concurrency ?? 256;
  const perEndpoint = options.perEndpoint ?? 128;
  const pollMs = options.pollMs ?? 500;
  // A holder that stops renewing is dead after this: one attempt and its record.
  const leaseMs = options.timeoutMs + 5_000;
  const holderId = randomUUID();
  let registered = false;
  let stopping = false;
  let stopRenewing = () => {};
  const queues = new HoldQueues();
  const attempts = new Set<Promise<void>>();
  let finished: AttemptRecord[] = [];
  let released: string[] = [];
  let flushTimer: NodeJS.Timeout | undefined;
  let flushing: Promise<void> = Promise.resolve();
  let lastPurge = 0;
  let lastRelease = 0;
  let unrecorded = 0;
  let dbForAttempts: Database | undefined;
  // Whether a claim may find something: events stored without a holder, or behind one just
  // recorded. The poll looks anyway, for other processes' events and retries coming due.
  let outboxWaiting = true;

  function flush(db: Database): Promise<void> {
    clearTimeout(flushTimer);
    flushTimer = undefined;
    const records = finished;
    const toRelease = released;
    finished = [];
    released = [];
    if (records.length === 0 && toRelease.length === 0) return flushing;
    flushing = flushing
      .then(async () => {
        await recordAttempts(db, records);
        await releaseEvents(db, toRelease);
      })
      .catch((error: unknown) => console.error("[webhooks] recording attempts failed:", error))
      .finally(() => {
        unrecorded -= records.length;
        // Recorded attempts release the next events of their calls and rooms in the outbox.
        if (outboxWaiting || toRelease.length > 0) loop.nudge();
      });
    return flushing;
  }

  function attempt(db: Database, event: HeldEvent) {
    const at = new Date();
    const work = postJson(event.url, event.body, {
      timeoutMs: options.timeoutMs,
      policy: options.policy,
      signingKey: event.signingKey,
    }).then((outcome) => {
      unrecorded += 1;
      finished.push({ event, outcome, at });
      const retry = judgeAttempt(outcome, event.attemptCount + 1).event === "pending";
      // A retry goes back to the outbox: the events of its call or room behind it go too,
      // so that none overtakes it. Their attempt never started.
      released.push(...queues.finish(event, retry).map((next) => next.id));
      if (finished.length >= RECORD_BATCH) void flush(db);
      else flushTimer ??= setTimeout(() => void flush(db), RECORD_DELAY_MS);
      pump(db);
    });
    attempts.add(work);
    void work.finally(() => attempts.delete(work));
  }

  /** Starts the attempts whose turn has come, within the bounds. */
  function pump(db: Database) {
    if (stopping) return;
    for (const event of queues.startable(concurrency, perEndpoint)) attempt(db, event);
  }

  function hold(events: readonly HeldEvent[]) {
    queues.add(events);
    if (dbForAttempts) pump(dbForAttempts);
  }

  function accepted(events: readonly HeldEvent[], waiting: boolean) {
    hold(events);
    if (waiting) {
      outboxWaiting = true;
      loop.nudge();
    }
  }

  async function purgeWhenDue(db: Database) {
    if (!options.retentionDays || Date.now() - lastPurge < RETENTION_EVERY_MS) return;
    lastPurge = Date.now();
    const removed = await purgeDeliveries(
      db,
      new Date(Date.now() - options.retentionDays * 86_400_000),
    );
    if (removed > 0)
      console.log(
        `[webhooks] removed ${removed} deliveries older than ${options.retentionDays} days`,
      );
  }

  async function register(db: Database) {
    if (registered) return;
    await renewHolder(db, holderId, leaseMs);
    stopRenewing = keepRenewed(
      () => renewHolder(db, holderId, leaseMs),
      leaseMs,
      (line) => console.error(`[webhooks] ${line}`),
    );
    registered = true;
  }

  /** Takes over the events of holders that died, once per third of a lease. */
  async function releaseWhenDue(db: Database) {
    if (Date.now() - lastRelease < leaseMs / 3) return;
    lastRelease = Date.now();
    const taken = await releaseDeadHolders(db);
    if (taken > 0) {
      outboxWaiting = true;
      console.log(`[webhooks] took over ${taken} events of a stopped worker`);
    }
  }

  async function tick(db: Database): Promise<boolean> {
    dbForAttempts = db;
    await register(db);
    await purgeWhenDue(db);
    await releaseWhenDue(db);
    pump(db);
    const free = concurrency - queues.inFlightTotal;
    if (free <= 0 || unrecorded >= MAX_UNRECORDED) return false;
    // A claim is a transaction: wait for a quarter of the slots rather than claim one event at a time.
    if (queues.inFlightTotal > 0 && free < concurrency / 4) return false;
    const claimed = await claimDueEvents(db, {
      limit: free,
      holder: holderId,
      perEndpoint,
      inFlight: queues.busyPerEndpoint(),
    });
    outboxWaiting = claimed.length > 0;
    hold(claimed);
    return false;
  }

  const loop = startPollLoop(async () => tick(await options.getDb()), {
    pollMs,
    name: "webhook-outbox",
    onError: (error) => console.error("[webhooks] outbox check failed:", error),
  });

  return {
    holder: () => (registered && !stopping && queues.heldTotal < MAX_HELD ? holderId : undefined),
    accepted,
    nudge: () => loop.nudge(),
    stop: async () => {
      stopping = true;
      await loop.stop();
      stopRenewing();
      await Promise.allSettled(attempts);
      const db = await options.getDb();
      released.push(...queues.drain().map((event) => event.id));
      await flush(db);
      if (registered) await removeHolder(db, holderId);
    },
  };
}

/**
 * The events a worker holds, by call or room: the first of each is in flight or waiting for a
 * slot of its endpoint; the others wait for it to finish.
 */
class HoldQueues {
  /** Per order key, in `seq` order; the first is in flight or startable. */
  private readonly byKey = new Map<string, HeldEvent[]>();
  /** Per endpoint URL, the events whose turn in their call or room has come, oldest first. */
  private readonly startableByUrl = new Map<string, Fifo<HeldEvent>>();
  private readonly inFlight = new Map<string, number>();
  inFlightTotal = 0;
  heldTotal = 0;

  add(events: readonly HeldEvent[]) {
    for (const event of [...events].sort((a, b) => a.seq - b.seq)) {
      this.heldTotal += 1;
      const queue = this.byKey.get(event.orderKey);
      if (queue) queue.push(event);
      else {
        this.byKey.set(event.orderKey, [event]);
        this.makeStartable(event);
      }
    }
  }

  /** Takes the events that may start now and counts them in flight. */
  startable(concurrency: number, perEndpoint: number): HeldEvent[] {
    const started: HeldEvent[] = [];
    for (const [url, queue] of this.startableByUrl) {
      let busy = this.inFlight.get(url) ?? 0;
      while (queue.size > 0 && busy < perEndpoint && this.inFlightTotal < concurrency) {
        started.push(queue.shift());
        busy += 1;
        this.inFlightTotal += 1;
      }
      this.inFlight.set(url, busy);
      if (queue.size === 0) this.startableByUrl.delete(url);
    }
    return started;
  }

  /**
   * An attempt is over. Its call's or room's next event may start, unless it waits for a
   * retry: then the events behind it are let go (answered) and the key forgotten.
   */
  finish(event: HeldEvent, retry: boolean): HeldEvent[] {
    this.heldTotal -= 1;
    this.inFlightTotal -= 1;
    const left = (this.inFlight.get(event.url) ?? 1) - 1;
    if (left <= 0) this.inFlight.delete(event.url);
    else this.inFlight.set(event.url, left);
    const queue = this.byKey.get(event.orderKey) ?? [];
    queue.shift();
    if (retry || queue.length === 0) {
      this.byKey.delete(event.orderKey);
      this.heldTotal -= queue.length;
      return queue;
    }
    this.makeStartable(queue[0]!);
    return [];
  }

  /** Attempts under way or waiting for a slot, per endpoint URL. */
  busyPerEndpoint(): Map<string, number> {
    const busy = new Map(this.inFlight);
    for (const [url, queue] of this.startableByUrl)
      busy.set(url, (busy.get(url) ?? 0) + queue.size);
    return busy;
  }

  /** Lets go of every event held, once none is in flight (the worker stops). */
  drain(): HeldEvent[] {
    const waiting = [...this.byKey.values()].flat();
    this.byKey.clear();
    this.startableByUrl.clear();
    this.heldTotal = 0;
    return waiting;
  }

  private makeStartable(event: HeldEvent) {
    let queue = this.startableByUrl.get(event.url);
    if (!queue) this.startableByUrl.set(event.url, (queue = new Fifo()));
    queue.push(event);
  }
}

/**
 * A first-in first-out queue whose take is O(1) at any length: Array.shift moves every element
 * once an array outgrows V8's regular heap (20,000 shifts from 20,000 events: 500 ms).
 */
class Fifo<T> {
  private items: T[] = [];
  private head = 0;

  get size(): number {
    return this.items.length - this.head;
  }

  push(item: T) {
    this.items.push(item);
  }

  /** The oldest item; only when `size` > 0. */
  shift(): T {
    const item = this.items[this.head]!;
    this.head += 1;
    if (this.head >= 1024 && this.head * 2 >= this.items.length) {
      this.items = this.items.slice(this.head);
      this.head = 0;
    }
    return item;
  }
}
