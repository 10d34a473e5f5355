import "server-only";
import { sql } from "drizzle-orm";
import type { Database } from "@/lib/db/client";
import { MIGRATION_MESSAGES_MAX } from "@/lib/schemas/messages";
import { isPlatformError, type PlatformClient } from "@/lib/platform";
import { keepRenewed, type RowLease } from "@/lib/background/lease";
import type { Pacer } from "./pacer";
import { gaveUpMessage, rowRetry, type RowRetryLimits } from "./row-retry";
import { rowsOf } from "../shared/rows";
import { applyRowUpdates, type RowUpdate } from "../store/row-updates";
import { preparedQuery } from "@/lib/db/raw";
import { messagePlaceSql, sentThroughPlaceSql } from "../store/row-state";
import { jobStatus, type ImportJob } from "../store/jobs";

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

export type MessageWorkOptions = {
  db: Database;
  client: PlatformClient;
  job: ImportJob;
  /** The pacer of the platform's `migration` rate-limit class. */
  pacer: Pacer;
  workerId: string;
  leaseMs: number;
  /** Channels sent to at once. */
  concurrency: number;
  limits: RowRetryLimits;
  /** False once the worker is stopping. */
  running: () => boolean;
  log: (line: string) => void;
};

const STATUS_CHECK_MS = 1000;
/** A channel's messages read by one statement: the next few requests' worth. */
const READ_BATCHES = 10;
const READ_ROWS = READ_BATCHES * MIGRATION_MESSAGES_MAX;
/** New channels claimed by one statement. */
const CLAIM_CHANNELS = 4;
/** Outcomes are written together off the send path: a statement per this many rows or this long. */
const FLUSH_ROWS = 1000;
const FLUSH_MS = 200;
/** Lanes with no channel look again after this, doubling up to IDLE_MAX_MS. */
const IDLE_MS = 50;
const IDLE_MAX_MS = 1000;

/** How one request ended: created, or rows to write (a retry or a final failure). */
type SendOutcome =
  { created: true } | { created: false; updates: RowUpdate[]; retryAt: string | null };

/**
 * Works a messages job until nothing is claimable now or it stops running. Each lane holds
 * one channel (a lease in import_channel_leases) and sends its earliest messages, so a
 * channel's history goes in timestamp order and never two of its requests at once, while many
 * channels go in parallel. A lane reads its channel's messages several requests at a time,
 * and the next ones while the last is in flight. What the platform took moves the channel's
 * `sent_through` place (`../store/row-state.ts`), written in groups beside the sends; a message's row
 * is written only when its request is put back or fails. A request whose answer was lost (or
 * whose outcome was not written before a crash) is sent again: the dedup ids make the platform
 * store its messages once.
 */
