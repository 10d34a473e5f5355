import "server-only";
import {
  and,
  asc,
  count,
  desc,
  eq,
  getTableColumns,
  gt,
  inArray,
  isNotNull,
  isNull,
  ne,
  not,
  or,
  sql,
  type SQL,
} from "drizzle-orm";
import type { Database } from "@/lib/db/client";
import { importChannelLeases, importJobs, importRows } from "@/lib/db/schema";
import type { ImportResource, JobStatus, RowState } from "@/lib/imports/types";
import { importJobJsonSchema, importRowJsonSchema } from "@/lib/schemas/import-jobs";
import { asItStands, rowPassed, rowState, storedStates } from "./row-state";
import { chunk } from "../shared/rows";

/** The job store: jobs, their states, and their rows as they stand. The upload is `./upload.ts`. */

export type ImportJob = typeof importJobs.$inferSelect;
export type ImportRow = typeof importRows.$inferSelect;

/**
 * A job as read from the database, its JSON columns (plan, rehearsal, options, ...) parsed with
 * their zod schemas: every read of a whole job goes through here.
 */
export function parsedJob(row: ImportJob): ImportJob {
  return { ...row, ...importJobJsonSchema.parse(row) };
}

/** A row as read for showing it, its JSON columns (issues, follow-ups, reactions, ...) parsed. */
export function parsedRow(row: ImportRow): ImportRow {
  return { ...row, ...importRowJsonSchema.parse(row) };
}

/** A refusal the administrator can act on; nothing was changed. */
export class ImportJobError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "ImportJobError";
  }
}

/** Whether a rehearsal of the job was asked for and has not ended (it may be waiting for a worker). */
export function rehearsalRunning(job: ImportJob): boolean {
  return job.rehearsal?.state === "running";
}

export async function findJob(db: Database, jobId: string): Promise<ImportJob | undefined> {
  if (!/^[0-9a-f-]{36}$/i.test(jobId)) return undefined;
  const [job] = await db.select().from(importJobs).where(eq(importJobs.id, jobId)).limit(1);
  return job && parsedJob(job);
}

/** Just the status, for runners that watch whether they should go on. */
export async function jobStatus(db: Database, jobId: string): Promise<JobStatus | undefined> {
  const [row] = await db
    .select({ status: importJobs.status })
    .from(importJobs)
    .where(eq(importJobs.id, jobId));
  return row?.status;
}

export async function requireJob(db: Database, jobId: string): Promise<ImportJob> {
  const job = await findJob(db, jobId);
  if (!job)
    throw new ImportJobError("There is no such import. It may have been deleted; start a new one.");
  return job;
}

/** Moves a job between states only from the states named; says why not otherwise. */
export async function transition(
  db: Database,
  jobId: string,
  from: JobStatus[],
  to: JobStatus,
  extra: Partial<Pick<ImportJob, "startedAt" | "finishedAt" | "error">> = {},
): Promise<ImportJob> {
  const [updated] = await db
    .update(importJobs)
    .set({ status: to, ...extra })
    .where(and(eq(importJobs.id, jobId), inArray(importJobs.status, from)))
    .returning();
  if (updated) return parsedJob(updated);
  const job = await requireJob(db, jobId);
  throw new ImportJobError(
    `This import is ${statusWords[job.status]}, so it cannot be ${actionWords[to]} now.`,
  );
}

export const statusWords: Record<JobStatus, string> = {
  draft: "still uploading",
  planning: "being planned",
  planned: "planned",
  running: "running",
  paused: "paused",
  cancelling: "being cancelled",
  cancelled: "cancelled",
  completed: "completed",
};

const actionWords: Record<JobStatus, string> = {
  draft: "reopened for upload",
  planning: "planned",
  planned: "planned",
  running: "run",
  paused: "paused",
  cancelling: "cancelled",
  cancelled: "cancelled",
  completed: "completed",
};

/**
 * The jobs of a target (lib/targets), in SQL over `import_jobs` as `alias`. Null: jobs made with
 * no target (by tests and scripts; the console adopts older ones at start-up), which act on the
 * default target.
 */
export function ofTarget(alias: string, targetId: string | null): SQL {
  const column = sql.raw(`${alias}.target_id`);
  return targetId === null ? sql`${column} is null` : sql`${column} = ${targetId}`;
}

