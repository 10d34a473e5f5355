import { randomUUID } from "node:crypto";
import { and, eq, inArray, sql } from "drizzle-orm";
import type { Database } from "@/lib/db/client";
import {
  sandboxApps,
  webhookAttempts,
  webhookEvents,
  webhookHolders,
  type WebhookAttemptOutcome,
  type WebhookOutcome,
  type WebhookSettings,
} from "@/lib/db/schema";
import { isEmbedded, preparedQuery } from "@/lib/db/raw";
import { withRelaxedCommit } from "@/lib/db/relaxed-commit";
import { deliveryRetries } from "@/lib/delivery/delivery-retries";
import type { AttemptOutcome } from "@/lib/delivery/post-json";
import { retryDelay } from "@/lib/retry";
import type { WebhookPayload } from "@/lib/schemas/webhook-payloads";
import type { SandboxApplication } from "../apps";

/** Attempts per event and the pauses between them (interface section 6.1 and 8). */
export const MAX_ATTEMPTS = deliveryRetries.attempts;

export const INTERRUPTED_ERROR =
  "Interrupted: the server stopped while this attempt was under way.";

export type WebhookEvent = typeof webhookEvents.$inferSelect;
export type WebhookAttempt = typeof webhookAttempts.$inferSelect;
/**
 * An event a worker holds in memory for its next attempt: its body as stored, the key the body
 * is signed with, and its place among the events of its call or room.
 */
export type HeldEvent = Pick<
  WebhookEvent,
  "id" | "appId" | "url" | "attemptCount" | "orderKey" | "seq"
> & {
  body: string;
  signingKey: string;
};

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
 * With a `holder` (the delivery worker of this process), the same statement makes that worker
 * hold each event whose call or room has no event pending yet, and those come back in `held`
 * to be sent from memory: no claim, no second write before the outcome. The rest wait in the
 * outbox for a claim, behind the older events of their call or room.
 */
export async function enqueueEvents(
  db: Database,
  app: Pick<SandboxApplication, "id" | "apiToken" | "webhook">,
  payloads: WebhookPayload[],
  holder: string | undefined,
): Promise<{ results: Array<{ event_id: string; delivered: boolean }>; held: HeldEvent[] }> {
  const results = payloads.map((payload) => ({
    event_id: randomUUID(),
    delivered: isSubscribed(app.webhook, payload.category),
  }));
  const rows = results.flatMap((result, place) => {
    if (!result.delivered) return [];
    const payload = payloads[place]!;
    return [
      {
        id: result.event_id,
        place,
        category: String(payload.category),
        // The text stored is the body sent, byte for byte.
        body: JSON.stringify(payload),
        order_key: orderKeyOf(payload as unknown as Record<string, unknown>, result.event_id),
      },
    ];
  });
  const held: HeldEvent[] = [];
  if (rows.length === 0) return { results, held };
  const stored = await preparedQuery<{ id: string; seq: string | number; held: boolean }>(
    db,
    "webhook_enqueue_events",
    enqueueSql,
    [JSON.stringify(rows), app.id, app.webhook.url, holder ?? null],
  );
  const seqOf = new Map(stored.filter((row) => row.held).map((row) => [row.id, Number(row.seq)]));
  for (const row of rows) {
    const seq = seqOf.get(row.id);
    if (seq === undefined) continue;
    held.push({
      id: row.id,
      appId: app.id,
      url: app.webhook.url,
      attemptCount: 0,
      orderKey: row.order_key,
      seq,
      body: row.body,
      signingKey: app.apiToken,
    });
  }
  return { results, held };
}

/**
 * Held means "an attempt may be under way" from the start (`attempt_started_at`): if the
 * holder dies, whoever takes the event over records that attempt as interrupted, since the
 * receiver may have had it. Rows are inserted in the order given, so `seq` follows it.
 */
