import "server-only";
import { sql } from "drizzle-orm";
import type { Database } from "@/lib/db/client";
import { MIGRATION_MESSAGES_MAX } from "@/lib/schemas/messages";
import { isPlatformError, type PlatformClient } from "@/lib/platform";
import type { MigratedMessage } from "@/lib/platform/types";
import { keepRenewed, renewRowLeases } from "@/lib/background/lease";
import type { Pacer } from "./pacer";
import { gaveUpMessage, rowRetry, type RowRetryLimits } from "./row-retry";
import { chunk, rowsOf } from "./rows";
import { applyRowUpdates, type RowUpdate } from "./row-updates";
import { jobStatus, type ImportJob } from "./store";

/** One migration request: up to 100 messages of one channel, the earliest still to send. */
export type MessageBatch = {
  channelUrl: string;
  rows: Array<{
    rowIndex: number;
    body: Record<string, unknown>;
    attempts: number;
    rateLimitedTries: number;
  }>;
};

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
/**
 * Requests of one channel claimed by one statement. The claim sorts the channel's pending
 * messages by timestamp; taking several requests' worth pays that once for all of them.
 */
const CLAIM_BATCHES = 5;
const CLAIM_ROWS = CLAIM_BATCHES * MIGRATION_MESSAGES_MAX;
/** New channels claimed by one statement. */
const CLAIM_CHANNELS = 4;
/** Outcomes are written together off the send path: a statement per this many rows or this long. */
const FLUSH_ROWS = 1000;
const FLUSH_MS = 200;
/** Lanes with no channel look again after this, doubling up to IDLE_MAX_MS. */
const IDLE_MS = 50;
const IDLE_MAX_MS = 1000;

/** How one request ended: created, or rows to write (a retry or a final failure). */
type SendOutcome = { created: true } | { created: false; updates: RowUpdate[] };

/**
 * Works a messages job until nothing is claimable now or it stops running. Each lane sends
 * one channel's earliest messages at a time, so a channel's history goes in timestamp order
 * and never two of its requests at once, while many channels go in parallel. A lane claims
 * its channel's messages several requests at a time, and its next ones while the last is in
 * flight; outcomes are written in groups beside the sends. A request whose answer was lost
 * (or whose outcome was not written before a crash) is sent again: the dedup ids make the
 * platform store its messages once.
 */
