import "server-only";
import { and, eq, gte, inArray, lt, sql } from "drizzle-orm";
import type { Database } from "@/lib/db/client";
import { importJobs, importRows } from "@/lib/db/schema";
import {
  isChannelResource,
  type JobPlan,
  type MessagePlan,
  type PlanProgress,
  type RowIssue,
} from "@/lib/imports/types";
import { referencedUserIds } from "@/lib/imports/references";
import { isPlatformError, type PlatformClient } from "@/lib/platform";
import { chunk, rowsOf } from "../shared/rows";
import { planMessages, resolveMessageChannels } from "./message-plan";
import { platformRetries } from "@/lib/platform/retries";
import { withRetries } from "@/lib/retry";
import { forEachConcurrent } from "../shared/concurrency";
import { importedUsers, LOOKUP_BATCH, usersOnPlatform } from "./lookups";
import { applyRowUpdates, type RowUpdate } from "../store/row-updates";
import { finishUpload } from "../store/upload";
import { dropScratchApplication } from "../rehearse/scratch-client";
import {
  ImportJobError,
  parsedJob,
  pendingPages,
  rehearsalRunning,
  requireJob,
  rowCounts,
  type ImportJob,
} from "../store/jobs";

export type { JobPlan };

const PAGE = 5_000;
const CHANNEL_LOOKUP_CONCURRENCY = 8;
const USER_LOOKUP_CONCURRENCY = 4;

/** Whether the plan should go on; false when the job was cancelled or the worker is stopping. */
export type PlanProgressReporter = (progress: PlanProgress) => Promise<boolean>;

/** A plan or rehearsal stopped before its end because it was told to; nothing was saved. */
export class StoppedEarly extends Error {
  constructor() {
    super("Stopped before the end; nothing was saved.");
    this.name = "StoppedEarly";
  }
}

const PROGRESS_EVERY_MS = 500;
/** Rows a plan resets per statement (about a quarter of a second on PGlite). */
const RESET_ROWS = 10_000;

/**
 * Asks for a plan once every row has arrived. The job waits as `planning` until a worker
 * makes it (`../worker/planner.ts`), so a million rows' look-ups never hold a request open and a
 * restart picks the plan up again. Asking again while it waits changes nothing.
 */
export async function requestPlan(db: Database, jobId: string): Promise<ImportJob> {
  const job = await finishUpload(db, jobId);
  if (rehearsalRunning(job)) {
    throw new ImportJobError(
      "A rehearsal of this import is running; plan again once it has finished.",
    );
  }
  await dropScratchApplication(db, job);
  const [updated] = await db
    .update(importJobs)
    .set({
      status: "planning",
      plan: null,
      plannedAt: null,
      // A rehearsal of the previous plan says nothing about the next one.
      rehearsal: null,
      planProgress: null,
      error: null,
      claimedBy: null,
      claimedUntil: null,
    })
    .where(and(eq(importJobs.id, jobId), inArray(importJobs.status, ["draft", "planned"])))
    .returning();
  if (updated) return parsedJob(updated);
  if ((await requireJob(db, jobId)).status === "planning") return job;
  throw new ImportJobError("This import has already started; its plan can no longer change.");
}

/**
 * The dry run of a job that is `planning`: asks the platform which of the file's users or
 * channels already exist (batched), checks duplicates and channel members across the whole
 * import, and records the outcome on every row. Nothing is written to the platform. Each
 * plan starts again from the rows as uploaded, so a plan cut short is simply made again.
 */
export async function planJob(
  db: Database,
  client: PlatformClient,
  jobId: string,
  onProgress: PlanProgressReporter = async () => true,
): Promise<ImportJob> {
  const job = await requireJob(db, jobId);
  if (job.status !== "planning") {
    throw new ImportJobError("This import is not waiting for a plan; ask for one first.");
  }
  const started = performance.now();
  let lastReport = 0;
  const report: PlanReport = async (progress, force = false) => {
    if (!force && performance.now() - lastReport < PROGRESS_EVERY_MS) return;
    lastReport = performance.now();
    if (!(await onProgress(progress))) throw new StoppedEarly();
  };

  await startFromUpload(db, jobId);
  if (job.resource === "messages") await resolveMessageChannels(db, job);
  await markDuplicates(db, job);
  const toLookUp = (await rowCounts(db, jobId)).pending;
  await report({ step: "lookups", done: 0, total: toLookUp }, true);
  let requests = await markExisting(db, client, job, toLookUp, report);

  let missingMembers = 0;
  let orderChecks: JobPlan["orderChecks"] = [];
  let messages: MessagePlan | undefined;
  if (isChannelResource(job.resource)) {
    const checked = await checkMembers(db, client, job, report);
    missingMembers = checked.missing;
    orderChecks = checked.orderChecks;
    requests += checked.requests;
  } else if (job.resource === "messages") {
    const checked = await planMessages(db, client, job, report);
    missingMembers = checked.missing;
    orderChecks = checked.orderChecks;
    requests += checked.requests;
    messages = checked.summary;
  }

  await report({ step: "saving", done: toLookUp, total: toLookUp }, true);
  return savePlan(db, jobId, { missingMembers, orderChecks, messages, requests, started });
}