const enqueueSql = `
  insert into webhook_events (id, app_id, category, payload, url, order_key, held_by, attempt_started_at)
  select id, $2, category, body::json, $3, order_key, holder, case when holder is not null then now() end
  from (
    select v.*, ${heldWhenFirstPending("$4")} as holder
    from json_to_recordset($1::json) as v(id text, category text, body text, order_key text, place int)
    ${olderPendingOf("$2", "v.order_key")}
  ) c
  order by place
  returning id, seq, held_by is not null as held`;

/**
 * Joins `older.waiting`: whether an event of the same call or room is pending already. A
 * lateral probe of one index entry per row: as a NOT EXISTS in the select list, a prepared
 * statement's plan hashed every pending event on each run instead (10 ms per emit with 20,000
 * pending for a dead endpoint). The arguments are SQL expressions, never values.
 */
export function olderPendingOf(appId: string, orderKey: string): string {
  return `left join lateral (select true as waiting from webhook_events p
      where p.status = 'pending' and p.app_id = ${appId} and p.order_key = ${orderKey} limit 1
    ) older on true`;
}

/**
 * The holder, when no event of the call or room is pending yet (see olderPendingOf): an older
 * pending event, held by anyone or waiting for a retry, goes first, so a newer one waits in
 * the outbox.
 */
export function heldWhenFirstPending(holder: string): string {
  return `case when ${holder}::text is not null and older.waiting is null then ${holder}::text end`;
}

type ClaimOptions = {
  limit: number;
  /** The worker that will hold the claimed events (`webhook_holders.id`). */
  holder: string;
  /** The bound on attempts in flight to one endpoint URL. */
  perEndpoint: number;
  /** Attempts under way or waiting in memory now, per endpoint URL. */
  inFlight: ReadonlyMap<string, number>;
};

/**
 * Claims due events nobody holds, in one statement: events that wait for a retry, that
 * waited behind an older event of their call or room, that were stored without a holder, or
 * whose holder died. An event waits while an older event of the same call or room is still
 * pending, so those arrive in order; everything else goes out side by side. `inFlight` says
 * how many attempts each endpoint URL has under way and `perEndpoint` bounds them: candidates
 * over an endpoint's bound are left alone in the same statement, not claimed and handed back.
 * SKIP LOCKED lets several processes share the outbox on PostgreSQL. The commit does not wait
 * for the disk: a claim lost with a crash of PostgreSQL only means the event is sent again
 * (delivery is at least once).
 *
 * A claimed event whose previous holder may have started an attempt that was never recorded
 * (the process died) first gets that attempt recorded as interrupted: it counts as one of the
 * three.
 */
export async function claimDueEvents(db: Database, options: ClaimOptions): Promise<HeldEvent[]> {
  if (options.limit <= 0) return [];
  return withRelaxedCommit(db, (tx) => claimIn(tx, options));
}

