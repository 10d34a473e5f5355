import { randomUUID } from "node:crypto";
import { eq, sql } from "drizzle-orm";
import type { Database } from "@/lib/db/client";
import {
  sandboxApps,
  webhookAttempts,
  webhookEvents,
  type WebhookAttemptOutcome,
  type WebhookOutcome,
  type WebhookSettings,
} from "@/lib/db/schema";
import { liveHolderKeys } from "@/lib/background/holder";
import { isEmbedded, preparedQuery } from "@/lib/db/raw";
import { withRelaxedCommit } from "@/lib/db/relaxed-commit";
import { deliveryRetries } from "@/lib/delivery/delivery-retries";
import type { AttemptOutcome } from "@/lib/delivery/post-json";
import { retryDelay } from "@/lib/retry";
import type { WebhookPayload } from "@/lib/schemas/webhook-payloads";

/** Attempts per event and the pauses between them (interface section 6.1 and 8). */
export const MAX_ATTEMPTS = deliveryRetries.attempts;

export const INTERRUPTED_ERROR =
  "Interrupted: the server stopped while this attempt was under way.";

export type WebhookEvent = typeof webhookEvents.$inferSelect;
export type WebhookAttempt = typeof webhookAttempts.$inferSelect;
/** An event claimed for an attempt: its body as stored, and the key the body is signed with. */
export type ClaimedEvent = Pick<WebhookEvent, "id" | "appId" | "url" | "attemptCount"> & {
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
    .map((result) => newEventRow(appId, settings.url, result.payload, result.event_id));
  if (rows.length > 0) await db.insert(webhookEvents).values(rows);
  return results.map(({ event_id, delivered }) => ({ event_id, delivered }));
}

function newEventRow(
  appId: string,
  url: string,
  payload: WebhookPayload,
  id: string = randomUUID(),
) {
  return {
    id,
    appId,
    category: String(payload.category),
    payload,
    url,
    orderKey: orderKeyOf(payload as unknown as Record<string, unknown>, id),
  };
}

type ClaimOptions = {
  limit: number;
  /** The claiming worker's holder key (lib/background/holder.ts). */
  holder: number;
  /** The bound on attempts in flight to one endpoint URL. */
  perEndpoint: number;
  /** Attempts under way now, per endpoint URL. */
  inFlight: ReadonlyMap<string, number>;
};

/**
 * Claims due events for attempts that start at once, in one statement (a claim per batch is
 * on the delivery rate's path). An event waits while an older event of the same call or room
 * is still pending, so those arrive in order; everything else goes out side by side.
 * `inFlight` says how many attempts each endpoint URL has under way and `perEndpoint` bounds
 * them: candidates over an endpoint's bound are left alone in the same statement, not claimed
 * and handed back. SKIP LOCKED lets several processes share the outbox on PostgreSQL. A claim
 * holds for as long as its holder lives, however long it stalls; an event whose holder is gone
 * (its process died) is claimed again at once. The commit does not wait for the disk: a claim
 * lost with a crash of PostgreSQL only means the event is sent again (delivery is at least once).
 *
 * A claimed event whose previous holder started an attempt and died before recording it first
 * gets that attempt recorded as interrupted: it counts as one of the three.
 */
export async function claimDueEvents(db: Database, options: ClaimOptions): Promise<ClaimedEvent[]> {
  if (options.limit <= 0) return [];
  return withRelaxedCommit(db, (tx) => claimIn(tx, options));
}