/** Passes progress on (at most every PROGRESS_EVERY_MS unless forced); StoppedEarly when told to stop. */
type PlanReport = (progress: PlanProgress, force?: boolean) => Promise<void>;

/** Every row back to the upload's own verdict, so a plan made again starts from the same rows. */
async function startFromUpload(db: Database, jobId: string) {
  // The rows just uploaded are not in the table's statistics yet (PGlite has no autovacuum, and
  // PostgreSQL's may not have come round): planned as if this job had no rows, the duplicate
  // check below read the whole job once per row (a second job of 20,000 users: 341 s, the
  // console's one thread blocked throughout; of 262,000 users, it never ended).
  await db.execute(sql`analyze import_rows`);

  // Start again from the upload's own verdict, a range of rows at a time, letting the event
  // loop in between: on PGlite one statement over 262,000 rows held the console's thread for
  // 6.8 s (every page and /healthz waited).
  const [last] = await db
    .select({ rowIndex: sql<number | null>`max(${importRows.rowIndex})` })
    .from(importRows)
    .where(eq(importRows.jobId, jobId));
  for (let from = 0; from <= (last?.rowIndex ?? -1); from += RESET_ROWS) {
    await db
      .update(importRows)
      .set({
        state: "pending",
        planIssues: [],
        existedBefore: false,
        followUpState: null,
        threadState: null,
        platformMessageId: null,
        edit: null,
        editState: null,
        // The reactions a plan left out (by non-members) come back: members may have changed.
        reactions: sql`coalesce(${importRows.reactionsAsUploaded}, ${importRows.reactions})`,
        reactionsAsUploaded: null,
      })
      .where(
        and(
          eq(importRows.jobId, jobId),
          gte(importRows.rowIndex, from),
          lt(importRows.rowIndex, from + RESET_ROWS),
          inArray(importRows.state, ["pending", "existed", "invalid"]),
          eq(importRows.excluded, false),
          sql`${importRows.body} is not null and not (${importRows.issues} @> '[{"severity":"error"}]'::jsonb)`,
        ),
      );
    await new Promise((resolve) => setImmediate(resolve));
  }
}

/**
 * Which keys already exist on the platform: their rows become `existed`, skipped by the run.
 * Returns the requests it took.
 */
async function markExisting(
  db: Database,
  client: PlatformClient,
  job: ImportJob,
  toLookUp: number,
  report: PlanReport,
): Promise<number> {
  let requests = 0;
  let lookedUp = 0;
  for await (const rows of pendingPages(db, job.id, PAGE)) {
    // A message is never looked up: its dedup id makes sending it again harmless.
    if (job.resource === "messages") break;
    const keys = rows.map((row) => row.resourceKey).filter((key): key is string => Boolean(key));
    const existing = new Set<string>();
    if (job.resource === "users") {
      const batches = chunk(keys, LOOKUP_BATCH);
      await forEachConcurrent(batches, USER_LOOKUP_CONCURRENCY, async (userIds) => {
        requests++;
        const page = await withRetries(
          () => client.users.list({ userIds, limit: LOOKUP_BATCH, activeMode: "all" }),
          platformRetries(),
        );
        for (const user of page.users) existing.add(user.user_id);
        lookedUp += userIds.length;
        await report({ step: "lookups", done: lookedUp, total: toLookUp });
      });
    } else {
      const getChannel = (channelUrl: string): Promise<unknown> =>
        job.resource === "open_channels"
          ? client.openChannels.get(channelUrl)
          : client.groupChannels.get(channelUrl);
      await forEachConcurrent(keys, CHANNEL_LOOKUP_CONCURRENCY, async (channelUrl) => {
        requests++;
        try {
          await withRetries(() => getChannel(channelUrl), platformRetries());
          existing.add(channelUrl);
        } catch (error) {
          if (!isPlatformError(error, 400201)) throw error;
        }
        lookedUp++;
        await report({ step: "lookups", done: lookedUp, total: toLookUp });
      });
    }
    const updates: RowUpdate[] = rows
      .filter((row) => row.resourceKey && existing.has(row.resourceKey))
      .map((row) => ({
        rowIndex: row.rowIndex,
        state: "existed",
        existedBefore: true,
        resultMessage: "Already on the platform: skipped, nothing overwritten.",
      }));
    await applyRowUpdates(db, job.id, updates);
  }
  return requests;
}

