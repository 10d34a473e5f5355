import "server-only";
import { randomUUID } from "node:crypto";
import { and, asc, eq, inArray, sql } from "drizzle-orm";
import type { Database } from "@/lib/db/client";
import { importJobs, importRows } from "@/lib/db/schema";
import type { PlatformClient, ResponseInfo } from "@/lib/platform";
import { sendCreation, sendFollowUps, type Pacers } from "../run/send-row";
import { keepRenewed, renewRowLeases } from "@/lib/background/lease";
import { startPollLoop } from "@/lib/background/poll-loop";
import { channelsWithMessages, workMessageJob } from "../run/message-runner";
import { Pacer } from "../run/pacer";
import { startPlanner } from "./planner";
import { applyRowUpdates, type RowUpdate } from "../store/row-updates";
import { jobStatus, liveClaims, type ImportJob, type ImportRow } from "../store/jobs";
import { preparedQuery } from "@/lib/db/raw";

export type RunnerOptions = {
  getDb: () => Promise<Database>;
  /** The job's platform, with the runner's response hook (pacing) and no 429 waits of its own. */
  createClient: (hooks: {
    onResponse: (info: ResponseInfo) => void;
    rateLimitRetries: number;
  }) => Promise<PlatformClient>;
  /** Requests in flight at once (keep-alive connections are reused between them). */
  concurrency?: number;
  /** Creation tries per row before a transient failure is final. */
  maxAttempts?: number;
  /** A row's 429s that do not count as tries (`FREE_RATE_LIMITED_TRIES` when absent). */
  freeRateLimitedTries?: number;
  /**
   * How long a claim holds a row without being renewed. A live worker renews its claims
   * every third of this; a dead worker's rows come back to the others when it runs out.
   */
  leaseMs?: number;
  pollMs?: number;
  workerId?: string;
  log?: (line: string) => void;
};

export type ImportRunner = {
  workerId: string;
  pacers: Pacers;
  /** Look for work now (a job was just started or resumed). */
  nudge: () => void;
  /** Finishes the requests in flight, records them, and gives the rest of its claims back. */
  stop: () => Promise<void>;
};

const FLUSH_ROWS = 200;
/**
 * Rows a claim takes, per request in flight. A claim costs less per row the more it takes (on
 * PGlite, 1.9 ms for 32 rows and 5.2 ms for 128), and each one first looks for follow-ups left.
 * Taking 8 per lane instead of 2 cut the job's CPU per user from 277-290 µs to 240-244 µs
 * (alternating runs, docs/benchmarks.md "Import run"). The price: a crash leaves up to
 * `concurrency` × 8 claimed rows with an attempt counted that was never sent (one of their tries).
 */
const CLAIM_ROWS_PER_LANE = 8;
const FLUSH_MS = 250;
const STATUS_CHECK_MS = 1000;

/**
 * Works the jobs whose status is `running`, one at a time, oldest first, and beside them
 * makes the plans of jobs that are `planning` (`./planner.ts`). Rows are claimed
 * with `FOR UPDATE SKIP LOCKED` and a lease, so several processes on one PostgreSQL database
 * share a job without sending a row twice, and a dead worker's rows come back when its
 * lease runs out. Outcomes are written in batches.
 */
