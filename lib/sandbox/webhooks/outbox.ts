import { randomUUID } from "node:crypto";
import { and, asc, eq, inArray, isNull, lt, lte, or, sql } from "drizzle-orm";
import { alias } from "drizzle-orm/pg-core";
import type { Database } from "@/lib/db/client";
import {
  sandboxApps,
  webhookAttempts,
  webhookEvents,
  type WebhookAttemptOutcome,
  type WebhookOutcome,
  type WebhookSettings,
} from "@/lib/db/schema";
import type { AttemptOutcome } from "@/lib/delivery/post-json";
import type { WebhookPayload } from "@/lib/schemas/webhook-payloads";

/** Attempts per event (interface section 6.1 and 8). */
export const MAX_ATTEMPTS = 3;
/** Pause before the second and third attempt. */
export const RETRY_DELAYS_MS = [1000, 2000] as const;

export const INTERRUPTED_ERROR = "Interrupted: the server stopped while this attempt was under way.";

export type WebhookEvent = typeof webhookEvents.$inferSelect;
export type WebhookAttempt = typeof webhookAttempts.$inferSelect;
/** An event claimed for an attempt, with the key its body is signed with. */
export type ClaimedEvent = WebhookEvent & { signingKey: string };

/** Whether an application's settings say this category is delivered. */
export function isSubscribed(settings: WebhookSettings, category: string): boolean {
  return settings.enabled && settings.url !== "" && settings.enabled_events.includes(category);
}

/** The direct call or room an event belongs to; its events are delivered in the order they happened. */
export function orderKeyOf(payload: Record<string, unknown>, fallback: string): string {
  const callId = (payload.direct_call as { call_id?: unknown } | undefined)?.call_id;
  if (typeof callId === "string") return `direct_call:${callId}`;
  const roomId = (payload.room as { room_id?: unknown } | undefined)?.room_id;
  if (typeof roomId === "string") return `room:${roomId}`;
  return fallback;
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
    .map((result) => newEventRow(appId, settings.url, result.payload as unknown as Record<string, unknown>, result.event_id));
  if (rows.length > 0) await db.insert(webhookEvents).values(rows);
  return results.map(({ event_id, delivered }) => ({ event_id, delivered }));
}

export function newEventRow(appId: string, url: string, payload: Record<string, unknown>, id: string = randomUUID()) {
  return {
    id,
    appId,
    category: String(payload.category),
    payload,
    url,
    orderKey: orderKeyOf(payload, id),
  };
}

/**
 * Claims due events for attempts that start at once. An event waits while an older event of
 * the same call or room is still pending, so those arrive in order; everything else goes out
 * side by side. `capacity` says how many more attempts an endpoint may take now (the bound on
 * requests in flight per endpoint). SKIP LOCKED lets several processes share the outbox on
 * PostgreSQL; a claim runs out by itself when its worker dies.
 *
 * A claimed event whose previous claim started an attempt that was never recorded (the
 * process died during it) first gets that attempt recorded as interrupted: it counts as one of
 * the three.
 */