/** The newest jobs, of one target (`targetId`) or of all. */
export async function listJobs(
  db: Database,
  limit = 100,
  targetId?: string | null,
): Promise<ImportJob[]> {
  const jobs = await db
    .select()
    .from(importJobs)
    .where(
      targetId === undefined
        ? undefined
        : targetId === null
          ? isNull(importJobs.targetId)
          : eq(importJobs.targetId, targetId),
    )
    .orderBy(desc(importJobs.createdAt))
    .limit(limit);
  return jobs.map(parsedJob);
}

/**
 * Jobs made before targets existed act on the console's target of the time: they are given
 * `targetId` (the default target at the first start with targets), so each list is a target's.
 */
export async function adoptUntargetedJobs(db: Database, targetId: string): Promise<void> {
  await db.update(importJobs).set({ targetId }).where(isNull(importJobs.targetId));
}

/** `existedInRun`: rows the plan was to create that someone else made first (the run found them). */
export type RowCounts = Record<RowState, number> & {
  followUpsPending: number;
  followUpsFailed: number;
  /** Messages sent whose replies or reactions the replies stage could not carry (`thread_state = 'failed'`). */
  threadsFailed: number;
  /** Messages sent whose replies or reactions are still to carry (`thread_state = 'pending'`). */
  threadsPending: number;
  existedInRun: number;
  total: number;
};

/**
 * The job's rows by state as they stand: the rows' own states, with the messages their
 * channels' sending has passed (counted on import_channel_leases as it moved) created.
 */
export async function rowCounts(db: Database, jobId: string): Promise<RowCounts> {
  const [sent] = await db
    .select({ n: sql<number>`coalesce(sum(${importChannelLeases.sentMessages}), 0)::int` })
    .from(importChannelLeases)
    .where(eq(importChannelLeases.jobId, jobId));
  const grouped = await db
    .select({
      state: importRows.state,
      followUpState: importRows.followUpState,
      existedBefore: importRows.existedBefore,
      threadState: importRows.threadState,
      n: count(),
    })
    .from(importRows)
    .where(eq(importRows.jobId, jobId))
    .groupBy(
      importRows.state,
      importRows.followUpState,
      importRows.existedBefore,
      importRows.threadState,
    );
  const counts: RowCounts = {
    pending: 0,
    created: 0,
    existed: 0,
    failed: 0,
    invalid: 0,
    excluded: 0,
    followUpsPending: 0,
    followUpsFailed: 0,
    threadsFailed: 0,
    threadsPending: 0,
    existedInRun: 0,
    total: 0,
  };
  for (const { state, followUpState, existedBefore, threadState, n } of grouped) {
    counts[state] += n;
    counts.total += n;
    if (state === "created" && followUpState === "pending") counts.followUpsPending += n;
    if (followUpState === "failed") counts.followUpsFailed += n;
    if (state === "existed" && !existedBefore) counts.existedInRun += n;
    // A reply the platform refused is a failed row already; only a sent message's thread work counts here.
    if (threadState === "failed" && state !== "failed") counts.threadsFailed += n;
    if (threadState === "pending" && (state === "created" || state === "existed"))
      counts.threadsPending += n;
  }
  counts.created += sent?.n ?? 0;
  counts.pending -= sent?.n ?? 0;
  return counts;
}

export async function listRows(
  db: Database,
  jobId: string,
  options: { states?: RowState[]; afterIndex?: number; limit: number; followUpFailed?: boolean },
): Promise<ImportRow[]> {
  const rows = await db
    .select({ ...getTableColumns(importRows), passed: rowPassed })
    .from(importRows)
    .where(
      and(
        eq(importRows.jobId, jobId),
        // The stored state narrows by index; the state as it stands decides.
        options.states?.length
          ? and(
              inArray(importRows.state, storedStates(options.states)),
              inArray(rowState, options.states),
            )
          : undefined,
        options.followUpFailed ? eq(importRows.followUpState, "failed") : undefined,
        options.afterIndex === undefined
          ? undefined
          : gt(importRows.rowIndex, Math.min(options.afterIndex, MAX_ROW_INDEX)),
      ),
    )
    .orderBy(asc(importRows.rowIndex))
    .limit(options.limit);
  return rows.map(asItStands);
}