export async function workMessageJob(options: MessageWorkOptions): Promise<boolean> {
  const { db, client, job, pacer, workerId, leaseMs } = options;
  let active = true;
  let worked = false;
  /** Channels claimed here, not yet taken by a lane: each its first requests in order. */
  const queue: MessageBatch[][] = [];
  /** Channels held here (queued, in flight or being released): never claimed twice. */
  const busy = new Set<string>();
  /** Channels found claimable and not yet tried. */
  let candidates: string[] = [];
  let refill: Promise<void> | null = null;
  let idleMs = 0;
  let lastLook = 0;
  let wake: (() => void) | null = null;
  const lease = { jobId: job.id, workerId, leaseMs };
  const recorder = outcomeRecorder(db, lease, options.log);
  const keepGoing = () => active && options.running();

  const statusTimer = setInterval(() => {
    void jobStatus(db, job.id)
      .then((status) => {
        if (status !== "running") active = false;
      })
      .catch(() => {});
  }, STATUS_CHECK_MS);
  const stopRenewing = keepRenewed(
    async () => {
      if (busy.size > 0) await renewChannelLeases(db, lease, [...busy]);
    },
    leaseMs,
    options.log,
  );

  /**
   * Claims channels for the lanes that have none, from those found claimable. Looking for
   * claimable channels reads the job's channels: while it finds none (the other lanes hold
   * the last ones), the lanes wait together for one look per interval, doubling up to a second.
   */
  async function refillQueue() {
    if (candidates.length === 0) {
      const wait = lastLook + idleMs - performance.now();
      // A lane letting go of its channel ends the wait: with none left in flight, there may be
      // nothing more to do here.
      if (wait > 0 && busy.size > 0) {
        await new Promise<void>((resolve) => {
          const timer = setTimeout(done, wait);
          function done() {
            clearTimeout(timer);
            resolve();
          }
          wake = done;
        });
        wake = null;
      }
      if (!keepGoing()) return;
      candidates = (await channelsWithMessages(db, job.id, { claimable: true })).filter(
        (url) => !busy.has(url),
      );
      lastLook = performance.now();
      idleMs = candidates.length === 0 ? Math.min(IDLE_MAX_MS, Math.max(IDLE_MS, idleMs * 2)) : 0;
      // Nothing claimable and nothing in flight: this job has no work here for now.
      if (candidates.length === 0 && busy.size === 0) active = false;
    }
    // A few channels per statement, so the first lanes start while the others' are claimed.
    const wanted = Math.min(CLAIM_CHANNELS, Math.max(1, options.concurrency - busy.size));
    const tried = candidates.splice(0, wanted);
    if (tried.length === 0) return;
    const claimed = await claimChannels(db, lease, tried);
    for (const { channelUrl } of claimed) busy.add(channelUrl);
    const reads = await Promise.all(
      claimed.map(({ channelUrl, sentThrough }) =>
        readMessages(db, job.id, channelUrl, sentThrough, READ_ROWS),
      ),
    );
    for (const [n, { channelUrl }] of claimed.entries()) {
      const batches = reads[n]!;
      if (batches.length > 0) queue.push(batches);
      // Its messages went out since it was found claimable.
      else void recorder.release(channelUrl, null).finally(() => letGo(channelUrl));
    }
  }

  function letGo(channelUrl: string) {
    busy.delete(channelUrl);
    wake?.();
  }

  async function nextChannel(): Promise<MessageBatch[] | undefined> {
    while (keepGoing()) {
      const claimed = queue.shift();
      if (claimed) return claimed;
      refill ??= refillQueue().finally(() => {
        refill = null;
      });
      await refill;
    }
    return undefined;
  }

  /** A lane keeps its channel while it has messages to send. */
  async function lane() {
    try {
      for (let claimed = await nextChannel(); claimed; claimed = await nextChannel()) {
        worked = true;
        const channelUrl = claimed[0]!.channelUrl;
        let retryAt: string | null = null;
        try {
          retryAt = await sendChannel(claimed);
        } finally {
          // The lease goes once the channel's outcomes are written: another lane finding the
          // channel free then reads only what is still to send.
          await recorder.release(channelUrl, retryAt).finally(() => letGo(channelUrl));
        }
      }
    } catch (error) {
      // One lane's failure stops the others; the job is picked up again by the next tick.
      active = false;
      throw error;
    }
  }

  /**
   * Sends a channel's requests one after another, reading its next ones while the last is in
   * flight. A request put back for a retry holds the rest of the channel until it is due:
   * returns when that is, or null.
   */
  async function sendChannel(first: MessageBatch[]): Promise<string | null> {
    const channelUrl = first[0]!.channelUrl;
    let batches = [...first];
    let full = rowCount(first) === READ_ROWS;
    let ahead: Promise<MessageBatch[]> | null = null;
    while (batches.length > 0) {
      const batch = batches.shift()!;
      if (batches.length === 0 && full && keepGoing()) {
        const after = batch.last;
        ahead = readMessages(db, job.id, channelUrl, after, READ_ROWS);
      }
      const outcome = await send(batch);
      if (outcome.created) recorder.created(channelUrl, batch.last, batch.rowIndexes.length);
      else recorder.update(outcome.updates);
      if (!outcome.created) {
        await ahead?.catch(() => {});
        return outcome.retryAt;
      }
      if (!keepGoing()) break;
      if (batches.length === 0 && ahead) {
        batches = await ahead;
        ahead = null;
        full = rowCount(batches) === READ_ROWS;
      }
    }
    await ahead?.catch(() => {});
    return null;
  }

  async function send(batch: MessageBatch): Promise<SendOutcome> {
    const tries = {
      // This request counts as a try of each of its messages.
      attempt: batch.attempts + 1,
      rateLimitedTries: batch.rateLimitedTries,
    };
    // The row numbers of the file, as everywhere else: a spreadsheet's, header included.
    const numbers = batch.rowIndexes.map((rowIndex) => rowIndex + job.firstRow);
    const each = (
      update: Omit<RowUpdate, "rowIndex">,
      retryAt: string | null = null,
    ): SendOutcome => ({
      created: false,
      retryAt,
      updates: batch.rowIndexes.map((rowIndex) => ({
        rowIndex,
        ...update,
        attemptsDelta: 1 + (update.attemptsDelta ?? 0),
      })),
    });
    try {
      await pacer.acquire();
      await client.migration.migrateMessages(batch.channelUrl, batch.body);
      return { created: true };
    } catch (error) {
      const reason = error instanceof Error ? error.message : String(error);
      const code = isPlatformError(error) ? error.code : null;
      const carried = `the request of ${batch.rowIndexes.length} messages to ${batch.channelUrl} (rows ${rowList(numbers)})`;
      const next = rowRetry(options.limits, tries, error);
      if (isPlatformError(error) && next.retry) {
        const retryAt = new Date(Date.now() + next.delayMs).toISOString();
        return each(
          {
            resultCode: code,
            resultMessage: `Will try again: ${reason}`,
            nextAttemptAt: retryAt,
            ...next.counts,
          },
          retryAt,
        );
      }
      options.log(`rows ${rowList(numbers)} to ${batch.channelUrl} failed: ${reason}`);
      return each({
        state: "failed",
        resultCode: code,
        resultMessage:
          next.retry || next.reason === "permanent"
            ? `Refused with ${carried}: ${reason}`
            : gaveUpMessage(next, reason, carried),
        finished: true,
        ...next.counts,
      });
    }
  }

  const lanes = await Promise.allSettled(Array.from({ length: options.concurrency }, lane));
  clearInterval(statusTimer);
  stopRenewing();
  // Claimed and never taken by a lane: released at once, not when the lease runs out.
  await Promise.all(
    queue.splice(0).map((batches) => recorder.release(batches[0]!.channelUrl, null)),
  );
  await recorder.close();
  const failed = lanes.find((result) => result.status === "rejected");
  if (failed) throw failed.reason;
  return worked;
}