export async function workMessageJob(options: MessageWorkOptions): Promise<boolean> {
  const { db, client, job, pacer, workerId, leaseMs } = options;
  let active = true;
  let worked = false;
  /** Channels claimed here, not yet taken by a lane: each its requests in order. */
  const queue: MessageBatch[][] = [];
  /** Channels queued or in flight here: never claimed twice. */
  const busy = new Set<string>();
  /** Channels found claimable and not yet tried. */
  let candidates: string[] = [];
  let refill: Promise<void> | null = null;
  let idleMs = 0;
  let lastLook = 0;
  let wake: (() => void) | null = null;
  const recorder = outcomeRecorder(db, job.id, workerId, options.log);
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
      // Only the claims of the channels in flight here, and only those past a third of their
      // lease: most are sent and written within a second.
      if (busy.size > 0)
        await renewRowLeases(db, { jobId: job.id, workerId, leaseMs }, { channels: [...busy] });
    },
    leaseMs,
    options.log,
  );

  /**
   * Claims channels for the lanes that have none, from those found claimable. Looking for
   * claimable channels reads the whole job: while it finds none (the other lanes hold the
   * last ones), the lanes wait together for one look per interval, doubling up to a second.
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
      candidates = (await claimableChannels(db, job.id)).filter((url) => !busy.has(url));
      lastLook = performance.now();
      idleMs = candidates.length === 0 ? Math.min(IDLE_MAX_MS, Math.max(IDLE_MS, idleMs * 2)) : 0;
      // Nothing claimable and nothing in flight: this job has no work here for now.
      if (candidates.length === 0 && busy.size === 0) active = false;
    }
    // A few channels per statement, so the first lanes start while the others' are claimed.
    const wanted = Math.min(CLAIM_CHANNELS, Math.max(1, options.concurrency - busy.size));
    const tried = candidates.splice(0, wanted);
    if (tried.length === 0) return;
    const claimed = await claimChannels(db, job.id, {
      workerId,
      leaseMs,
      channelUrls: tried,
      rows: CLAIM_ROWS,
      held: false,
    });
    for (const batches of claimed) busy.add(batches[0]!.channelUrl);
    queue.push(...claimed);
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
        try {
          await sendChannel(claimed);
        } finally {
          busy.delete(claimed[0]!.channelUrl);
          wake?.();
        }
      }
    } catch (error) {
      // One lane's failure stops the others; the job is picked up again by the next tick.
      active = false;
      throw error;
    }
  }

  /**
   * Sends a channel's requests one after another, claiming its next ones while the last is
   * in flight. A request put back for a retry holds the rest of the channel until it is due.
   */
  async function sendChannel(first: MessageBatch[]) {
    const channelUrl = first[0]!.channelUrl;
    let batches = [...first];
    let full = rowCount(first) === CLAIM_ROWS;
    let ahead: Promise<MessageBatch[]> | null = null;
    try {
      while (batches.length > 0) {
        const batch = batches.shift()!;
        if (batches.length === 0 && full && keepGoing()) {
          ahead = claimChannels(db, job.id, {
            workerId,
            leaseMs,
            channelUrls: [channelUrl],
            rows: CLAIM_ROWS,
            held: true,
          }).then((claimed) => claimed[0] ?? []);
        }
        const outcome = await send(batch);
        if (outcome.created) recorder.created(batch.rows.map((row) => row.rowIndex));
        else recorder.update(outcome.updates);
        if (!outcome.created || !keepGoing()) break;
        if (batches.length === 0 && ahead) {
          batches = await ahead;
          ahead = null;
          full = rowCount(batches) === CLAIM_ROWS;
        }
      }
    } finally {
      // Claimed but not sent: back at once, not when the lease runs out.
      const unsent = [...batches, ...(ahead ? await ahead.catch(() => []) : [])];
      recorder.update(unclaim(unsent));
    }
  }

  async function send(batch: MessageBatch): Promise<SendOutcome> {
    const tries = {
      attempt: Math.max(...batch.rows.map((row) => row.attempts)),
      rateLimitedTries: Math.max(...batch.rows.map((row) => row.rateLimitedTries)),
    };
    // The row numbers of the file, as everywhere else: a spreadsheet's, header included.
    const numbers = batch.rows.map((row) => row.rowIndex + job.firstRow);
    const each = (update: Omit<RowUpdate, "rowIndex">): SendOutcome => ({
      created: false,
      updates: batch.rows.map((row) => ({ rowIndex: row.rowIndex, release: true, ...update })),
    });
    try {
      await pacer.acquire();
      await client.migration.migrateMessages(batch.channelUrl, {
        messages: batch.rows.map((row) => row.body as MigratedMessage),
      });
      return { created: true };
    } catch (error) {
      const reason = error instanceof Error ? error.message : String(error);
      const code = isPlatformError(error) ? error.code : null;
      const carried = `the request of ${batch.rows.length} messages to ${batch.channelUrl} (rows ${rowList(numbers)})`;
      const next = rowRetry(options.limits, tries, error);
      if (isPlatformError(error) && next.retry) {
        return each({
          resultCode: code,
          resultMessage: `Will try again: ${reason}`,
          nextAttemptAt: new Date(Date.now() + next.delayMs).toISOString(),
          ...next.counts,
        });
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
  recorder.update(unclaim(queue.splice(0).flat()));
  await recorder.close();
  const failed = lanes.find((result) => result.status === "rejected");
  if (failed) throw failed.reason;
  return worked;
}

function rowCount(batches: MessageBatch[]): number {
  return batches.reduce((sum, batch) => sum + batch.rows.length, 0);
}

/** Rows claimed and never sent: released, and the attempt their claim counted taken back. */
function unclaim(batches: MessageBatch[]): RowUpdate[] {
  return batches.flatMap((batch) =>
    batch.rows.map((row) => ({ rowIndex: row.rowIndex, release: true, attemptsDelta: -1 })),
  );
}

/**
 * Collects outcomes and writes them in groups, one write at a time in the order given: the
 * created rows in one plain statement, anything else through `applyRowUpdates`. Only rows
 * still claimed by this worker are written. A failed write is logged: its rows stay pending
 * and are sent again once their lease runs out, which the dedup ids make harmless.
 */
function outcomeRecorder(
  db: Database,
  jobId: string,
  workerId: string,
  log: (line: string) => void,
) {
  let created: number[] = [];
  let updates: RowUpdate[] = [];
  let writing: Promise<void> = Promise.resolve();
  let timer: ReturnType<typeof setTimeout> | null = null;

  async function write(rows: number[], others: RowUpdate[]) {
    if (rows.length > 0) {
      await db.execute(sql`
        update import_rows set state = 'created', result_code = null, result_message = null,
          finished_at = now(), locked_until = null, locked_by = null
        where job_id = ${jobId} and locked_by = ${workerId}
          and row_index = any(${`{${rows.join(",")}}`}::integer[])`);
    }
    await applyRowUpdates(db, jobId, others, workerId);
  }

  function flush(): Promise<void> {
    if (timer) clearTimeout(timer);
    timer = null;
    const rows = created;
    const others = updates;
    created = [];
    updates = [];
    if (rows.length === 0 && others.length === 0) return writing;
    writing = writing
      .then(() => write(rows, others))
      .catch((error: unknown) => log(`recording outcomes failed: ${String(error)}`));
    return writing;
  }

  function added() {
    if (created.length + updates.length >= FLUSH_ROWS) void flush();
    else timer ??= setTimeout(() => void flush(), FLUSH_MS);
  }

  return {
    created(rowIndexes: number[]) {
      created.push(...rowIndexes);
      added();
    },
    update(rows: RowUpdate[]) {
      if (rows.length === 0) return;
      updates.push(...rows);
      added();
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
 * Channels of the job with messages to send that no worker holds (none of their messages
 * claimed) and none waits for a retry, the earliest in the file first.
 */
export async function claimableChannels(db: Database, jobId: string): Promise<string[]> {
  const now = new Date().toISOString();
  const result = await db.execute(sql`
    select resource_key from import_rows
    where job_id = ${jobId} and state = 'pending' and resource_key is not null
    group by resource_key
    having bool_and(locked_until is null or locked_until < ${now}::timestamptz)
      and coalesce(max(next_attempt_at), '-infinity'::timestamptz) <= ${now}::timestamptz
    order by min(row_index)`);
  return rowsOf<{ resource_key: string }>(result).map((row) => row.resource_key);
}

/**
 * Claims up to `rows` of the earliest pending messages (by timestamp) of each channel named,
 * as its requests of up to 100 in order. A channel not `held` is taken only if no worker holds
 * any of its messages and none waits for a retry (checked again here: another worker may have
 * taken it since it was found); a `held` one is this worker's, and its next messages are the
 * earliest not claimed, i.e. those after the ones in flight. The update re-checks each row's
 * lease, so two workers never both take a row. A claim counts as an attempt.
 */
export async function claimChannels(
  db: Database,
  jobId: string,
  options: {
    workerId: string;
    leaseMs: number;
    channelUrls: string[];
    rows: number;
    held: boolean;
  },
): Promise<MessageBatch[][]> {
  const now = new Date();
  const nowText = now.toISOString();
  const lease = new Date(now.getTime() + options.leaseMs).toISOString();
  // Looked at one channel at a time (its own index range), never as a scan of the whole job.
  const free = options.held
    ? sql``
    : sql`cross join lateral (
        select bool_and(h.locked_until is null or h.locked_until < ${nowText}::timestamptz)
          and coalesce(max(h.next_attempt_at), '-infinity'::timestamptz) <= ${nowText}::timestamptz as free
        from import_rows as h
        where h.job_id = ${jobId} and h.resource_key = c.resource_key and h.state = 'pending'
      ) as f
      where f.free`;
  // The rows are updated by primary key from an array: the plan cannot turn into a join that
  // scans the job once per channel, whatever the (often absent) statistics say.
  const result = await db.execute(sql`
    with channels as (
      select c.resource_key
      from jsonb_array_elements_text(${JSON.stringify(options.channelUrls)}::jsonb) as c(resource_key)
      ${free}
    ), picked as (
      select p.row_index from channels as c cross join lateral (
        select row_index from import_rows as m
        where m.job_id = ${jobId} and m.resource_key = c.resource_key and m.state = 'pending'
          and (m.locked_until is null or m.locked_until < ${nowText}::timestamptz)
        order by (m.body ->> 'timestamp')::bigint, m.row_index
        limit ${options.rows}
      ) as p
    )
    update import_rows as r set locked_until = ${lease}::timestamptz, locked_by = ${options.workerId}, attempts = r.attempts + 1
    where r.job_id = ${jobId} and r.row_index = any(array(select row_index from picked))
      and r.state = 'pending'
      and (r.locked_until is null or r.locked_until < ${nowText}::timestamptz)
    returning r.row_index, r.resource_key, r.body, r.attempts, r.rate_limited_tries`);
  const rows = rowsOf<{
    row_index: number;
    resource_key: string;
    body: Record<string, unknown>;
    attempts: number;
    rate_limited_tries: number;
  }>(result);
  const byChannel = new Map<string, MessageBatch["rows"]>();
  for (const row of rows) {
    const channel = byChannel.get(row.resource_key) ?? [];
    channel.push({
      rowIndex: row.row_index,
      body: row.body,
      attempts: row.attempts,
      rateLimitedTries: row.rate_limited_tries,
    });
    byChannel.set(row.resource_key, channel);
  }
  return [...byChannel].map(([channelUrl, claimed]) => {
    claimed.sort(
      (a, b) => Number(a.body.timestamp) - Number(b.body.timestamp) || a.rowIndex - b.rowIndex,
    );
    return chunk(claimed, MIGRATION_MESSAGES_MAX).map((batch) => ({ channelUrl, rows: batch }));
  });
}
