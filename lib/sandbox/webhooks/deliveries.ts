import { and, asc, desc, eq, gte, inArray, lt, lte, ne, sql, type SQL } from "drizzle-orm";
import type { Database } from "@/lib/db/client";
import { webhookAttempts, webhookEvents } from "@/lib/db/schema";
import { httpHeadersSchema } from "@/lib/schemas/sandbox-storage";
import {
  deliveryOutcomes,
  deliveryPageToken,
  type DeliveryCounts,
  type DeliveryFilter,
  type DeliveryRecord,
  type EndpointHealth,
  type EndpointWindow,
} from "@/lib/schemas/sandbox-events";

/** The most deliveries one "send again" for a selection creates. */
export const MAX_RESEND = 10_000;

/** The filter as SQL, so it runs in the database whatever the log's size. */
function filterWhere(appId: string, filter: DeliveryFilter): SQL | undefined {
  return and(
    eq(webhookEvents.appId, appId),
    ne(webhookEvents.status, "not_subscribed"),
    filter.category ? eq(webhookEvents.category, filter.category) : undefined,
    filter.outcome ? eq(webhookEvents.outcome, filter.outcome) : undefined,
    filter.event_id ? eq(webhookEvents.id, filter.event_id) : undefined,
    filter.search
      ? inArray(webhookEvents.orderKey, [`direct_call:${filter.search}`, `room:${filter.search}`])
      : undefined,
    filter.since !== undefined ? gte(webhookEvents.createdAt, new Date(filter.since)) : undefined,
    filter.until !== undefined ? lte(webhookEvents.createdAt, new Date(filter.until)) : undefined,
  );
}

/** A page of an application's deliveries, newest first, each with every attempt. */
export async function listDeliveries(
  db: Database,
  appId: string,
  query: DeliveryFilter & { limit: number; token?: string },
): Promise<{ deliveries: DeliveryRecord[]; next: string }> {
  const after = query.token ? deliveryPageToken.decode(query.token) : null;
  const events = await db
    .select()
    .from(webhookEvents)
    .where(
      and(filterWhere(appId, query), after !== null ? lt(webhookEvents.seq, after) : undefined),
    )
    .orderBy(desc(webhookEvents.seq))
    .limit(query.limit + 1);
  const page = events.slice(0, query.limit);
  const next = events.length > query.limit ? deliveryPageToken.encode(page.at(-1)!.seq) : "";
  if (page.length === 0) return { deliveries: [], next };
  const attempts = await db
    .select()
    .from(webhookAttempts)
    .where(
      inArray(
        webhookAttempts.eventId,
        page.map((event) => event.id),
      ),
    )
    .orderBy(asc(webhookAttempts.attempt));
  const byEvent = new Map<string, typeof attempts>();
  for (const attempt of attempts)
    byEvent.set(attempt.eventId, [...(byEvent.get(attempt.eventId) ?? []), attempt]);
  return {
    next,
    deliveries: page.map((event) => ({
      event_id: event.id,
      category: event.category,
      url: event.url,
      status: event.status,
      outcome: event.outcome,
      created_at: event.createdAt.getTime(),
      payload: event.payload,
      attempts: (byEvent.get(event.id) ?? []).map((attempt) => ({
        attempt: attempt.attempt,
        at: attempt.at.getTime(),
        status: attempt.status,
        error: attempt.error,
        outcome: attempt.outcome,
        latency_ms: attempt.latencyMs,
        request_headers: httpHeadersSchema.nullable().parse(attempt.requestHeaders),
        response_headers: httpHeadersSchema.nullable().parse(attempt.responseHeaders),
        response_excerpt: attempt.responseExcerpt,
      })),
    })),
  };
}

/** How many deliveries the filter selects, per outcome (the outcome in the filter is ignored). */
export async function countDeliveries(
  db: Database,
  appId: string,
  filter: DeliveryFilter,
): Promise<DeliveryCounts> {
  const rows = await db
    .select({ outcome: webhookEvents.outcome, count: sql<number>`count(*)::int` })
    .from(webhookEvents)
    .where(filterWhere(appId, { ...filter, outcome: undefined }))
    .groupBy(webhookEvents.outcome);
  const counts = Object.fromEntries(
    deliveryOutcomes.map((outcome) => [outcome, 0]),
  ) as DeliveryCounts;
  for (const row of rows) counts[row.outcome] = Number(row.count);
  return counts;
}

/**
 * Sends the payloads of every delivery the filter selects again, as new deliveries to `url`
 * (the endpoint configured now), oldest first: those of a category in `subscribed` (subscribed
 * now), since no other event is delivered. Answers how many were created. One statement copies
 * them inside the database: the payloads need not travel to this process and back, and the
 * worker sees the whole selection at once.
 */
export async function resendDeliveries(
  db: Database,
  appId: string,
  url: string,
  subscribed: readonly string[],
  filter: DeliveryFilter,
): Promise<{ count: number; event_ids: string[] }> {
  const selected = db
    .select({
      newId: sql<string>`gen_random_uuid()::text`.as("new_id"),
      category: webhookEvents.category,
      payload: webhookEvents.payload,
      orderKey: webhookEvents.orderKey,
      seq: webhookEvents.seq,
    })
    .from(webhookEvents)
    .where(and(filterWhere(appId, filter), inArray(webhookEvents.category, [...subscribed])))
    .orderBy(asc(webhookEvents.seq))
    .limit(MAX_RESEND)
    .as("selected");
  // An event of no call or room is its own order key (see orderKeyOf): its copy gets its own.
  const { rows } = (await db.execute(sql`
    insert into ${webhookEvents} (id, app_id, category, payload, url, order_key)
    select new_id, ${appId}, category, payload, ${url},
      case when order_key like 'direct_call:%' or order_key like 'room:%' then order_key else new_id end
    from ${selected}
    order by seq
    returning id, seq`)) as unknown as { rows: Array<{ id: string; seq: string | number }> };
  const ids = rows.sort((a, b) => Number(a.seq) - Number(b.seq)).map((row) => row.id);
  return { count: ids.length, event_ids: ids.slice(0, 100) };
}