async function claimIn(db: Database, options: ClaimOptions): Promise<ClaimedEvent[]> {
  const now = new Date().toISOString();
  const busy = JSON.stringify(Object.fromEntries(options.inFlight));
  // Walk the pending events in order and stop at the limit. Statistics taken while the outbox
  // was empty (a fresh table, or an idle one before a burst) make the planner prefer a bitmap
  // scan of every pending event, each checked for an older one of its key and then sorted:
  // work per claim that grows with the backlog.
  await db.execute(sql`set local enable_bitmapscan = off`);
  // Due by the database's clock: an event stored a moment ago got its next_attempt_at from
  // now() there, in microseconds, and Node's millisecond `now` may fall just before it (the
  // event then waited for the next poll).
  // The payload comes back as the text it was stored as (`json` keeps it verbatim): that is
  // the body to sign and send, with no parse and no serialisation in between.
  const claimed = (await db.execute(sql`
    with candidates as (
      select e.id, e.url, e.seq, e.attempt_started_at as previous_start
      from ${webhookEvents} e
      where e.status = 'pending' and e.next_attempt_at <= statement_timestamp()
        and (e.locked_by is null
          or (e.locked_by <> ${options.holder}::bigint and e.locked_by not in (${liveHolderKeys})))
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
    set locked_by = ${options.holder}::bigint, attempt_started_at = ${now}::timestamptz
    from within_bound c, ${sandboxApps} a
    where w.id = c.id and a.id = w.app_id
    returning w.id, w.app_id, w.url, w.payload::text as body, w.attempt_count, w.seq,
      c.previous_start, a.api_token`)) as unknown as { rows: ClaimedRow[] };
  const rows = claimed.rows
    .map((row) => ({
      id: row.id,
      appId: row.app_id,
      url: row.url,
      body: row.body,
      attemptCount: Number(row.attempt_count),
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
                lockedBy: null,
                attemptStartedAt: null,
              }
            : {}),
        })
        .where(eq(webhookEvents.id, row.id));
    }
  }

  return rows
    .filter((row) => row.attemptCount < MAX_ATTEMPTS)
    .map(({ id, appId, url, body, attemptCount, signingKey }) => ({
      id,
      appId,
      url,
      body,
      attemptCount,
      signingKey,
    }));
}

type ClaimedRow = {
  id: string;
  app_id: string;
  url: string;
  body: string;
  attempt_count: number;
  seq: string | number;
  previous_start: string | Date | null;
  api_token: string;
};

export type AttemptRecord = { event: ClaimedEvent; outcome: AttemptOutcome; at: Date };

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
 *
 * An event moves on only while `holder` still holds it for this attempt. Should another worker
 * have taken it meanwhile (this one's session to the database was lost, so it looked dead), the
 * attempt is still written, in place of the "interrupted" that worker recorded for it: the log
 * says what happened, and the event's state stays that of its newer attempts.
 */
export async function recordAttempts(db: Database, holder: number, records: AttemptRecord[]) {
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
    holder,
  ]);
}

// `relaxed` sets this statement's own commit mode; joining it makes sure it runs. The header
// columns travel as text and are cast: json_to_recordset filling jsonb columns itself costs
// several times more per row. The events are found by `id = any(array)`, an index scan in any
// plan: joined to the batch alone, the cached plan could hash it against a scan of the whole
// table (measured on a fresh schema: 113-130 scans and ~2 million rows read for a "send again"
// of 10,000). An attempt is inserted only for an event that still exists: there is no foreign
// key, and an event deleted meanwhile (its application removed) must not leave one behind.
const recordAttemptsSql = `
  with relaxed as materialized (select set_config('synchronous_commit', $2, true)),
  v as (
    select * from json_to_recordset($1::json) as v(id text, attempt int, status text, outcome text,
      next_at timestamptz, at timestamptz, http_status int, error text, attempt_outcome text,
      latency_ms int, request_headers text, response_headers text, response_excerpt text)
  ),
  updated as (
    update webhook_events e set
      attempt_count = v.attempt, status = v.status, outcome = v.outcome, next_attempt_at = v.next_at,
      locked_by = null, attempt_started_at = null
    from v, relaxed
    where e.id = v.id and e.id = any (array(select id from v))
      and e.locked_by = $3::bigint and e.attempt_count = v.attempt - 1
    returning e.id
  )
  insert into webhook_attempts (event_id, attempt, at, status, error, outcome, latency_ms,
    request_headers, response_headers, response_excerpt)
  select v.id, attempt, at, http_status, error, attempt_outcome, latency_ms,
    request_headers::jsonb, response_headers::jsonb, response_excerpt
  from v left join updated on updated.id = v.id
  where updated.id is not null or exists (select 1 from webhook_events e where e.id = v.id)
  on conflict (event_id, attempt) do update set at = excluded.at, status = excluded.status,
    error = excluded.error, outcome = excluded.outcome, latency_ms = excluded.latency_ms,
    request_headers = excluded.request_headers, response_headers = excluded.response_headers,
    response_excerpt = excluded.response_excerpt
  where webhook_attempts.outcome = 'interrupted'`;
