import "server-only";
import { sql } from "drizzle-orm";
import type { Database } from "@/lib/db/client";
import { MIGRATION_MESSAGES_MAX } from "@/lib/schemas/messages";
import { isPlatformError, type PlatformClient } from "@/lib/platform";
import type { MigratedMessage } from "@/lib/platform/types";
import { platformRetries } from "@/lib/platform/retries";
import { nextRetry } from "@/lib/retry";
import { keepRenewed, renewRowLeases } from "@/lib/background/lease";
import type { Pacer } from "./pacer";
import { rowsOf } from "./plan";
import { applyRowUpdates, type RowUpdate } from "./row-updates";
import { jobStatus, type ImportJob } from "./store";

/** One migration request: up to 100 messages of one channel, the earliest still to send. */
export type MessageBatch = {
  channelUrl: string;
  rows: Array<{ rowIndex: number; body: Record<string, unknown>; attempts: number }>;
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
  maxAttempts: number;
  /** False once the worker is stopping. */
  running: () => boolean;
  log: (line: string) => void;
};

const STATUS_CHECK_MS = 1000;

/**
 * Works a messages job until nothing is claimable now or it stops running. Each lane sends
 * one channel's earliest messages at a time, so a channel's history goes in timestamp order
 * and never two of its requests at once, while many channels go in parallel. A request whose
 * answer was lost is sent again: the dedup ids make the platform store its messages once.
 */
export async function workMessageJob(options: MessageWorkOptions): Promise<boolean> {
  const { db, client, job, pacer, workerId, leaseMs } = options;
  let active = true;
  let worked = false;
  const queue: MessageBatch[] = [];
  /** Channels queued or in flight here: never claimed twice. */
  const busy = new Set<string>();
  let refill: Promise<void> | null = null;

  const statusTimer = setInterval(() => {
    void jobStatus(db, job.id)
      .then((status) => {
        if (status !== "running") active = false;
      })
      .catch(() => {});
  }, STATUS_CHECK_MS);
  const stopRenewing = keepRenewed(
    async () => {
      if (busy.size > 0) await renewRowLeases(db, { jobId: job.id, workerId, leaseMs }, "pending");
    },
    leaseMs,
    options.log,
  );

  async function next(): Promise<MessageBatch | undefined> {
    while (active && options.running()) {
      const batch = queue.shift();
      if (batch) return batch;
      refill ??= claimBatches(db, job.id, {
        workerId,
        leaseMs,
        channels: options.concurrency,
        busy: [...busy],
      })
        .then((batches) => {
          // Nothing claimable and nothing in flight: this job has no work here for now.
          if (batches.length === 0 && busy.size === 0) active = false;
          for (const claimed of batches) busy.add(claimed.channelUrl);
          queue.push(...batches);
        })
        .finally(() => {
          refill = null;
        });
      await refill;
      // Other lanes hold the only channels with work: wait for one to finish.
      if (queue.length === 0 && active) await new Promise((resolve) => setTimeout(resolve, 50));
    }
    return undefined;
  }

  /** A lane keeps its channel while it has messages to send, claiming its next 100 by the channel's index. */
  async function lane() {
    for (let batch = await next(); batch; batch = await next()) {
      worked = true;
      try {
        for (let current: MessageBatch | undefined = batch; current;) {
          const updates = await send(current);
          await applyRowUpdates(db, job.id, updates, workerId);
          // A request put back for a retry holds the channel until it is due.
          if (updates[0]?.finished !== true || !active || !options.running()) break;
          [current] = await claimBatches(db, job.id, {
            workerId,
            leaseMs,
            channels: 1,
            busy: [],
            channelUrl: current.channelUrl,
          });
        }
      } finally {
        busy.delete(batch.channelUrl);
      }
    }
  }

  async function send(batch: MessageBatch): Promise<RowUpdate[]> {
    const attempt = Math.max(...batch.rows.map((row) => row.attempts));
    const first = batch.rows[0]!.rowIndex;
    const last = batch.rows[batch.rows.length - 1]!.rowIndex;
    const each = (update: Omit<RowUpdate, "rowIndex">) =>
      batch.rows.map((row) => ({ rowIndex: row.rowIndex, release: true, ...update }));
    try {
      await pacer.acquire();
      await client.migration.migrateMessages(batch.channelUrl, {
        messages: batch.rows.map((row) => row.body as MigratedMessage),
      });
      return each({ state: "created", resultCode: null, resultMessage: null, finished: true });
    } catch (error) {
      const reason = error instanceof Error ? error.message : String(error);
      const code = isPlatformError(error) ? error.code : null;
      const carried = `the request of ${batch.rows.length} messages to ${batch.channelUrl} (rows ${rowList(batch.rows.map((row) => row.rowIndex))})`;
      const next = nextRetry(platformRetries(options.maxAttempts), attempt, error);
      if (isPlatformError(error) && next.retry) {
        return each({
          resultCode: code,
          resultMessage: `Will try again: ${reason}`,
          nextAttemptAt: new Date(Date.now() + next.delayMs).toISOString(),
          // A 429 was refused before any work: it does not use up the tries.
          attemptsDelta: error.status === 429 ? -1 : 0,
        });
      }
      options.log(`messages ${first + 1}–${last + 1} to ${batch.channelUrl} failed: ${reason}`);
      const gaveUp =
        isPlatformError(error) && error.transient
          ? `Gave up after ${attempt} tries of `
          : "Refused with ";
      return each({
        state: "failed",
        resultCode: code,
        resultMessage: `${gaveUp}${carried}: ${reason}`,
        finished: true,
      });
    }
  }

  try {
    await Promise.all(Array.from({ length: options.concurrency }, lane));
  } finally {
    clearInterval(statusTimer);
    stopRenewing();
    // Batches claimed but not sent go back at once, not when the lease runs out.
    const unsent = queue.splice(0).flatMap((batch) => batch.rows.map((row) => row.rowIndex));
    if (unsent.length > 0) {
      await applyRowUpdates(
        db,
        job.id,
        unsent.map((rowIndex) => ({ rowIndex, release: true, attemptsDelta: -1 })),
        workerId,
      );
    }
  }
  return worked;
}