async function claimIn(db: Database, options: ClaimOptions): Promise<HeldEvent[]> {
  const now = new Date().toISOString();
  const busy = JSON.stringify(Object.fromEntries(options.inFlight));
  // Walk the pending events in order and stop at the limit. Statistics taken while the outbox
  // was empty (a fresh table, or an idle one before a burst) make the planner prefer a bitmap
  // scan of every pending event, each checked for an older one of its key and then sorted:
  // work per claim that grows with the backlog. Without statistics at all it scanned the whole
  // table instead (189 scans, 5.4 million rows read while a "send again" of 10,000 went through
  // claims).
  await db.execute(sql`set local enable_bitmapscan = off`);
  await db.execute(sql`set local enable_seqscan = off`);
  // The payload comes back as the text it was stored as (`json` keeps it verbatim): that is
  // the body to sign and send, with no parse and no serialisation in between.
  const claimed = (await db.execute(sql`
    with candidates as (
      select e.id, e.url, e.seq, e.attempt_started_at as previous_start
      from ${webhookEvents} e
      where e.status = 'pending' and e.held_by is null and e.next_attempt_at <= ${now}::timestamptz
        and not exists (select 1 from ${webhookEvents} earlier where earlier.status = 'pending'
          and earlier.app_id = e.app_id and earlier.order_key = e.order_key and earlier.seq < e.seq)
      order by e.seq
      limit ${options.limit}
      for update of e skip locked
    ),
    within_bound as (
      select c.id, c.previous_start from (
        select candidates.*, row_number() over (partition by url order by seq) as place
        from candidates
      ) c
      where c.place <= ${options.perEndpoint}::int - coalesce((${busy}::jsonb ->> c.url)::int, 0)
    )
    update ${webhookEvents} w
    set held_by = ${options.holder}, attempt_started_at = ${now}::timestamptz
    from within_bound c, ${sandboxApps} a
    where w.id = c.id and a.id = w.app_id
    returning w.id, w.app_id, w.url, w.payload::text as body, w.attempt_count, w.seq, w.order_key,
      c.previous_start, a.api_token`)) as unknown as { rows: ClaimedRow[] };
  const rows = claimed.rows
    .map((row) => ({
      id: row.id,
      appId: row.app_id,
      url: row.url,
      body: row.body,
      attemptCount: Number(row.attempt_count),
      orderKey: row.order_key,
      seq: Number(row.seq),
      previousStart: row.previous_start === null ? null : new Date(row.previous_start),
      signingKey: row.api_token,
    }))
    .sort((a, b) => a.seq - b.seq);

  const interrupted = rows.filter((row) => row.previousStart !== null);
  if (interrupted.length > 0) {
    await db
      .insert(webhookAttempts)
      .values(
        interrupted.map((row) => ({
          eventId: row.id,
          attempt: row.attemptCount + 1,
          at: row.previousStart!,
          status: null,
          error: INTERRUPTED_ERROR,
          outcome: "interrupted" as const,
          latencyMs: 0,
        })),
      )
      .onConflictDoNothing();
    for (const row of interrupted) {
      row.attemptCount += 1;
      const exhausted = row.attemptCount >= MAX_ATTEMPTS;
      await db
        .update(webhookEvents)
        .set({
          attemptCount: row.attemptCount,
          ...(exhausted
            ? {
                status: "failed" as const,
                outcome: "no_response" as const,
                heldBy: null,
                attemptStartedAt: null,
              }
            : {}),
        })
        .where(eq(webhookEvents.id, row.id));
    }
  }

  return rows
    .filter((row) => row.attemptCount < MAX_ATTEMPTS)
    .map(({ previousStart: _, ...event }) => event);
}

type ClaimedRow = {
  id: string;
  app_id: string;
  url: string;
  body: string;
  attempt_count: number;
  seq: string | number;
  order_key: string;
  previous_start: string | Date | null;
  api_token: string;
};

/**
 * Says that a worker is alive until `leaseMs` from now; called at its start and every third
 * of the lease. A worker that finds its row gone (taken for dead) simply writes it again.
 */
export async function renewHolder(db: Database, holder: string, leaseMs: number): Promise<void> {
  const aliveUntil = new Date(Date.now() + leaseMs);
  await db
    .insert(webhookHolders)
    .values({ id: holder, aliveUntil })
    .onConflictDoUpdate({ target: webhookHolders.id, set: { aliveUntil } });
}

/**
 * Gives the events of dead holders (their row ran out, or is gone) back to the outbox, where
 * any worker claims them; their attempt marks stay, so the claim records the attempts they
 * may have had under way as interrupted. Answers how many came back.
 */
export async function releaseDeadHolders(db: Database): Promise<number> {
  const { rows } = (await db.execute(sql`
    with dead as (
      delete from ${webhookHolders} where alive_until < now() returning id
    )
    update ${webhookEvents} e set held_by = null
    where e.status = 'pending' and e.held_by is not null
      and (e.held_by in (select id from dead)
        or not exists (select 1 from ${webhookHolders} h where h.id = e.held_by))
    returning e.id`)) as unknown as { rows: unknown[] };
  return rows.length;
}

