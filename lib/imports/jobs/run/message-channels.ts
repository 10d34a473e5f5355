import "server-only";
import { sql } from "drizzle-orm";
import type { RowLease } from "@/lib/background/lease";
import type { Database } from "@/lib/db/client";
import { preparedQuery } from "@/lib/db/raw";
import { MIGRATION_MESSAGES_MAX } from "@/lib/schemas/messages";
import { rowsOf } from "../shared/rows";
import { messagePlaceSql, sentThroughPlaceSql } from "../store/row-state";

/**
 * A messages job's channels in the database: which have messages still to send, their leases
 * (import_channel_leases), their next requests, and how far their sending has got.
 */

/** One migration request: up to 100 messages of one channel, the earliest still to send. */
export type MessageBatch = {
  channelUrl: string;
  /** The messages' rows, in sending order. */
  rowIndexes: number[];
  /** The request's body as it goes out: the planned messages, as the database wrote them. */
  body: string;
  /** Requests sent so far for its messages, the most of any (this one not counted). */
  attempts: number;
  /** 429s so far, the most of any of its messages. */
  rateLimitedTries: number;
  /** Where its last message stands in the channel's order. */
  last: MessagePosition;
};

/** A place in a channel's order of sending: (timestamp as JSON, row index). */
export type MessagePosition = { timestamp: string; rowIndex: number };

/**
 * Channels of the job with messages still to send (past their `sent_through` place), in the
 * order of their URLs; with `claimable`, only those no worker holds and none waits for a retry.
 * Found by a few index probes per channel (a loose scan of the pending messages' index), never
 * by reading every message of the job.
 */
export async function channelsWithMessages(
  db: Database,
  jobId: string,
  { claimable }: { claimable: boolean },
): Promise<string[]> {
  const now = new Date().toISOString();
  const pending = sql`m.job_id = ${jobId} and m.state = 'pending' and m.body ? 'timestamp'`;
  const free = sql`and not (coalesce(l.locked_until > ${now}::timestamptz, false)
    or coalesce(l.next_attempt_at > ${now}::timestamptz, false))`;
  const result = await db.execute(sql`
    with recursive channels(resource_key) as (
      (select m.resource_key from import_rows as m
        where ${pending} and m.resource_key is not null order by m.resource_key limit 1)
      union all
      select (select m.resource_key from import_rows as m
          where ${pending} and m.resource_key > c.resource_key order by m.resource_key limit 1)
      from channels as c where c.resource_key is not null
    )
    select c.resource_key from channels as c
    left join import_channel_leases as l on l.job_id = ${jobId} and l.resource_key = c.resource_key
    where c.resource_key is not null ${claimable ? free : sql``}
      and exists (select 1 from import_rows as m
        where ${pending} and m.resource_key = c.resource_key
          and ${sql.raw(pendingMessagePlace)} > ${sql.raw(sentThroughPlace)})`);
  return rowsOf<{ resource_key: string }>(result).map((row) => row.resource_key);
}

const pendingMessagePlace = messagePlaceSql("m");
const sentThroughPlace = sentThroughPlaceSql("l");

/**
 * Takes the lease of each channel named that no worker holds and none waits for a retry
 * (checked here again: another worker may have taken it since it was found). Returns the
 * channels taken, each with where its sending stands.
 */
export async function claimChannels(
  db: Database,
  { jobId, workerId, leaseMs }: RowLease,
  channelUrls: string[],
): Promise<Array<{ channelUrl: string; sentThrough: MessagePosition | null }>> {
  const now = new Date();
  const nowText = now.toISOString();
  const until = new Date(now.getTime() + leaseMs).toISOString();
  const result = await db.execute(sql`
    insert into import_channel_leases as l (job_id, resource_key, locked_by, locked_until)
    select ${jobId}, c.resource_key, ${workerId}, ${until}::timestamptz
    from jsonb_array_elements_text(${JSON.stringify(channelUrls)}::jsonb) as c(resource_key)
    on conflict (job_id, resource_key) do update
      set locked_by = excluded.locked_by, locked_until = excluded.locked_until, next_attempt_at = null
      where (l.locked_until is null or l.locked_until < ${nowText}::timestamptz)
        and (l.next_attempt_at is null or l.next_attempt_at <= ${nowText}::timestamptz)
    returning l.resource_key, l.sent_through_timestamp::text as timestamp, l.sent_through_row`);
  return rowsOf<{
    resource_key: string;
    timestamp: string | null;
    sent_through_row: number | null;
  }>(result).map((row) => ({
    channelUrl: row.resource_key,
    sentThrough:
      row.timestamp === null || row.sent_through_row === null
        ? null
        : { timestamp: row.timestamp, rowIndex: Number(row.sent_through_row) },
  }));
}

/** Extends this worker's leases of the channels it holds. */
export async function renewChannelLeases(
  db: Database,
  { jobId, workerId, leaseMs }: RowLease,
  channelUrls: string[],
): Promise<void> {
  await db.execute(sql`
    update import_channel_leases set locked_until = ${new Date(Date.now() + leaseMs).toISOString()}::timestamptz
    where job_id = ${jobId} and locked_by = ${workerId}
      and resource_key in (select jsonb_array_elements_text(${JSON.stringify(channelUrls)}::jsonb))`);
}