/** Counts what the plan found and saves it on the job, unless the job was cancelled meanwhile. */
async function savePlan(
  db: Database,
  jobId: string,
  found: Pick<JobPlan, "missingMembers" | "orderChecks"> & {
    messages: MessagePlan | undefined;
    requests: number;
    /** When the plan started (performance.now()), for the time its look-ups took. */
    started: number;
  },
): Promise<ImportJob> {
  const { missingMembers, orderChecks, messages, requests, started } = found;
  // Rows still to create make their follow-up calls after creation; a deactivation or a
  // freeze alone waits for the migration's last stage (../finish).
  await db.execute(sql`
    update import_rows set follow_up_state = 'pending'
    where job_id = ${jobId} and state = 'pending' and follow_ups is not null
      and (follow_ups - 'deactivate' - 'freeze') <> '{}'::jsonb`);
  // The plan rewrote the job's rows. PGlite has no autovacuum and PostgreSQL's may not have
  // come round yet: without fresh statistics the run's claims are planned as if the table
  // were nearly empty, and each one scans the whole job.
  await db.execute(sql`analyze import_rows`);

  const counts = await rowCounts(db, jobId);
  const followUps = await followUpCounts(db, jobId);
  // The rows the preview counts "with warnings": any row not excluded, invalid ones too, whose
  // own checks or the plan's look-ups warn. Counting the plan's alone said 4 where the preview
  // had said 6 (a row's own warnings, such as an operator who is not a member, were left out).
  const [warned] = await db
    .select({ n: sql<number>`count(*)::int` })
    .from(importRows)
    .where(
      and(
        eq(importRows.jobId, jobId),
        eq(importRows.excluded, false),
        sql`(${importRows.issues} @> '[{"severity":"warning"}]'::jsonb
          or ${importRows.planIssues} @> '[{"severity":"warning"}]'::jsonb)`,
      ),
    );
  const plan: JobPlan = {
    toCreate: counts.pending,
    existing: counts.existed,
    invalid: counts.invalid,
    excluded: counts.excluded,
    followUps,
    warnings: warned?.n ?? 0,
    missingMembers,
    orderChecks,
    lookups: { requests, ms: Math.round(performance.now() - started) },
    ...(messages ? { messages } : {}),
  };
  const [updated] = await db
    .update(importJobs)
    .set({
      status: "planned",
      plan,
      plannedAt: new Date(),
      planProgress: null,
      claimedBy: null,
      claimedUntil: null,
    })
    .where(and(eq(importJobs.id, jobId), eq(importJobs.status, "planning")))
    .returning();
  if (!updated)
    throw new ImportJobError(
      "This import was cancelled while it was being planned; the plan was not saved.",
    );
  return parsedJob(updated);
}

/**
 * A key that appears again later in the file: the later rows are invalid, never sent. An
 * excluded row that repeats another's key is told which.
 */
async function markDuplicates(db: Database, job: ImportJob) {
  const field =
    job.resource === "users" ? "user_id" : job.resource === "messages" ? "dedup_id" : "channel_url";
  // A message is one of a kind by its dedup id within its channel.
  const identity =
    job.resource === "messages" ? sql`resource_key, body ->> 'dedup_id'` : sql`resource_key`;
  await db.execute(sql`
    update import_rows as r set
      state = 'invalid',
      plan_issues = jsonb_build_array(jsonb_build_object(
        'field', ${field}::text,
        'severity', 'error',
        'message', 'The same ' || ${field}::text || ' is on row ' || (d.first + ${job.firstRow}) || ' of the file; only that row is imported.'))
    from (
      select row_index, min(row_index) over (partition by ${identity}) as first
      from import_rows where job_id = ${job.id} and state = 'pending' and resource_key is not null
    ) as d
    where r.job_id = ${job.id} and r.row_index = d.row_index and d.row_index <> d.first`);
  // A row excluded in the preview as a duplicate lost that reason there (an excluded row takes
  // no part in the preview's checks), and the upload checks each row alone: say here which row
  // it repeats, preferring one that was kept, for the report and the failures CSV.
  const same =
    job.resource === "messages"
      ? sql`o.resource_key = e.resource_key and o.body ->> 'dedup_id' = e.body ->> 'dedup_id'`
      : sql`o.resource_key = e.resource_key`;
  await db.execute(sql`
    update import_rows as r set
      plan_issues = jsonb_build_array(jsonb_build_object(
        'field', ${field}::text,
        'severity', 'error',
        'message', 'The same ' || ${field}::text || ' is on row ' || (d.first + ${job.firstRow}) || ' of the file.'))
    from (
      select e.row_index, (
        select o.row_index from import_rows as o
        where o.job_id = e.job_id and ${same} and o.row_index <> e.row_index
        order by o.excluded, o.row_index limit 1) as first
      from import_rows as e
      where e.job_id = ${job.id} and e.excluded and e.resource_key is not null
    ) as d
    where r.job_id = ${job.id} and r.row_index = d.row_index and d.first is not null`);
}

