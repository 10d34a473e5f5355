import type { Database } from "@/lib/db/client";
import type { AddressPolicy } from "@/lib/delivery/address-guard";
import { startPollLoop } from "@/lib/background/poll-loop";
import { postJson } from "@/lib/delivery/post-json";
import { claimDueEvents, recordAttempts, type AttemptRecord, type WebhookEvent } from "./outbox";

/**
 * Attempts are recorded together, up to this many or this old: a crash can then re-send at
 * most one unrecorded batch (delivery is at least once), and the delivery rate is not bound
 * by one commit per event.
 */
const RECORD_BATCH = 50;
const RECORD_DELAY_MS = 100;

export type WebhookWorkerOptions = {
  getDb: () => Promise<Database>;
  timeoutMs: number;
  policy: AddressPolicy;
  /** Applications delivered to at the same time. */
  concurrency?: number;
  /** How often the outbox is looked at when nobody nudges. */
  pollMs?: number;
};

export type WebhookWorker = {
  /** Look at the outbox now (an event was just accepted). */
  nudge: () => void;
  stop: () => Promise<void>;
};

/**
 * Delivers the outbox. Events of one application go out one after another, in the order
 * they were accepted (dial before accept before end); applications are served side by side.
 * The API that accepted an event never waits for any of this.
 */
export function startWebhookWorker(options: WebhookWorkerOptions): WebhookWorker {
  const concurrency = options.concurrency ?? 16;
  const pollMs = options.pollMs ?? 500;
  // A claim outlasts one attempt; recording it renews the claims on the rest of the batch.
  const lockMs = options.timeoutMs + 3_000;
  const busyApps = new Map<string, Promise<void>>();
  const nudge = () => loop.nudge();

  async function deliver(db: Database, events: WebhookEvent[]) {
    let leaseEnds = Date.now() + lockMs;
    let pending: AttemptRecord[] = [];
    let oldestPending = 0;
    const flush = async (remaining: WebhookEvent[]) => {
      // Renew the claim on the rest of the batch when it could run out before the next attempt ends.
      const renewLease = remaining.length > 0 && Date.now() + options.timeoutMs + 1_000 > leaseEnds;
      await recordAttempts(db, pending, { eventIds: renewLease ? remaining.map((event) => event.id) : [], lockMs });
      if (renewLease) leaseEnds = Date.now() + lockMs;
      if (pending.some((record) => record.outcome.status === null)) nudge();
      pending = [];
    };
    for (const [index, event] of events.entries()) {
      if (!loop.running) break;
      const at = new Date();
      const outcome = await postJson(event.url, JSON.stringify(event.payload), {
        timeoutMs: options.timeoutMs,
        policy: options.policy,
      });
      if (pending.length === 0) oldestPending = Date.now();
      pending.push({ event, outcome, at });
      const remaining = events.slice(index + 1);
      const leaseShort = Date.now() + options.timeoutMs + 1_000 > leaseEnds;
      if (pending.length >= RECORD_BATCH || Date.now() - oldestPending >= RECORD_DELAY_MS || leaseShort) {
        await flush(remaining);
      }
    }
    await flush([]);
  }

  async function tick(db: Database) {
    const free = concurrency - busyApps.size;
    if (free <= 0) return;
    const claimed = await claimDueEvents(db, {
      limit: free * 8,
      lockMs,
      excludeAppIds: [...busyApps.keys()],
    });
    const byApp = new Map<string, WebhookEvent[]>();
    for (const event of claimed) byApp.set(event.appId, [...(byApp.get(event.appId) ?? []), event]);
    for (const [appId, events] of byApp) {
      const work = deliver(db, events)
        .catch((error: unknown) => console.error(`[webhooks] delivery for ${appId} failed:`, error))
        .finally(() => {
          busyApps.delete(appId);
          nudge();
        });
      busyApps.set(appId, work);
    }
  }

  const loop = startPollLoop(async () => tick(await options.getDb()), {
    pollMs,
    name: "webhook-outbox",
    onError: (error) => console.error("[webhooks] outbox check failed:", error),
  });

  return {
    nudge,
    stop: async () => {
      await loop.stop();
      await Promise.allSettled(busyApps.values());
    },
  };
}