export function startImportRunner(options: RunnerOptions): ImportRunner {
  const concurrency = options.concurrency ?? 16;
  const maxAttempts = options.maxAttempts ?? 8;
  const leaseMs = options.leaseMs ?? 15_000;
  const pollMs = options.pollMs ?? 500;
  const workerId = options.workerId ?? `worker-${randomUUID().slice(0, 8)}`;
  const log = options.log ?? ((line: string) => console.log(`[imports] ${line}`));
  // Every answer reaches its pacer (onResponse below): each learns its limit from the first.
  const pacers: Pacers = {
    read: new Pacer({ learnFirst: true }),
    write: new Pacer({ learnFirst: true }),
    migration: new Pacer({ learnFirst: true }),
  };

  const onResponse = (info: ResponseInfo) =>
    (info.url.includes("/v3/migration/")
      ? pacers.migration
      : info.method === "GET"
        ? pacers.read
        : pacers.write
    ).observe(info.status, info.rateLimit);

  async function tick(db: Database): Promise<boolean> {
    const [job] = await db
      .select()
      .from(importJobs)
      .where(inArray(importJobs.status, ["running", "cancelling"]))
      .orderBy(asc(importJobs.startedAt))
      .limit(1);
    if (!job) return false;
    if (job.status === "cancelling") {
      // Cancel stops new rows, but a row already created still gets its follow-ups
      // (a created user the file marks inactive must not stay active).
      const client = await options.createClient({ onResponse, rateLimitRetries: 0 });
      await workJob(db, client, job, { followUpsOnly: true });
      if ((await liveClaims(db, job.id)) === 0 && !(await followUpsLeft(db, job.id))) {
        await db
          .update(importJobs)
          .set({ status: "cancelled", finishedAt: new Date() })
          .where(and(eq(importJobs.id, job.id), eq(importJobs.status, "cancelling")));
      }
      return false;
    }
    const client = await options.createClient({ onResponse, rateLimitRetries: 0 });
    const worked =
      job.resource === "messages"
        ? await workMessageJob({
            db,
            client,
            job,
            pacer: pacers.migration,
            workerId,
            leaseMs,
            concurrency,
            limits: { maxAttempts, freeRateLimitedTries: options.freeRateLimitedTries },
            running: () => loop.running,
            log,
          })
        : await workJob(db, client, job);
    await maybeComplete(db, job);
    return worked;
  }

  /** Works a job until nothing is claimable now or it stops running. */
  async function workJob(
    db: Database,
    client: PlatformClient,
    job: ImportJob,
    mode: { followUpsOnly: boolean } = { followUpsOnly: false },
  ): Promise<boolean> {
    const keepsRunning = mode.followUpsOnly ? "cancelling" : "running";
    let active = true;
    let worked = false;
    const queue: ClaimedRow[] = [];
    let refill: Promise<void> | null = null;
    let buffer: RowUpdate[] = [];
    let flushing: Promise<void> = Promise.resolve();
    let lastFlush = Date.now();
    /** The last row claimed for creation: the next claim goes on from here (see `claim`). */
    const place = { after: -1 };
    /** Rows this worker holds: queued or in flight. */
    const held = new Set<number>();
    const stopRenewing = keepRenewed(
      async () => {
        if (held.size > 0)
          await renewRowLeases(db, { jobId: job.id, workerId, leaseMs }, [...held]);
      },
      leaseMs,
      log,
    );

    const flush = () => {
      const batch = buffer;
      buffer = [];
      lastFlush = Date.now();
      flushing = flushing.then(() => applyRowUpdates(db, job.id, batch, { lockedBy: workerId }));
      return flushing;
    };
    const record = (update: RowUpdate) => {
      buffer.push(update);
      if (buffer.length >= FLUSH_ROWS || Date.now() - lastFlush > FLUSH_MS) void flush();
    };

    const statusTimer = setInterval(() => {
      void jobStatus(db, job.id)
        .then((status) => {
          if (status !== keepsRunning) active = false;
        })
        .catch(() => {});
      if (buffer.length > 0 && Date.now() - lastFlush > FLUSH_MS) void flush();
    }, STATUS_CHECK_MS);

    async function next(): Promise<ClaimedRow | undefined> {
      while (active && loop.running) {
        const row = queue.shift();
        if (row) return row;
        refill ??= claim(db, job.id, concurrency * CLAIM_ROWS_PER_LANE, mode.followUpsOnly, place)
          .then((rows) => {
            if (rows.length === 0) active = false;
            queue.push(...rows);
            for (const row of rows) held.add(row.rowIndex);
          })
          .finally(() => {
            refill = null;
          });
        await refill;
      }
      return undefined;
    }

    async function lane() {
      for (let row = await next(); row; row = await next()) {
        worked = true;
        // One unit of work per row: its creation, then at once its follow-ups, recorded together.
        record(row.state === "pending" ? await createWithFollowUps(row) : await followUp(row));
        held.delete(row.rowIndex);
      }
    }

    async function createWithFollowUps(row: ClaimedRow): Promise<RowUpdate> {
      const created = await create(row);
      if (created.state !== "created" || row.followUpState !== "pending") return created;
      // The row counts as done (finished_at) only once its follow-ups are done.
      return { ...created, ...(await followUp(row)), state: "created", finished: true };
    }

    async function create(row: ClaimedRow): Promise<RowUpdate> {
      const outcome = await sendCreation(client, pacers, {
        resource: job.resource,
        key: row.resourceKey ?? "",
        body: row.body ?? {},
        earlierAttempts: row.attempts - 1,
        attempt: row.attempts,
        maxAttempts,
        rateLimitedTries: row.rateLimitedTries,
        freeRateLimitedTries: options.freeRateLimitedTries,
      });
      const base = { rowIndex: row.rowIndex, release: true };
      if (outcome.kind === "done") {
        return {
          ...base,
          state: outcome.state,
          resultCode: null,
          resultMessage: outcome.message,
          finished: true,
          ...(outcome.state === "existed" ? { followUpState: null } : {}),
        };
      }
      if (outcome.kind === "retry") {
        return {
          ...base,
          resultCode: outcome.code,
          resultMessage: `Will try again: ${outcome.message}`,
          nextAttemptAt: new Date(Date.now() + outcome.delayMs).toISOString(),
          ...outcome.counts,
        };
      }
      return {
        ...base,
        state: "failed",
        resultCode: outcome.code,
        resultMessage: outcome.message,
        followUpState: null,
        finished: true,
        ...outcome.counts,
      };
    }

    async function followUp(row: ClaimedRow): Promise<RowUpdate> {
      const outcome = await sendFollowUps(
        client,
        pacers,
        job.resource,
        row.resourceKey ?? "",
        row.followUps,
        maxAttempts,
      );
      return outcome.ok
        ? { rowIndex: row.rowIndex, release: true, followUpState: "done", finished: true }
        : {
            rowIndex: row.rowIndex,
            release: true,
            followUpState: "failed",
            resultCode: outcome.code,
            resultMessage: outcome.message,
          };
    }

    try {
      await Promise.all(Array.from({ length: concurrency }, lane));
    } finally {
      clearInterval(statusTimer);
      stopRenewing();
      await flush().catch((error: unknown) => log(`recording outcomes failed: ${String(error)}`));
      // Rows claimed but not sent go back at once, not when the lease runs out.
      const unsent = queue.splice(0).map((row) => row.rowIndex);
      if (unsent.length > 0) {
        await db
          .update(importRows)
          .set({
            lockedUntil: null,
            lockedBy: null,
            // A creation claim counted an attempt that was never made.
            attempts: sql`case when ${importRows.state} = 'pending' then ${importRows.attempts} - 1 else ${importRows.attempts} end`,
          })
          .where(
            and(
              eq(importRows.jobId, job.id),
              eq(importRows.lockedBy, workerId),
              inArray(importRows.rowIndex, unsent),
            ),
          );
      }
    }
    return worked;
  }

  /**
   * Claims rows whose follow-ups remain, else rows to create (never new rows while cancelling).
   * SKIP LOCKED keeps two workers off the same rows; the lease lets a dead worker's rows
   * come back. A creation claim counts as an attempt, even if its answer is never recorded.
   *
   * New rows are taken onward from `place` (the last row this run of the job claimed), not
   * from the job's first row: rows done stay in the job, and a claim that started at the first
   * row read past all of them, so each cost more than the one before (at 30,000 users, 12 ms
   * for 32 rows). Rows behind the place come back by themselves: retries as they fall due
   * (their own index), and any other (a dead worker's claims, once their lease ran out) when
   * nothing is left onward and the place starts again from the first row.
   */
  async function claim(
    db: Database,
    jobId: string,
    limit: number,
    followUpsOnly: boolean,
    place: { after: number },
  ): Promise<ClaimedRow[]> {
    const now = new Date();
    const lockedUntil = new Date(now.getTime() + leaseMs).toISOString();
    const lease = [jobId, workerId, lockedUntil, now.toISOString()];
    // Rows created whose follow-ups were cut short (a crash between the two) come first:
    // follow-ups belong to their row and are finished before any new row starts.
    const followUps = await preparedQuery<ClaimedRecord>(
      db,
      "import_rows_claim_follow_ups",
      claimFollowUpsSql,
      [...lease, limit],
    );
    if (followUps.length > 0 || followUpsOnly) return claimedRows(followUps);
    let created = await preparedQuery<ClaimedRecord>(
      db,
      "import_rows_claim_creations",
      claimCreationsSql,
      [...lease, place.after, limit],
    );
    if (created.length === 0 && place.after >= 0) {
      created = await preparedQuery<ClaimedRecord>(
        db,
        "import_rows_claim_creations",
        claimCreationsSql,
        [...lease, -1, limit],
      );
    }
    const rows = claimedRows(created);
    for (const row of rows) place.after = Math.max(place.after, row.rowIndex);
    return rows;
  }

  async function followUpsLeft(db: Database, jobId: string): Promise<boolean> {
    const [left] = await db
      .select({ rowIndex: importRows.rowIndex })
      .from(importRows)
      .where(
        and(
          eq(importRows.jobId, jobId),
          eq(importRows.state, "created"),
          eq(importRows.followUpState, "pending"),
        ),
      )
      .limit(1);
    return left !== undefined;
  }

  /** Rows still to send: a messages job's, per channel past its `sent_through` place. */
  async function rowsLeft(db: Database, job: ImportJob): Promise<boolean> {
    if (job.resource === "messages")
      return (await channelsWithMessages(db, job.id, { claimable: false })).length > 0;
    const [left] = await db
      .select({ rowIndex: importRows.rowIndex })
      .from(importRows)
      .where(and(eq(importRows.jobId, job.id), eq(importRows.state, "pending")))
      .limit(1);
    return left !== undefined;
  }

  async function maybeComplete(db: Database, job: ImportJob) {
    const jobId = job.id;
    if ((await rowsLeft(db, job)) || (await followUpsLeft(db, jobId))) return;
    const [done] = await db
      .update(importJobs)
      .set({ status: "completed", finishedAt: new Date() })
      .where(and(eq(importJobs.id, jobId), eq(importJobs.status, "running")))
      .returning({ id: importJobs.id });
    if (done) log(`job ${jobId} completed`);
  }

  const loop = startPollLoop(async () => tick(await options.getDb()), {
    pollMs,
    name: "import-jobs",
    onError: (error) =>
      log(`job check failed: ${error instanceof Error ? error.message : String(error)}`),
  });

  // Plans are made beside the run, so asking for one never waits for another job to finish.
  const planner = startPlanner({
    getDb: options.getDb,
    createClient: () => options.createClient({ onResponse: () => {}, rateLimitRetries: 3 }),
    workerId,
    leaseMs,
    pollMs,
    log,
  });

  return {
    workerId,
    pacers,
    nudge: () => {
      loop.nudge();
      planner.nudge();
    },
    stop: async () => {
      await Promise.all([loop.stop(), planner.stop()]);
    },
  };
}