const SLICE_MS = 5 * 60_000;

/**
 * The endpoint's health, from the attempts made to it: volume, share answered 2xx and latency
 * percentiles over the last hour and day, per 5-minute slice, and the last failure.
 */
export async function endpointHealth(
  db: Database,
  appId: string,
  url: string,
  now = Date.now(),
): Promise<EndpointHealth> {
  const dayAgo = new Date(now - 24 * 3600_000);
  const hourAgo = new Date(now - 3600_000);
  const scope = and(
    eq(webhookEvents.appId, appId),
    eq(webhookEvents.url, url),
    gte(webhookAttempts.at, dayAgo),
    ne(webhookAttempts.outcome, "interrupted"),
  );
  const stats = {
    volume: sql<number>`count(*)::int`,
    succeeded: sql<number>`count(*) filter (where ${webhookAttempts.outcome} = 'delivered')::int`,
    p50: sql<
      number | null
    >`percentile_cont(0.5) within group (order by ${webhookAttempts.latencyMs})`,
    p95: sql<
      number | null
    >`percentile_cont(0.95) within group (order by ${webhookAttempts.latencyMs})`,
  };
  const window = (since: Date) =>
    db
      .select(stats)
      .from(webhookAttempts)
      .innerJoin(webhookEvents, eq(webhookEvents.id, webhookAttempts.eventId))
      .where(and(scope, gte(webhookAttempts.at, since)));
  // A literal, not a parameter: GROUP BY must see the same expression as the SELECT list.
  const slice = sql<number>`(floor(extract(epoch from ${webhookAttempts.at}) * 1000 / ${sql.raw(String(SLICE_MS))}) * ${sql.raw(String(SLICE_MS))})::bigint`;
  const [[hour], [day], series, [failure]] = await Promise.all([
    window(hourAgo),
    window(dayAgo),
    db
      .select({ at: slice, ...stats })
      .from(webhookAttempts)
      .innerJoin(webhookEvents, eq(webhookEvents.id, webhookAttempts.eventId))
      .where(scope)
      .groupBy(slice)
      .orderBy(slice),
    db
      .select({
        eventId: webhookEvents.id,
        category: webhookEvents.category,
        at: webhookAttempts.at,
        status: webhookAttempts.status,
        error: webhookAttempts.error,
      })
      .from(webhookAttempts)
      .innerJoin(webhookEvents, eq(webhookEvents.id, webhookAttempts.eventId))
      .where(
        and(
          eq(webhookEvents.appId, appId),
          eq(webhookEvents.url, url),
          ne(webhookAttempts.outcome, "delivered"),
        ),
      )
      .orderBy(desc(webhookAttempts.at))
      .limit(1),
  ]);
  const toWindow = (row: typeof hour): EndpointWindow => {
    const volume = Number(row?.volume ?? 0);
    return {
      volume,
      success_rate: volume > 0 ? Number(row!.succeeded) / volume : null,
      p50_ms: row?.p50 == null ? null : Math.round(Number(row.p50)),
      p95_ms: row?.p95 == null ? null : Math.round(Number(row.p95)),
    };
  };
  return {
    url,
    hour: toWindow(hour),
    day: toWindow(day),
    series: series.map((row) => ({
      at: Number(row.at),
      volume: Number(row.volume),
      succeeded: Number(row.succeeded),
      p50_ms: row.p50 == null ? null : Math.round(Number(row.p50)),
      p95_ms: row.p95 == null ? null : Math.round(Number(row.p95)),
    })),
    last_failure: failure
      ? {
          event_id: failure.eventId,
          at: failure.at.getTime(),
          category: failure.category,
          status: failure.status,
          reason: failure.error ?? `Answered HTTP ${failure.status}.`,
        }
      : null,
  };
}

/**
 * Removes finished deliveries accepted before `cutoff`, and their attempts (no foreign key
 * removes them). Pending ones stay: they are still to be delivered.
 */
export async function purgeDeliveries(db: Database, cutoff: Date): Promise<number> {
  const { rows } = (await db.execute(sql`
    with removed as (
      delete from ${webhookEvents}
      where ${webhookEvents.createdAt} < ${cutoff.toISOString()}::timestamptz
        and ${webhookEvents.status} <> 'pending'
      returning ${webhookEvents.id}
    ),
    attempts as (
      delete from ${webhookAttempts} where ${webhookAttempts.eventId} in (select id from removed)
    )
    select count(*)::int as count from removed`)) as unknown as { rows: Array<{ count: number }> };
  return Number(rows[0]?.count ?? 0);
}

/** Removes every delivery of an application and their attempts (before the application goes). */
export async function deleteApplicationDeliveries(db: Database, appId: string): Promise<void> {
  await db.execute(sql`
    with removed as (
      delete from ${webhookEvents} where ${webhookEvents.appId} = ${appId}
      returning ${webhookEvents.id}
    )
    delete from ${webhookAttempts} where ${webhookAttempts.eventId} in (select id from removed)`);
}