function rowCount(batches: MessageBatch[]): number {
  return batches.reduce((sum, batch) => sum + batch.rowIndexes.length, 0);
}

/**
 * Collects outcomes and writes them in groups, one write at a time in the order given: each
 * channel's new `sent_through` place in one statement, the rows put back or failed through
 * `applyRowUpdates`, then the channels let go. Only messages still pending are written: one
 * another worker sent (after this one's lease ran out) keeps its outcome. A failed write is
 * logged: its messages stay pending and are sent again, which the dedup ids make harmless.
 */
function outcomeRecorder(db: Database, lease: RowLease, log: (line: string) => void) {
  /** Per channel, the last message of its last request the platform took. */
  let created = new Map<string, MessagePosition>();
  let createdRows = 0;
  let updates: RowUpdate[] = [];
  let releases: Array<{ channelUrl: string; retryAt: string | null }> = [];
  let writing: Promise<void> = Promise.resolve();
  let timer: ReturnType<typeof setTimeout> | null = null;

  async function write(
    sent: Map<string, MessagePosition>,
    others: RowUpdate[],
    letGo: typeof releases,
  ) {
    if (sent.size > 0) await moveSentThrough(db, lease.jobId, sent);
    await applyRowUpdates(db, lease.jobId, others, { pendingOnly: true });
    if (letGo.length > 0) await releaseChannels(db, lease, letGo);
  }

  function flush(): Promise<void> {
    if (timer) clearTimeout(timer);
    timer = null;
    const sent = created;
    const others = updates;
    const letGo = releases;
    created = new Map();
    createdRows = 0;
    updates = [];
    releases = [];
    if (sent.size === 0 && others.length === 0 && letGo.length === 0) return writing;
    writing = writing
      .then(() => write(sent, others, letGo))
      .catch((error: unknown) => log(`recording outcomes failed: ${String(error)}`));
    return writing;
  }

  function added() {
    if (createdRows + updates.length >= FLUSH_ROWS) void flush();
    else timer ??= setTimeout(() => void flush(), FLUSH_MS);
  }

  return {
    /** The platform took a channel's request, whose last message is at `last`. */
    created(channelUrl: string, last: MessagePosition, messages: number) {
      created.set(channelUrl, last);
      createdRows += messages;
      added();
    },
    update(rows: RowUpdate[]) {
      if (rows.length === 0) return;
      updates.push(...rows);
      added();
    },
    /** Writes what is waiting and lets the channel go (to be sent again from `retryAt`). */
    release(channelUrl: string, retryAt: string | null): Promise<void> {
      releases.push({ channelUrl, retryAt });
      return flush();
    },
    close: flush,
  };
}

/** "3, 4, 5, 9", shortened past 10. */
function rowList(numbers: number[]): string {
  const shown = numbers.slice(0, 10).join(", ");
  return numbers.length > 10 ? `${shown} and ${numbers.length - 10} more` : shown;
}

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
async function renewChannelLeases(
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
async function releaseChannels(
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