/** "3, 4, 5, 9" as row numbers of the file (1-based), shortened past 10. */
function rowList(indexes: number[]): string {
  const shown = indexes.slice(0, 10).map((index) => String(index + 1));
  return indexes.length > 10
    ? `${shown.join(", ")} and ${indexes.length - 10} more`
    : shown.join(", ");
}

/**
 * Claims the next batch of up to `channels` channels that have messages to send, none of
 * them held by any worker and none waiting for a retry: each channel's earliest 100 pending
 * messages by timestamp. The update re-checks the lease, so two workers never both take a row.
 */
export async function claimBatches(
  db: Database,
  jobId: string,
  options: {
    workerId: string;
    leaseMs: number;
    channels: number;
    busy: string[];
    channelUrl?: string;
  },
): Promise<MessageBatch[]> {
  const now = new Date();
  const nowText = now.toISOString();
  const lease = new Date(now.getTime() + options.leaseMs).toISOString();
  // One channel a lane already holds: its next messages, without looking at the others.
  const channels = options.channelUrl
    ? sql`select ${options.channelUrl}::text as resource_key`
    : sql`
      select resource_key from import_rows
      where job_id = ${jobId} and state = 'pending' and resource_key is not null
        and resource_key not in (select jsonb_array_elements_text(${JSON.stringify(options.busy)}::jsonb))
      group by resource_key
      having bool_and(locked_until is null or locked_until < ${nowText}::timestamptz)
        and coalesce(max(next_attempt_at), '-infinity'::timestamptz) <= ${nowText}::timestamptz
      limit ${options.channels}`;
  const result = await db.execute(sql`
    with channels as (${channels}), picked as (
      select p.row_index from channels as c cross join lateral (
        select row_index from import_rows as m
        where m.job_id = ${jobId} and m.resource_key = c.resource_key and m.state = 'pending'
        order by (m.body ->> 'timestamp')::bigint, m.row_index
        limit ${MIGRATION_MESSAGES_MAX}
      ) as p
    )
    update import_rows as r set locked_until = ${lease}::timestamptz, locked_by = ${options.workerId}, attempts = r.attempts + 1
    from picked
    where r.job_id = ${jobId} and r.row_index = picked.row_index and r.state = 'pending'
      and (r.locked_until is null or r.locked_until < ${nowText}::timestamptz)
    returning r.row_index, r.resource_key, r.body, r.attempts`);
  const rows = rowsOf<{
    row_index: number;
    resource_key: string;
    body: Record<string, unknown>;
    attempts: number;
  }>(result);
  const batches = new Map<string, MessageBatch>();
  for (const row of rows) {
    const batch = batches.get(row.resource_key) ?? { channelUrl: row.resource_key, rows: [] };
    batch.rows.push({ rowIndex: row.row_index, body: row.body, attempts: row.attempts });
    batches.set(row.resource_key, batch);
  }
  for (const batch of batches.values()) {
    batch.rows.sort(
      (a, b) => Number(a.body.timestamp) - Number(b.body.timestamp) || a.rowIndex - b.rowIndex,
    );
  }
  return [...batches.values()];
}
