import { and, eq, inArray, isNull, lt, or, type SQL } from "drizzle-orm";
import type { PgColumn, PgTable, PgUpdateSetSource } from "drizzle-orm/pg-core";
import type { Database } from "@/lib/db/client";
import { importRows } from "@/lib/db/schema";

/**
 * Leases: how background workers share work through the database (import rows, import jobs'
 * plans and rehearsals). A claim holds until `lockedUntil`; its live holder renews it, and a
 * dead holder's work comes back to the others when the lease runs out. (The webhook outbox
 * names its holder instead, see holder.ts: a stalled worker must not lose an attempt under way.)
 */

/** Rows nobody holds: never claimed, or their lease ran out. */
export function unclaimed(lockedUntil: PgColumn, now: Date = new Date()): SQL {
  return or(isNull(lockedUntil), lt(lockedUntil, now))!;
}

export type ClaimOptions<TTable extends PgTable> = {
  /** The column that names a row (the claim's `where key in (...)`). */
  key: PgColumn;
  /** Which rows are due; `unclaimed()` is the caller's to include. */
  where: SQL | undefined;
  orderBy: PgColumn | SQL;
  limit: number;
  /** The lease itself (holder, end) and anything else to set on the claimed rows. */
  set: PgUpdateSetSource<TTable>;
  /** Narrows the update beyond the key, e.g. to one job's rows when the key is per job. */
  scope?: SQL;
};

/**
 * Claims up to `limit` due rows in one statement. `FOR UPDATE SKIP LOCKED` keeps two workers
 * (on one PostgreSQL database) off the same rows; the returned rows are the claimed ones.
 */
export async function claimRows<TTable extends PgTable>(
  db: Database,
  table: TTable,
  options: ClaimOptions<TTable>,
): Promise<TTable["$inferSelect"][]> {
  const due = db
    .select({ key: options.key })
    .from(table as PgTable)
    .where(options.where)
    .orderBy(options.orderBy)
    .limit(options.limit)
    .for("update", { skipLocked: true });
  const claimed = await db
    .update(table)
    .set(options.set)
    .where(and(options.scope, inArray(options.key, due)))
    .returning();
  return claimed as TTable["$inferSelect"][];
}

/** A worker's hold on the rows of one import job. */
export type RowLease = { jobId: string; workerId: string; leaseMs: number };

/** Extends a worker's lease on the import rows it holds. */
export async function renewRowLeases(
  db: Database,
  { jobId, workerId, leaseMs }: RowLease,
  rows: readonly number[],
): Promise<void> {
  const now = Date.now();
  await db
    .update(importRows)
    .set({ lockedUntil: new Date(now + leaseMs) })
    .where(
      and(
        eq(importRows.jobId, jobId),
        eq(importRows.lockedBy, workerId),
        inArray(importRows.rowIndex, [...rows]),
      ),
    );
}

/**
 * Renews a holder's claims every third of the lease, until the returned function is called.
 * A failed renewal is logged; the next one may succeed before the lease runs out.
 */
export function keepRenewed(
  renew: () => Promise<unknown>,
  leaseMs: number,
  log: (line: string) => void,
): () => void {
  const timer = setInterval(() => {
    void renew().catch((error: unknown) => log(`renewing a lease failed: ${String(error)}`));
  }, leaseMs / 3);
  return () => clearInterval(timer);
}