/**
 * Gives held events whose attempt never started back to the outbox (a stopping worker's
 * queue, or the events behind one that waits for a retry), without an attempt mark.
 */
export async function releaseEvents(db: Database, ids: readonly string[]): Promise<void> {
  if (ids.length === 0) return;
  await db
    .update(webhookEvents)
    .set({ heldBy: null, attemptStartedAt: null })
    .where(and(inArray(webhookEvents.id, [...ids]), eq(webhookEvents.status, "pending")));
}

/** A worker that stops lets go of its row; what it held was released before. */
export async function removeHolder(db: Database, holder: string): Promise<void> {
  await db.delete(webhookHolders).where(eq(webhookHolders.id, holder));
}

export type AttemptRecord = { event: HeldEvent; outcome: AttemptOutcome; at: Date };

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
 * A whole batch is one statement (the attempts inserted and their events updated from one
 * JSON list): a commit, or a round trip, per attempt would be the delivery rate's ceiling. It
 * is a prepared statement with the batch as one parameter, so neither this process nor the
 * database builds or plans it again for each batch. A refusal by the address guard is final.
 * An event that waits for a retry goes back to the outbox without a holder; a claim takes it
 * when it is due.
 */
export async function recordAttempts(db: Database, records: AttemptRecord[]) {
  if (records.length === 0) return;
  const rows = records.map(({ event, outcome, at }) => {
    const attempt = event.attemptCount + 1;
    const judged = judgeAttempt(outcome, attempt);
    return {
      id: event.id,
      attempt,
      status:
        judged.event === "pending"
          ? "pending"
          : judged.event === "delivered" || judged.event === "failed"
            ? "delivered"
            : "failed",
      outcome: judged.event,
      next_at: new Date(Date.now() + retryDelay(deliveryRetries, attempt)).toISOString(),
      at: at.toISOString(),
      http_status: outcome.status,
      error: outcome.error,
      attempt_outcome: judged.attempt,
      latency_ms: outcome.latencyMs,
      request_headers: outcome.requestHeaders,
      response_headers: outcome.responseHeaders,
      response_excerpt: outcome.responseExcerpt,
    };
  });
  // PostgreSQL commits without waiting for the disk (see withRelaxedCommit); PGlite flushes.
  await preparedQuery(db, "webhook_record_attempts", recordAttemptsSql, [
    JSON.stringify(rows),
    isEmbedded(db) ? "on" : "off",
  ]);
}

// `relaxed` sets this statement's own commit mode; joining it makes sure it runs. The header
// columns travel as text and are cast: json_to_recordset filling jsonb columns itself costs
// several times more per row. The events are found by `id = any(array)`, an index scan in any
// plan: joined to the batch alone, the cached plan hashed it against a scan of the whole table
// (113-130 scans and ~2 million rows read for a "send again" of 10,000).
const recordAttemptsSql = `
  with relaxed as materialized (select set_config('synchronous_commit', $2, true)),
  v as (
    select * from json_to_recordset($1::json) as v(id text, attempt int, status text, outcome text,
      next_at timestamptz, at timestamptz, http_status int, error text, attempt_outcome text,
      latency_ms int, request_headers text, response_headers text, response_excerpt text)
  ),
  recorded as (
    insert into webhook_attempts (event_id, attempt, at, status, error, outcome, latency_ms,
      request_headers, response_headers, response_excerpt)
    select id, attempt, at, http_status, error, attempt_outcome, latency_ms,
      request_headers::jsonb, response_headers::jsonb, response_excerpt
    from v
    on conflict do nothing
  )
  update webhook_events e set
    attempt_count = v.attempt, status = v.status, outcome = v.outcome, next_attempt_at = v.next_at,
    held_by = null, attempt_started_at = null
  from v, relaxed
  where e.id = v.id and e.id = any (array(select id from v))`;