/** Lets channels go: free at once, or from the retry time of a request put back. */
export async function releaseChannels(
  db: Database,
  { jobId, workerId }: RowLease,
  channels: Array<{ channelUrl: string; retryAt: string | null }>,
): Promise<void> {
  await db.execute(sql`
    update import_channel_leases as l
      set locked_by = null, locked_until = null, next_attempt_at = v.retry_at
    from jsonb_to_recordset(${JSON.stringify(
      channels.map(({ channelUrl, retryAt }) => ({ resource_key: channelUrl, retry_at: retryAt })),
    )}::jsonb) as v(resource_key text, retry_at timestamptz)
    where l.job_id = ${jobId} and l.resource_key = v.resource_key and l.locked_by = ${workerId}`);
}

/**
 * A channel's next pending messages, up to `rows`, in the order they are sent (timestamp, then
 * row), after `after` when given: the requests of up to 100 that come next. Reads only.
 */
export async function readMessages(
  db: Database,
  jobId: string,
  channelUrl: string,
  after: MessagePosition | null,
  rows: number,
): Promise<MessageBatch[]> {
  // An index range read in sending order, planned once: a join over several channels may be
  // planned as a sort of every pending message of each.
  const result = after
    ? await preparedQuery<BatchRow>(db, "import_messages_after", readAfterSql, [
        jobId,
        channelUrl,
        after.timestamp,
        after.rowIndex,
        rows,
      ])
    : await preparedQuery<BatchRow>(db, "import_messages_first", readFirstSql, [
        jobId,
        channelUrl,
        rows,
      ]);
  return result.map((row) => {
    const rowIndexes = row.row_indexes.map(Number);
    return {
      channelUrl,
      rowIndexes,
      body: row.body,
      attempts: Number(row.attempts),
      rateLimitedTries: Number(row.rate_limited_tries),
      last: { timestamp: row.last_timestamp, rowIndex: rowIndexes.at(-1)! },
    };
  });
}

type BatchRow = {
  body: string;
  row_indexes: Array<number | string>;
  attempts: number | string;
  rate_limited_tries: number | string;
  last_timestamp: string;
};

/**
 * A channel's next messages in sending order, gathered by request (100 each): the body as it
 * goes out, the rows it carries and the counts the retry needs. One row back per request, not
 * per message: the per-row cost of reading a result was most of the read's (measured: 12 µs a
 * message against 6).
 */
function readSql(from: string, limit: string): string {
  return `with page as (
    select m.row_index, m.body, m.attempts, m.rate_limited_tries,
      (row_number() over (order by (m.body -> 'timestamp'), m.row_index) - 1) / ${MIGRATION_MESSAGES_MAX} as request
    from import_rows as m
    where m.job_id = $1::text and m.resource_key = $2::text and m.state = 'pending'
      and m.body ? 'timestamp' ${from}
    order by (m.body -> 'timestamp'), m.row_index
    limit ${limit}
  )
  -- Each planned body carries its dedup id in sorted_metaarray (importDedupMeta, prepare.ts):
  -- the migration answers nothing, so that mark tells a later read (replies, Verify) its row.
  select '{"messages":[' || string_agg(body::text, ',' order by (body -> 'timestamp'), row_index) || ']}' as body,
    array_agg(row_index order by (body -> 'timestamp'), row_index) as row_indexes,
    max(attempts) as attempts, max(rate_limited_tries) as rate_limited_tries,
    (array_agg((body -> 'timestamp')::text order by (body -> 'timestamp') desc, row_index desc))[1] as last_timestamp
  from page group by request order by request`;
}
const readFirstSql = readSql("", "$3::integer");
const readAfterSql = readSql(
  "and ((m.body -> 'timestamp'), m.row_index) > ($3::jsonb, $4::integer)",
  "$5::integer",
);

/**
 * Moves each channel's `sent_through` place (of a channel leased before) forward to the last
 * message of a request the platform took, counting the pending messages it passes as it goes.
 * Never backwards: a worker whose lease ran out may record a request after the one that took
 * over recorded a later one.
 */
export async function moveSentThrough(
  db: Database,
  jobId: string,
  places: Map<string, MessagePosition>,
): Promise<void> {
  const records = [...places].map(([channelUrl, { timestamp, rowIndex }]) => ({
    resource_key: channelUrl,
    timestamp,
    row_index: rowIndex,
  }));
  await preparedQuery(db, "import_messages_sent_through", sentThroughSql, [
    jobId,
    JSON.stringify(records),
  ]);
}

const sentThroughSql = `update import_channel_leases as l set
    sent_through_timestamp = v.timestamp::jsonb, sent_through_row = v.row_index,
    sent_messages = l.sent_messages + (select count(*) from import_rows as m
      where m.job_id = l.job_id and m.resource_key = l.resource_key and m.state = 'pending'
        and m.body ? 'timestamp'
        and ${pendingMessagePlace} > ${sentThroughPlace}
        and ${pendingMessagePlace} <= (v.timestamp::jsonb, v.row_index))
  from jsonb_to_recordset($2::jsonb) as v(resource_key text, timestamp text, row_index integer)
  where l.job_id = $1::text and l.resource_key = v.resource_key
    and (v.timestamp::jsonb, v.row_index) > ${sentThroughPlace}`;
