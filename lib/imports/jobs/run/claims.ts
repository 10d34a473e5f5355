import "server-only";
import { and, eq, inArray, sql } from "drizzle-orm";
import type { RowLease } from "@/lib/background/lease";
import type { Database } from "@/lib/db/client";
import { preparedQuery } from "@/lib/db/raw";
import { importRows } from "@/lib/db/schema";
import type { ImportRow } from "../store/jobs";

/** What a claimed row brings to its sending. */
export type ClaimedRow = Pick<
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

/**
 * Rows a claim takes, per request in flight. A claim costs less per row the more it takes (on
 * PGlite, 1.9 ms for 32 rows and 5.2 ms for 128), and each one first looks for follow-ups left.
 * Taking 8 per lane instead of 2 cut the job's CPU per user from 277-290 µs to 240-244 µs
 * (alternating runs, docs/benchmarks.md "Import run"). The price: a crash leaves up to
 * `concurrency` × 8 claimed rows with an attempt counted that was never sent (one of their tries).
 */
const CLAIM_ROWS_PER_LANE = 8;

export type RowClaims = {
  /**
   * The next row to work: from the rows claimed, or from a new claim when none is left (one
   * claim at a time, shared by the lanes waiting). Undefined once a claim finds no row or
   * `keepGoing` says stop.
   */
  next: (keepGoing: () => boolean) => Promise<ClaimedRow | undefined>;
  /** The row's outcome is in hand: its lease need not be renewed any more. */
  done: (row: ClaimedRow) => void;
  /** Rows this worker holds: queued or in flight, whose leases it renews. */
  held: () => number[];
  /** Rows claimed but never handed out go back at once, not when the lease runs out. */
  giveBack: () => Promise<void>;
};

/** The rows one worker claims of one job for `lanes` requests in flight. */
export function rowClaims(
  db: Database,
  lease: RowLease,
  options: { lanes: number; followUpsOnly: boolean },
): RowClaims {
  const limit = options.lanes * CLAIM_ROWS_PER_LANE;
  const queue: ClaimedRow[] = [];
  let refill: Promise<void> | null = null;
  let exhausted = false;
  /** The last row claimed for creation: the next claim goes on from here (see `claimRows`). */
  const place = { after: -1 };
  const held = new Set<number>();

  return {
    async next(keepGoing) {
      while (!exhausted && keepGoing()) {
        const row = queue.shift();
        if (row) return row;
        refill ??= claimRows(db, lease, limit, options.followUpsOnly, place)
          .then((rows) => {
            if (rows.length === 0) exhausted = true;
            queue.push(...rows);
            for (const row of rows) held.add(row.rowIndex);
          })
          .finally(() => {
            refill = null;
          });
        await refill;
      }
      return undefined;
    },
    done: (row) => held.delete(row.rowIndex),
    held: () => [...held],
    async giveBack() {
      const unsent = queue.splice(0).map((row) => row.rowIndex);
      if (unsent.length === 0) return;
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
            eq(importRows.jobId, lease.jobId),
            eq(importRows.lockedBy, lease.workerId),
            inArray(importRows.rowIndex, unsent),
          ),
        );
    },
  };
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
async function claimRows(
  db: Database,
  { jobId, workerId, leaseMs }: RowLease,
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