/** What a claimed row brings to its sending. */
type ClaimedRow = Pick<
  ImportRow,
  | "rowIndex"
  | "state"
  | "resourceKey"
  | "body"
  | "followUps"
  | "followUpState"
  | "attempts"
  | "rateLimitedTries"
>;

type ClaimedRecord = {
  row_index: number;
  state: ImportRow["state"];
  resource_key: string | null;
  body: ImportRow["body"];
  follow_ups: ImportRow["followUps"];
  follow_up_state: ImportRow["followUpState"];
  attempts: number;
  rate_limited_tries: number;
};

function claimedRows(records: ClaimedRecord[]): ClaimedRow[] {
  return records
    .map((record) => ({
      rowIndex: record.row_index,
      state: record.state,
      resourceKey: record.resource_key,
      body: record.body,
      followUps: record.follow_ups,
      followUpState: record.follow_up_state,
      attempts: record.attempts,
      rateLimitedTries: record.rate_limited_tries,
    }))
    .sort((a, b) => a.rowIndex - b.rowIndex);
}

// The claims are prepared statements (lib/db/raw.ts): built by Drizzle and planned for each
// claim, they cost about as much as the rows' own update. $1 job, $2 worker, $3 lease end, $4 now.
const claimedColumns =
  "row_index, state, resource_key, body, follow_ups, follow_up_state, attempts, rate_limited_tries";