/**
 * A job's pending rows, a page at a time in row order: what a plan looks up and a rehearsal
 * sends. The next page starts after the last row given, whatever became of it meanwhile.
 */
export async function* pendingPages(db: Database, jobId: string, pageSize: number) {
  let after = -1;
  for (;;) {
    const rows = await db
      .select({
        rowIndex: importRows.rowIndex,
        resourceKey: importRows.resourceKey,
        body: importRows.body,
        followUps: importRows.followUps,
        followUpState: importRows.followUpState,
      })
      .from(importRows)
      .where(
        and(
          eq(importRows.jobId, jobId),
          eq(importRows.state, "pending"),
          not(rowPassed),
          gt(importRows.rowIndex, after),
        ),
      )
      .orderBy(asc(importRows.rowIndex))
      .limit(pageSize);
    if (rows.length === 0) return;
    yield rows;
    after = rows[rows.length - 1]!.rowIndex;
  }
}

/** `row_index` is an `integer` column: a larger number (a row typed into a URL) must not reach a query. */
const MAX_ROW_INDEX = 2 ** 31 - 1;

export async function findRow(
  db: Database,
  jobId: string,
  rowIndex: number,
): Promise<ImportRow | undefined> {
  if (rowIndex > MAX_ROW_INDEX) return undefined;
  const [row] = await db
    .select({ ...getTableColumns(importRows), passed: rowPassed })
    .from(importRows)
    .where(and(eq(importRows.jobId, jobId), eq(importRows.rowIndex, rowIndex)))
    .limit(1);
  return row && parsedRow(asItStands(row));
}

/** Rows, or channels of a messages import, someone is working on right now (a live claim). */
export async function liveClaims(db: Database, jobId: string): Promise<number> {
  const now = new Date();
  const [rows] = await db
    .select({ n: count() })
    .from(importRows)
    .where(
      and(
        eq(importRows.jobId, jobId),
        isNotNull(importRows.lockedUntil),
        gt(importRows.lockedUntil, now),
      ),
    );
  const [channels] = await db
    .select({ n: count() })
    .from(importChannelLeases)
    .where(and(eq(importChannelLeases.jobId, jobId), gt(importChannelLeases.lockedUntil, now)));
  return (rows?.n ?? 0) + (channels?.n ?? 0);
}

/** A row of another import of this console that holds a key (a user id, a channel URL). */
export type ImportedKey = {
  key: string;
  sourceId: string | null;
  state: RowState;
  resource: ImportResource;
  jobId: string;
  fileName: string;
  status: JobStatus;
  /** The channel's name as the import sends it, if it has one. */
  name: string | null;
};

/**
 * The rows of imports of `resource` (not cancelled) that hold one of `keys`: to create,
 * created, or found existing. With `bySourceId`, a row also answers for the source id its
 * key was derived from. Asked 1,000 keys at a time, so any number of keys fits one statement.
 */
export async function importedKeys(
  db: Database,
  resource: ImportResource | readonly ImportResource[],
  keys: readonly string[],
  options: { bySourceId?: boolean } = {},
): Promise<ImportedKey[]> {
  const resources = typeof resource === "string" ? [resource] : [...resource];
  const held: ImportedKey[] = [];
  for (const batch of chunk(keys, 1000)) {
    const found = await db
      .select({
        key: importRows.resourceKey,
        sourceId: importRows.sourceId,
        state: importRows.state,
        resource: importJobs.resource,
        jobId: importJobs.id,
        fileName: importJobs.fileName,
        status: importJobs.status,
        name: sql<string | null>`${importRows.body} ->> 'name'`,
      })
      .from(importRows)
      .innerJoin(importJobs, eq(importJobs.id, importRows.jobId))
      .where(
        and(
          inArray(importJobs.resource, resources),
          ne(importJobs.status, "cancelled"),
          inArray(importRows.state, ["pending", "created", "existed"]),
          options.bySourceId
            ? or(inArray(importRows.resourceKey, batch), inArray(importRows.sourceId, batch))
            : inArray(importRows.resourceKey, batch),
        ),
      );
    for (const row of found) if (row.key) held.push({ ...row, key: row.key });
  }
  return held;
}