export async function claimDueEvents(
  db: Database,
  options: { limit: number; lockMs: number; capacity: (url: string) => number },
): Promise<ClaimedEvent[]> {
  if (options.limit <= 0) return [];
  return db.transaction(async (tx) => {
    const now = new Date();
    const earlier = alias(webhookEvents, "earlier");
    const candidates = await tx
      .select()
      .from(webhookEvents)
      .where(
        and(
          eq(webhookEvents.status, "pending"),
          lte(webhookEvents.nextAttemptAt, now),
          or(isNull(webhookEvents.lockedUntil), lt(webhookEvents.lockedUntil, now)),
          sql`not exists (select 1 from ${webhookEvents} as ${earlier} where ${earlier.appId} = ${webhookEvents.appId}
            and ${earlier.orderKey} = ${webhookEvents.orderKey} and ${earlier.status} = 'pending'
            and ${earlier.seq} < ${webhookEvents.seq})`,
        ),
      )
      .orderBy(asc(webhookEvents.seq))
      .limit(options.limit * 2)
      .for("update", { skipLocked: true });

    const taken = new Map<string, number>();
    const chosen: WebhookEvent[] = [];
    const interrupted: WebhookEvent[] = [];
    for (const event of candidates) {
      if (event.attemptStartedAt !== null) interrupted.push(event);
      if (chosen.length >= options.limit) continue;
      const used = taken.get(event.url) ?? 0;
      if (used >= options.capacity(event.url)) continue;
      taken.set(event.url, used + 1);
      chosen.push(event);
    }

    if (interrupted.length > 0) {
      await tx
        .insert(webhookAttempts)
        .values(
          interrupted.map((event) => ({
            eventId: event.id,
            attempt: event.attemptCount + 1,
            at: event.attemptStartedAt!,
            status: null,
            error: INTERRUPTED_ERROR,
            outcome: "interrupted" as const,
            latencyMs: 0,
          })),
        )
        .onConflictDoNothing();
      for (const event of interrupted) {
        event.attemptCount += 1;
        event.attemptStartedAt = null;
        const exhausted = event.attemptCount >= MAX_ATTEMPTS;
        await tx
          .update(webhookEvents)
          .set({
            attemptCount: event.attemptCount,
            attemptStartedAt: null,
            ...(exhausted ? { status: "failed" as const, outcome: "no_response" as const, lockedUntil: null } : {}),
          })
          .where(eq(webhookEvents.id, event.id));
      }
    }

    const attempting = chosen.filter((event) => event.attemptCount < MAX_ATTEMPTS);
    if (attempting.length === 0) return [];
    await tx
      .update(webhookEvents)
      .set({ lockedUntil: new Date(now.getTime() + options.lockMs), attemptStartedAt: now })
      .where(
        inArray(
          webhookEvents.id,
          attempting.map((event) => event.id),
        ),
      );
    const appIds = [...new Set(attempting.map((event) => event.appId))];
    const tokens = new Map(
      (
        await tx
          .select({ id: sandboxApps.id, apiToken: sandboxApps.apiToken })
          .from(sandboxApps)
          .where(inArray(sandboxApps.id, appIds))
      ).map((app) => [app.id, app.apiToken]),
    );
    return attempting.map((event) => ({ ...event, signingKey: tokens.get(event.appId) ?? "" }));
  });
}

export type AttemptRecord = { event: WebhookEvent; outcome: AttemptOutcome; at: Date };

/** What one attempt's outcome means for the attempt and for its event. */
export function judgeAttempt(
  outcome: Pick<AttemptOutcome, "status" | "refused">,
  attempt: number,
): { attempt: WebhookAttemptOutcome; event: WebhookOutcome } {
  if (outcome.refused) return { attempt: "refused", event: "refused" };
  if (outcome.status !== null) {
    const kind = outcome.status >= 200 && outcome.status < 300 ? "delivered" : "failed";
    return { attempt: kind, event: kind };
  }
  return { attempt: "no_response", event: attempt >= MAX_ATTEMPTS ? "no_response" : "pending" };
}

/**
 * Records attempts and decides what happens next for each event: done, or another try later.
 * Many attempts share one transaction (a commit per attempt would be the delivery rate's
 * ceiling). A refusal by the address guard is final.
 */
export async function recordAttempts(db: Database, records: AttemptRecord[]) {
  if (records.length === 0) return;
  await db.transaction(async (tx) => {
    await tx
      .insert(webhookAttempts)
      .values(
        records.map(({ event, outcome, at }) => ({
          eventId: event.id,
          attempt: event.attemptCount + 1,
          at,
          status: outcome.status,
          error: outcome.error,
          outcome: judgeAttempt(outcome, event.attemptCount + 1).attempt,
          latencyMs: outcome.latencyMs,
          requestHeaders: outcome.requestHeaders,
          responseHeaders: outcome.responseHeaders,
          responseExcerpt: outcome.responseExcerpt,
        })),
      )
      .onConflictDoNothing();
    // One statement for the whole batch: each event's next state comes from a VALUES list.
    const rows = records.map(({ event, outcome }) => {
      const attempt = event.attemptCount + 1;
      const judged = judgeAttempt(outcome, attempt).event;
      const status = judged === "pending" ? "pending" : judged === "no_response" || judged === "refused" ? "failed" : "delivered";
      const next = new Date(Date.now() + (RETRY_DELAYS_MS[attempt - 1] ?? 0));
      return sql`(${event.id}, ${attempt}::int, ${status}, ${judged}, ${next.toISOString()}::timestamptz)`;
    });
    await tx.execute(sql`
      update ${webhookEvents} set
        attempt_count = v.attempt, status = v.status, outcome = v.outcome, next_attempt_at = v.next_at,
        locked_until = null, attempt_started_at = null
      from (values ${sql.join(rows, sql`, `)}) as v(id, attempt, status, outcome, next_at)
      where ${webhookEvents.id} = v.id`);
  });
}