const unclaimedSql = "(locked_until is null or locked_until < $4::timestamptz)";

/** Created rows whose follow-ups remain ($5 rows at most), from import_rows_follow_ups_pending. */
const claimFollowUpsSql = `
  update import_rows set locked_until = $3::timestamptz, locked_by = $2
  where job_id = $1 and row_index in (
    select row_index from import_rows
    where job_id = $1 and state = 'created' and follow_up_state = 'pending' and ${unclaimedSql}
    order by row_index limit $5 for update skip locked)
  returning ${claimedColumns}`;

/**
 * Up to $6 rows to create: retries due first (import_rows_retries, wherever they are), then
 * rows onward from row $5. The two are read only as far as the limit above them needs
 * (FOR UPDATE is not allowed in a UNION's own branches); a retry due onward may come from
 * both, and is claimed once.
 */
const claimCreationsSql = `
  with retries as (
    select row_index from import_rows
    where job_id = $1 and state = 'pending' and next_attempt_at <= $4::timestamptz and ${unclaimedSql}
    order by row_index limit $6 for update skip locked
  ), onward as (
    select row_index from import_rows
    where job_id = $1 and state = 'pending' and row_index > $5::integer
      and (next_attempt_at is null or next_attempt_at <= $4::timestamptz) and ${unclaimedSql}
    order by row_index limit $6 for update skip locked
  )
  update import_rows set attempts = attempts + 1, locked_until = $3::timestamptz, locked_by = $2
  where job_id = $1 and row_index in (
    select row_index from (select row_index from retries union all select row_index from onward) as due
    limit $6)
  returning ${claimedColumns}`;