/**
 * Members and operators must be users: in a users import of this console, or on the
 * platform. Unknown ones fail a `strict` channel (400111) and are left out of any other
 * (a warning). Members from a users import that has not completed say so: run that first.
 */
async function checkMembers(
  db: Database,
  client: PlatformClient,
  job: ImportJob,
  report: PlanReport,
) {
  let requests = 0;
  const rowsById = new Map<string, number[]>();
  const bodies = new Map<number, Record<string, unknown> | null>();
  for await (const rows of pendingPages(db, job.id, PAGE)) {
    for (const row of rows) {
      bodies.set(row.rowIndex, row.body);
      for (const id of referencedUserIds(row.body, row.followUps)) {
        const list = rowsById.get(id);
        if (list) list.push(row.rowIndex);
        else rowsById.set(id, [row.rowIndex]);
      }
    }
  }
  const ids = [...rowsById.keys()];
  const imported = await importedUsers(db, ids);
  const toLookUp = ids.filter(
    (id) => !imported.has(id) || imported.get(id)!.status === "completed",
  );
  let lookedUp = 0;
  await report({ step: "members", done: 0, total: toLookUp.length }, true);
  const onPlatform = await usersOnPlatform(client, toLookUp, {
    activeMode: "all",
    onBatch: async (count) => {
      requests++;
      lookedUp += count;
      await report({ step: "members", done: lookedUp, total: toLookUp.length });
    },
  });

  const issuesByRow = new Map<number, RowIssue[]>();
  const orderChecks = new Map<
    string,
    { jobId: string; fileName: string; status: string; rows: Set<number> }
  >();
  let missing = 0;
  for (const [id, rowIndexes] of rowsById) {
    if (onPlatform.has(id)) continue;
    const source = imported.get(id);
    if (source && source.status !== "completed") {
      const { jobId, fileName, status } = source;
      const check = orderChecks.get(jobId) ?? { jobId, fileName, status, rows: new Set<number>() };
      for (const rowIndex of rowIndexes) check.rows.add(rowIndex);
      orderChecks.set(source.jobId, check);
      for (const rowIndex of rowIndexes) {
        pushIssue(issuesByRow, rowIndex, {
          field: "user_ids",
          severity: "warning",
          message: `User "${id}" comes from the users import "${source.fileName}", which has not completed: run that import first.`,
        });
      }
      continue;
    }
    missing++;
    for (const rowIndex of rowIndexes) {
      const strict = bodies.get(rowIndex)?.strict === true;
      pushIssue(issuesByRow, rowIndex, {
        field: "user_ids",
        severity: strict ? "error" : "warning",
        code: strict ? 400111 : undefined,
        message: strict
          ? `User "${id}" is neither in an import nor on the platform, and the channel is strict: the platform would refuse it.`
          : `User "${id}" is neither in an import nor on the platform: the channel is created without them.`,
      });
    }
  }
  const updates: RowUpdate[] = [...issuesByRow].map(([rowIndex, issues]) => ({
    rowIndex,
    planIssues: issues,
    ...(issues.some((issue) => issue.severity === "error") ? { state: "invalid" } : {}),
  }));
  for (const batch of chunk(updates, 1000)) await applyRowUpdates(db, job.id, batch);
  return {
    missing,
    requests,
    orderChecks: [...orderChecks.values()].map(({ rows, ...check }) => ({
      ...check,
      channels: rows.size,
    })),
  };
}

function pushIssue(map: Map<number, RowIssue[]>, rowIndex: number, issue: RowIssue) {
  const list = map.get(rowIndex);
  if (!list) map.set(rowIndex, [issue]);
  else if (list.length < 20) list.push(issue);
}

async function followUpCounts(db: Database, jobId: string): Promise<JobPlan["followUps"]> {
  const result = await db.execute(sql`
    select
      count(*) filter (where follow_ups ->> 'deactivate' = 'true')::int as deactivate,
      count(*) filter (where follow_ups ->> 'freeze' = 'true')::int as freeze,
      count(*) filter (where follow_ups ? 'metadata')::int as metadata,
      coalesce(sum(ceil(jsonb_array_length(follow_ups -> 'invite') / 100.0)) filter (where follow_ups ? 'invite'), 0)::int as invitations
    from import_rows where job_id = ${jobId} and state = 'pending'`);
  const row = rowsOf<{ deactivate: number; freeze: number; metadata: number; invitations: number }>(
    result,
  )[0];
  return {
    deactivate: row?.deactivate ?? 0,
    freeze: row?.freeze ?? 0,
    metadata: row?.metadata ?? 0,
    invitations: row?.invitations ?? 0,
  };
}
