import "server-only";
import { sql } from "drizzle-orm";
import { passedSql } from "./row-state";
import type { Database } from "@/lib/db/client";

/** One row's new values; only the keys given are written. */
export type RowUpdate = {
  rowIndex: number;
  state?: string;
  planIssues?: unknown[];
  existedBefore?: boolean;
  followUpState?: string | null;
  resultCode?: number | null;
  resultMessage?: string | null;
  attemptsDelta?: number;
  /** Added to the count of 429 refusals (see ../run/row-retry.ts). */
  rateLimitedTriesDelta?: number;
  nextAttemptAt?: string | null;
  finished?: boolean;
  /** Release this worker's claim. */
  release?: boolean;
  /** The replies stage (messages): where the row's thread work stands, and its message id. */
  threadState?: string | null;
  platformMessageId?: number | null;
  /** A newer export's edit of the message (`import_rows.edit`): pending, done or failed. */
  editState?: string | null;
};

const columns: Array<[keyof RowUpdate, string, string]> = [
  ["state", "state", "text"],
  ["planIssues", "plan_issues", "jsonb"],
  ["existedBefore", "existed_before", "boolean"],
  ["followUpState", "follow_up_state", "text"],
  ["resultCode", "result_code", "integer"],
  ["resultMessage", "result_message", "text"],
  ["nextAttemptAt", "next_attempt_at", "timestamptz"],
  ["threadState", "thread_state", "text"],
  ["platformMessageId", "platform_message_id", "bigint"],
  ["editState", "edit_state", "text"],
];

/**
 * Writes many rows' outcomes in one statement (one JSON parameter unpacked with
 * jsonb_to_recordset), so a job's bookkeeping costs a statement per batch, not per row.
 * With `lockedBy`, only rows still claimed by that worker are written: a worker whose claim
 * ran out and was taken over never overwrites the newer outcome. With `pendingOnly`, only rows
 * still pending as they stand (a messages import, whose rows are not claimed one by one, and
 * whose channel's sending may have passed them: `./row-state.ts`).
 */
export async function applyRowUpdates(
  db: Database,
  jobId: string,
  updates: RowUpdate[],
  only: { lockedBy?: string; pendingOnly?: boolean } = {},
) {
  if (updates.length === 0) return;
  const records = updates.map((update) => ({
    row_index: update.rowIndex,
    has: Object.keys(update),
    state: update.state ?? null,
    plan_issues: update.planIssues ?? null,
    existed_before: update.existedBefore ?? null,
    follow_up_state: update.followUpState ?? null,
    result_code: update.resultCode ?? null,
    result_message: update.resultMessage ?? null,
    attempts_delta: update.attemptsDelta ?? 0,
    rate_limited_tries_delta: update.rateLimitedTriesDelta ?? 0,
    next_attempt_at: update.nextAttemptAt ?? null,
    finished: update.finished ?? false,
    release: update.release ?? false,
    thread_state: update.threadState ?? null,
    platform_message_id: update.platformMessageId ?? null,
    edit_state: update.editState ?? null,
  }));
  const assignments = columns.map(([key, column]) =>
    sql.raw(`${column} = case when v.has ? '${key}' then v.${column} else r.${column} end`),
  );
  await db.execute(sql`
    update import_rows as r set
      ${sql.join(assignments, sql`, `)},
      attempts = r.attempts + v.attempts_delta,
      rate_limited_tries = r.rate_limited_tries + v.rate_limited_tries_delta,
      finished_at = case when v.finished then now() else r.finished_at end,
      locked_until = case when v.release then null else r.locked_until end,
      locked_by = case when v.release then null else r.locked_by end
    from jsonb_to_recordset(${JSON.stringify(records)}::jsonb) as v(
      row_index integer, has jsonb, state text, plan_issues jsonb, existed_before boolean,
      follow_up_state text, result_code integer, result_message text, attempts_delta integer,
      rate_limited_tries_delta integer, next_attempt_at timestamptz, finished boolean, release boolean,
      thread_state text, platform_message_id bigint, edit_state text
    )
    where r.job_id = ${jobId} and r.row_index = v.row_index
      ${only.lockedBy ? sql`and r.locked_by = ${only.lockedBy}` : sql``}
      ${only.pendingOnly ? sql`and r.state = 'pending' and not ${sql.raw(passedSql("r"))}` : sql``}
  `);
}
