import type { Database } from "@/lib/db/client";
import type { AddressPolicy } from "@/lib/delivery/address-guard";
import { acquireHolder, type Holder } from "@/lib/background/holder";
import { startPollLoop } from "@/lib/background/poll-loop";
import { postJson } from "@/lib/delivery/post-json";
import { purgeDeliveries } from "./deliveries";
import { claimDueEvents, recordAttempts, type AttemptRecord, type ClaimedEvent } from "./outbox";

/**
 * Finished attempts are recorded together, up to this many or this old: the delivery rate is
 * not bound by one commit per attempt. A crash before the record leaves the attempt marked as
 * started, and it is recorded as interrupted on restart (delivery is at least once).
 */
const RECORD_BATCH = 100;
const RECORD_DELAY_MS = 10;
/** A batch whose record failed (the database is away) is tried again after this, then longer. */
const RECORD_RETRY_MS = [500, 1_000, 2_000, 5_000, 10_000];
/** How often old deliveries are removed. */
const RETENTION_EVERY_MS = 10 * 60_000;

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

export type WebhookWorker = {
  /** Look at the outbox now (an event was just accepted). */
  nudge: () => void;
  stop: () => Promise<void>;
};

/**
 * Delivers the outbox concurrently. Events of one direct call or one room go out one after
 * another, in the order they happened (dial before accept before end); everything else goes
 * side by side, with a bound on the requests in flight per endpoint. The API that accepted an
 * event never waits for any of this.
 */
export function startWebhookWorker(options: WebhookWorkerOptions): WebhookWorker {
  const concurrency = options.concurrency ?? 256;
  const perEndpoint = options.perEndpoint ?? 128;
  const pollMs = options.pollMs ?? 500;
  // The worker's name on its claims; it holds them until recorded, however long that takes.
  let holder: Promise<Holder> | undefined;
  const holderOf = (db: Database) => {
    holder ??= acquireHolder(db).catch((error: unknown) => {
      holder = undefined;
      throw error;
    });
    return holder;
  };
  const inFlight = new Map<string, number>();
  const attempts = new Set<Promise<void>>();
  let finished: AttemptRecord[] = [];
  let flushTimer: NodeJS.Timeout | undefined;
  let flushing: Promise<void> = Promise.resolve();
  let lastPurge = 0;
  const nudge = () => loop.nudge();
  let total = 0;
  /** Finished attempts not yet recorded; claiming pauses while too many wait. */
  const MAX_UNRECORDED = 1_000;
  let unrecorded = 0;
  let stopping = false;

  function flush(db: Database, key: number): Promise<void> {
    clearTimeout(flushTimer);
    flushTimer = undefined;
    const records = finished;
    finished = [];
    if (records.length === 0) return flushing;
    // An attempt's record is never dropped: its event stays claimed by this worker until it is
    // written, and dropping it would leave the event to be called interrupted and sent again.
    const record = async () => {
      for (let failures = 0; ; failures += 1) {
        try {
          return await recordAttempts(db, key, records);
        } catch (error) {
          if (stopping && failures >= 2) throw error;
          console.error("[webhooks] recording attempts failed, trying again:", error);
          const pause = RECORD_RETRY_MS[Math.min(failures, RECORD_RETRY_MS.length - 1)]!;
          await new Promise((resolve) => setTimeout(resolve, pause));
        }
      }
    };
    flushing = flushing
      .then(record)
      .catch((error: unknown) => console.error("[webhooks] recording attempts failed:", error))
      .finally(() => {
        unrecorded -= records.length;
        // Recorded attempts release the next events of their calls and rooms.
        nudge();
      });
    return flushing;
  }

  function attempt(db: Database, key: number, event: ClaimedEvent) {
    total += 1;
    inFlight.set(event.url, (inFlight.get(event.url) ?? 0) + 1);
    const at = new Date();
    const work = postJson(event.url, event.body, {
      timeoutMs: options.timeoutMs,
      policy: options.policy,
      signingKey: event.signingKey,
    }).then((outcome) => {
      // The request is over: its slot is free, though its record may wait for the next batch
      // (its claim keeps anyone from attempting it again meanwhile, this worker included).
      const left = (inFlight.get(event.url) ?? 1) - 1;
      if (left <= 0) inFlight.delete(event.url);
      else inFlight.set(event.url, left);
      total -= 1;
      unrecorded += 1;
      nudge();
      finished.push({ event, outcome, at });
      if (finished.length >= RECORD_BATCH) void flush(db, key);
      else flushTimer ??= setTimeout(() => void flush(db, key), RECORD_DELAY_MS);
    });
    attempts.add(work);
    void work.finally(() => attempts.delete(work));
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

  async function tick(db: Database): Promise<boolean> {
    await purgeWhenDue(db);
    const free = concurrency - total;
    if (free <= 0 || unrecorded >= MAX_UNRECORDED) return false;
    // A claim is a transaction: wait for a quarter of the slots rather than claim one event at a time.
    if (total > 0 && free < concurrency / 4) return false;
    const { key } = await holderOf(db);
    const claimed = await claimDueEvents(db, {
      limit: free,
      holder: key,
      perEndpoint,
      inFlight,
    });
    for (const event of claimed) attempt(db, key, event);
    return false;
  }

  const loop = startPollLoop(async () => tick(await options.getDb()), {
    pollMs,
    name: "webhook-outbox",
    onError: (error) => console.error("[webhooks] outbox check failed:", error),
  });

  return {
    nudge,
    stop: async () => {
      stopping = true;
      await loop.stop();
      await Promise.allSettled(attempts);
      if (!holder) return;
      const held = await holder.catch(() => undefined);
      if (!held) return;
      await flush(await options.getDb(), held.key);
      // What is still claimed (a record that could not be written) goes to the next worker,
      // which records it as interrupted.
      await held.release();
    },
  };
}
