import "server-only";
import { sql, type SQL } from "drizzle-orm";
import type { importRows } from "@/lib/db/schema";
import type { RowState } from "@/lib/imports/types";

/** `./jobs.ts`'s ImportRow, named here so the two modules do not import each other. */
type ImportRow = typeof importRows.$inferSelect;

/**
 * Where a row's state is read. A row's own `state` says it all, except for a message: its
 * channel's sending goes in order and the platform takes a request whole, so a message is
 * created once its channel's `sent_through` place (import_channel_leases) has reached it, and
 * its row is never written for that (only a failure, or a retry's count, is). Every reader of
 * a row's state goes through here, so there is one answer.
 */

/** A message's place in its channel's order of sending, for the row under `alias`. */
export function messagePlaceSql(alias: string): string {
  return `((${alias}.body -> 'timestamp'), ${alias}.row_index)`;
}

/**
 * The `sent_through` place of the import_channel_leases row under `alias`, or a place before
 * every message when nothing was sent yet (jsonb null sorts first).
 */
export function sentThroughPlaceSql(alias: string): string {
  return `(coalesce(${alias}.sent_through_timestamp, 'null'::jsonb), coalesce(${alias}.sent_through_row, -1))`;
}

/** The SQL, for the row under `alias`, of "its channel's sending has passed it". */
export function passedSql(alias: string): string {
  return `exists (select 1 from import_channel_leases as sent
    where sent.job_id = ${alias}.job_id and sent.resource_key = ${alias}.resource_key
      and ${messagePlaceSql(alias)} <= ${sentThroughPlaceSql("sent")})`;
}

/** The row's state as it stands, for the row under `alias`. */
export function rowStateSql(alias: string): string {
  return `case when ${alias}.state = 'pending' and ${passedSql(alias)} then 'created' else ${alias}.state end`;
}

/** Drizzle's `import_rows` table, as it names it in a query. */
const table = "import_rows";
export const rowPassed: SQL<boolean> = sql<boolean>`${sql.raw(passedSql(table))}`;
export const rowState: SQL<RowState> = sql<RowState>`${sql.raw(rowStateSql(table))}`;

/** The states stored on rows that may stand in `states` now: a pending message may be created. */
export function storedStates(states: RowState[]): RowState[] {
  return states.includes("created") && !states.includes("pending")
    ? [...states, "pending"]
    : states;
}

/**
 * A row read with `passed`, as it stands: a message its channel passed is created, with no
 * error of its sending left (a retry's note). Once its replies or reactions failed, the result
 * is the replies stage's, written after the sending, and stays.
 */
export function asItStands({ passed, ...row }: ImportRow & { passed: boolean }): ImportRow {
  if (!passed || row.state !== "pending") return row;
  if (row.threadState === "failed") return { ...row, state: "created", nextAttemptAt: null };
  return { ...row, state: "created", resultCode: null, resultMessage: null, nextAttemptAt: null };
}
