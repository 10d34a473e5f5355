import { randomUUID } from "node:crypto";
import { and, asc, desc, eq, inArray, lte, notInArray } from "drizzle-orm";
import { claimRows, unclaimed } from "@/lib/background/lease";
import type { Database } from "@/lib/db/client";
import { webhookAttempts, webhookEvents, type WebhookSettings } from "@/lib/db/schema";
import { deliveryRetries } from "@/lib/delivery/delivery-retries";
import type { AttemptOutcome } from "@/lib/delivery/post-json";
import { retryDelay } from "@/lib/retry";
import type { DeliveryRecord } from "@/lib/schemas/sandbox-events";
import type { WebhookPayload } from "@/lib/schemas/webhook-payloads";

/** Attempts per event and the pauses between them (interface section 6.1 and 8). */
export const MAX_ATTEMPTS = deliveryRetries.attempts;

export type WebhookEvent = typeof webhookEvents.$inferSelect;
export type WebhookAttempt = typeof webhookAttempts.$inferSelect;

/** Whether an application's settings say this category is delivered. */
export function isSubscribed(settings: WebhookSettings, category: string): boolean {
  return settings.enabled && settings.url !== "" && settings.enabled_events.includes(category);
}

/**
 * Accepts events for delivery. Only subscribed events of an enabled application are
 * stored; once stored, an event is delivered (or exhausts its attempts) even across restarts.
 */
export async function enqueueEvents(
  db: Database,
  appId: string,
  settings: WebhookSettings,
  payloads: WebhookPayload[],
): Promise<Array<{ event_id: string; delivered: boolean }>> {
  const results = payloads.map((payload) => ({
    event_id: randomUUID(),
    delivered: isSubscribed(settings, payload.category),
    payload,
  }));
  const rows = results
    .filter((result) => result.delivered)
    .map((result) => ({
      id: result.event_id,
      appId,
      category: result.payload.category,
      payload: result.payload,
      url: settings.url,
    }));
  if (rows.length > 0) await db.insert(webhookEvents).values(rows);
  return results.map(({ event_id, delivered }) => ({ event_id, delivered }));
}

/**
 * Claims due events for one worker. SKIP LOCKED lets several processes share the outbox
 * on PostgreSQL without two of them sending the same attempt; the claim expires by itself
 * if its worker dies.
 */
export async function claimDueEvents(
  db: Database,
  options: { limit: number; lockMs: number; excludeAppIds: string[] },
): Promise<WebhookEvent[]> {
  const now = new Date();
  const claimed = await claimRows(db, webhookEvents, {
    key: webhookEvents.id,
    where: and(
      eq(webhookEvents.status, "pending"),
      lte(webhookEvents.nextAttemptAt, now),
      unclaimed(webhookEvents.lockedUntil, now),
      options.excludeAppIds.length > 0 ? notInArray(webhookEvents.appId, options.excludeAppIds) : undefined,
    ),
    orderBy: asc(webhookEvents.seq),
    limit: options.limit,
    set: { lockedUntil: new Date(now.getTime() + options.lockMs) },
  });
  return claimed.sort((a, b) => a.seq - b.seq);
}

export type AttemptRecord = { event: WebhookEvent; outcome: AttemptOutcome; at: Date };

/**
 * Records attempts and decides what happens next for each event: done, or another try later.
 * Many attempts share one transaction (a commit per attempt would be the delivery rate's
 * ceiling). The claims on the rest of the worker's batch can be renewed in the same
 * transaction, so a claim only ever has to outlast a few attempts.
 */
export async function recordAttempts(
  db: Database,
  records: AttemptRecord[],
  renew: { eventIds: string[]; lockMs: number } = { eventIds: [], lockMs: 0 },
) {
  if (records.length === 0 && renew.eventIds.length === 0) return;
  await db.transaction(async (tx) => {
    if (records.length > 0) {
      await tx
        .insert(webhookAttempts)
        .values(
          records.map(({ event, outcome, at }) => ({
            eventId: event.id,
            attempt: event.attemptCount + 1,
            at,
            status: outcome.status,
            error: outcome.error,
            latencyMs: outcome.latencyMs,
            responseExcerpt: outcome.responseExcerpt,
          })),
        )
        .onConflictDoNothing();
    }
    for (const { event, outcome } of records) {
      const attempt = event.attemptCount + 1;
      const status = outcome.status !== null ? "delivered" : attempt >= MAX_ATTEMPTS ? "failed" : "pending";
      await tx
        .update(webhookEvents)
        .set({
          attemptCount: attempt,
          status,
          lockedUntil: null,
          nextAttemptAt: new Date(Date.now() + retryDelay(deliveryRetries, attempt)),
        })
        .where(eq(webhookEvents.id, event.id));
    }
    if (renew.eventIds.length > 0) {
      await tx
        .update(webhookEvents)
        .set({ lockedUntil: new Date(Date.now() + renew.lockMs) })
        .where(inArray(webhookEvents.id, renew.eventIds));
    }
  });
}

/** The newest deliveries of an application, each with every attempt. */
export async function listDeliveries(
  db: Database,
  appId: string,
  options: { limit: number; category?: string; eventId?: string },
): Promise<DeliveryRecord[]> {
  const events = await db
    .select()
    .from(webhookEvents)
    .where(
      and(
        eq(webhookEvents.appId, appId),
        options.category ? eq(webhookEvents.category, options.category) : undefined,
        options.eventId ? eq(webhookEvents.id, options.eventId) : undefined,
      ),
    )
    .orderBy(desc(webhookEvents.seq))
    .limit(options.limit);
  if (events.length === 0) return [];
  const attempts = await db
    .select()
    .from(webhookAttempts)
    .where(
      inArray(
        webhookAttempts.eventId,
        events.map((event) => event.id),
      ),
    )
    .orderBy(asc(webhookAttempts.attempt));
  return events.map((event) => ({
    event_id: event.id,
    category: event.category,
    url: event.url,
    status: event.status,
    created_at: event.createdAt.getTime(),
    payload: event.payload,
    attempts: attempts
      .filter((attempt) => attempt.eventId === event.id)
      .map((attempt) => ({
        attempt: attempt.attempt,
        at: attempt.at.getTime(),
        status: attempt.status,
        error: attempt.error,
        latency_ms: attempt.latencyMs,
        response_excerpt: attempt.responseExcerpt,
      })),
  }));
}
