import "server-only";
import { sql } from "drizzle-orm";
import type { Database } from "@/lib/db/client";
import type { JobPlan, PlanProgress, Rehearsal, RowIssue, RowState } from "@/lib/imports/types";
import { reasonColumn, rowNumberColumn } from "@/lib/imports/failures-csv";
import { csvLine } from "./csv";
import { channelsWithMessages } from "../run/message-channels";
import { threadProgress, type ThreadProgress } from "./thread-progress";
import { rowsOf } from "../shared/rows";
import { rehearsalPace, type RehearsalPace } from "../rehearse/pace";
import {
  creationRequest,
  finalRequestsOfRow,
  followUpRequests,
  type PlannedRequest,
} from "../run/requests";
import {
  findRow,
  listRows,
  parsedRow,
  requireJob,
  rowCounts,
  type ImportRow,
  type RowCounts,
} from "../store/jobs";

/** What the job page shows and polls: the same whether the page stayed open or was reopened. */
export type JobProgress = {
  id: string;
  resource: string;
  fileName: string;
  status: string;
  totalRows: number;
  /** The row a spreadsheet shows for row index 0 (header row included). */
  firstRow: number;
  createdAt: string;
  startedAt: string | null;
  finishedAt: string | null;
  counts: RowCounts;
  /** Rows the plan sends, fixed when the plan is made (0 before). */
  toSend: number;
  /** Of those, rows at their final state: created with follow-ups done, existed, or failed. */
  done: number;
  /** Rows still to send (or whose follow-ups are still to send). */
  remaining: number;
  /**
   * Rows that did not reach their final state and never will in this job: what a new job
   * "from the rows not done" takes, and the invalid rows.
   */
  rowsNotDone: number;
  /** The failures CSV's rows: those, and the rows excluded in the preview. */
  failuresCsvRows: number;
  /** Rows finished per second over the last few seconds. */
  perSecond: number;
  /** At that pace; null when unknown. */
  secondsLeft: number | null;
  plan: JobPlan | null;
  /** How far the plan being made has got, while the job is `planning`. */
  planProgress: PlanProgress | null;
  rehearsal: Rehearsal | null;
  /** A running rehearsal's counts, pace and time left, once its rows are being sent. */
  rehearsalProgress: RehearsalPace | null;
  /** Why the job could not go on (e.g. the plan could not be made), in words. */
  error: string | null;
  /** Messages imports: channels whose every message has been sent, of those with any to send. */
  channels: { done: number; total: number } | null;
  /** Messages imports with replies or reactions: the replies stage's progress. */
  threads: ThreadProgress | null;
};

const RATE_WINDOW_MS = 30_000;

/**
 * The rows done of each running job as its progress was read here, over the last 30 s: the
 * rate is the climb across them, steadier than a few seconds' count, and costs no scan of
 * the job's rows. The first read of a job has no rate yet.
 */
const doneSamples = new Map<string, Array<{ at: number; done: number }>>();

function rateOf(jobId: string, done: number): number {
  const now = Date.now();
  const samples = (doneSamples.get(jobId) ?? []).filter(
    (sample) => now - sample.at <= RATE_WINDOW_MS && sample.done <= done,
  );
  samples.push({ at: now, done });
  doneSamples.set(jobId, samples);
  const first = samples[0]!;
  return now - first.at < 1000 ? 0 : (done - first.done) / ((now - first.at) / 1000);
}

function forgetRate(jobId: string): void {
  doneSamples.delete(jobId);
}

export async function jobProgress(db: Database, jobId: string): Promise<JobProgress> {
  const job = await requireJob(db, jobId);
  const counts = await rowCounts(db, jobId);
  // Totals come from the plan and stay fixed while the job runs; a row is done once its
  // follow-ups are, so the count only ever climbs to the plan's number.
  const toSend = job.plan ? job.plan.toCreate : 0;
  const done = Math.min(
    toSend,
    counts.created - counts.followUpsPending + counts.failed + counts.existedInRun,
  );
  const remaining = Math.max(0, toSend - done);
  const rowsNotDone =
    counts.failed +
    counts.invalid +
    counts.followUpsFailed +
    counts.threadsFailed +
    (jobOver(job.status) ? counts.pending + counts.followUpsPending + counts.threadsPending : 0);
  if (job.status !== "running") forgetRate(jobId);
  const perSecond = job.status === "running" ? rateOf(jobId, done) : 0;
  return {
    id: job.id,
    resource: job.resource,
    fileName: job.fileName,
    status: job.status,
    totalRows: job.totalRows,
    firstRow: job.firstRow,
    createdAt: job.createdAt.toISOString(),
    startedAt: job.startedAt?.toISOString() ?? null,
    finishedAt: job.finishedAt?.toISOString() ?? null,
    counts,
    toSend,
    done: Math.max(0, done),
    remaining,
    rowsNotDone,
    failuresCsvRows: rowsNotDone + counts.excluded,
    perSecond: Math.round(perSecond * 10) / 10,
    secondsLeft: perSecond > 0 ? Math.ceil(remaining / perSecond) : null,
    plan: job.plan,
    planProgress: job.planProgress,
    rehearsal: job.rehearsal,
    rehearsalProgress:
      job.rehearsal?.state === "running" && job.rehearsal.progress
        ? rehearsalPace(job.rehearsal.progress)
        : null,
    error: job.error,
    channels: job.resource === "messages" && job.plan ? await channelProgress(db, jobId) : null,
    threads:
      job.resource === "messages" && job.plan
        ? ((await threadProgress(db, [jobId])).get(jobId) ?? null)
        : null,
  };
}

async function channelProgress(
  db: Database,
  jobId: string,
): Promise<{ done: number; total: number }> {
  const [row] = rowsOf<{ total: number }>(
    await db.execute(sql`
      select count(distinct resource_key)::int as total
      from import_rows where job_id = ${jobId} and state in ('pending', 'created', 'failed')`),
  );
  const left = await channelsWithMessages(db, jobId, { claimable: false });
  return { done: (row?.total ?? 0) - left.length, total: row?.total ?? 0 };
}

/** One row of the report, as the page lists it. */
export type ReportRow = {
  rowIndex: number;
  /** The row a spreadsheet shows for it (header row included). */
  rowNumber: number;
  key: string | null;
  state: RowState;
  followUpState: string | null;
  code: number | null;
  message: string | null;
  issues: RowIssue[];
};

export function toReportRow(row: ImportRow, jobStatus: string, firstRow: number): ReportRow {
  return {
    rowIndex: row.rowIndex,
    rowNumber: row.rowIndex + firstRow,
    key: row.resourceKey,
    state: row.state,
    followUpState: row.followUpState,
    code: row.resultCode,
    message: notDoneReason(row, jobStatus) ?? (row.state === "pending" ? null : row.resultMessage),
    issues: [...row.issues, ...row.planIssues],
  };
}

export async function reportPage(
  db: Database,
  jobId: string,
  options: { state?: RowState; afterIndex?: number; limit?: number },
): Promise<{ rows: ReportRow[]; nextAfter: number | null }> {
  const job = await requireJob(db, jobId);
  const limit = Math.min(options.limit ?? 100, 500);
  const rows = await listRows(db, jobId, {
    states: options.state ? [options.state] : undefined,
    afterIndex: options.afterIndex,
    limit,
  });
  return {
    rows: rows.map((row) => toReportRow(parsedRow(row), job.status, job.firstRow)),
    nextAfter: rows.length === limit ? rows[rows.length - 1]!.rowIndex : null,
  };
}

/** The exact requests a row will send (or sent), for the administrator to open. */
export type RowRequests = {
  rowIndex: number;
  state: RowState;
  requests: PlannedRequest[];
  issues: RowIssue[];
};

export async function rowRequests(
  db: Database,
  jobId: string,
  at: { rowIndex: number } | { rowNumber: number },
): Promise<RowRequests | null> {
  const job = await requireJob(db, jobId);
  // A row number is the file's, as the preview, the report and the failures CSV show it.
  const rowIndex = "rowIndex" in at ? at.rowIndex : at.rowNumber - job.firstRow;
  if (rowIndex < 0) return null;
  const row = await findRow(db, jobId, rowIndex);
  if (!row) return null;
  const requests = row.body
    ? [
        creationRequest(job.resource, row.body, row.resourceKey ?? ""),
        ...followUpRequests(job.resource, row.resourceKey ?? "", row.followUps),
        // Sent in the migration's last stage, after the messages.
        ...finalRequestsOfRow(job.resource, row.resourceKey ?? "", row.followUps),
      ]
    : [];
  return { rowIndex, state: row.state, requests, issues: [...row.issues, ...row.planIssues] };
}

/** The job has stopped for good: whatever a row has not reached by now, it never will in this job. */
export function jobOver(status: string): boolean {
  return status === "cancelled" || status === "cancelling" || status === "completed";
}

/** Why a row of a stopped job did not reach its final state, or null when it did (or may still). */
export function notDoneReason(row: ImportRow, jobStatus: string): string | null {
  if (!jobOver(jobStatus)) return null;
  if (row.state === "pending") {
    const last =
      row.attempts > 0 && row.resultMessage
        ? ` (last try: ${row.resultMessage.replace(/^Will try again: /, "")})`
        : "";
    return `Not sent: the import was cancelled before this row${last}.`;
  }
  if (row.state === "created" && row.followUpState === "pending") {
    return "Created, but its follow-ups (deactivation, freeze, metadata, invitations) were not sent: the import was cancelled.";
  }
  if (row.state === "existed" && row.editState === "pending") {
    return "Sent by an earlier import, but not updated to this version (edited in the source since): the import was cancelled first.";
  }
  if ((row.state === "created" || row.state === "existed") && row.threadState === "pending") {
    return "Sent, but its replies or reactions were not carried: the import was cancelled first.";
  }
  return null;
}

/**
 * Whether a row belongs in the failures CSV: every row not imported for good, rows excluded in
 * the preview included, so the file holds all that is left to fix or decide. A new job "from
 * the rows not done" (`rows-not-done.ts`) takes fewer: never the invalid or excluded ones.
 */
export function rowNotDone(row: ImportRow, jobStatus: string): boolean {
  if (row.state === "failed" || row.state === "invalid" || row.state === "excluded") return true;
  // Sent (or, for a newer export's message, sent by an earlier import): its follow-ups, replies,
  // reactions or edit refused, or not carried before the job stopped (cancelled).
  if (row.state === "created" || row.state === "existed")
    return (
      row.followUpState === "failed" ||
      row.threadState === "failed" ||
      ((row.followUpState === "pending" ||
        row.threadState === "pending" ||
        row.editState === "pending") &&
        jobOver(jobStatus))
    );
  return row.state === "pending" && jobOver(jobStatus);
}

/**
 * Every row that did not reach its final state, in the file's own columns plus `reason`, so
 * they can be fixed and uploaded again: rows the platform refused, rows invalid in the file,
 * rows excluded in the preview, rows whose follow-ups failed, messages whose replies or
 * reactions could not be carried, and, once the job has stopped, rows never sent (cancelled).
 * Uploaded again, each is an ordinary row of the new file (the reason and row columns are
 * left unmapped), checked anew and sent unless excluded again.
 * Streamed page by page, so a million-row job never sits in memory.
 */
export async function* failuresCsv(db: Database, jobId: string): AsyncGenerator<string> {
  const job = await requireJob(db, jobId);
  yield csvLine([...job.columns, reasonColumn, rowNumberColumn(job.columns)]);
  let after = -1;
  for (;;) {
    const rows = await listRows(db, jobId, {
      states: ["failed", "invalid", "excluded", "created", "pending", "existed"],
      afterIndex: after,
      limit: 1000,
    });
    if (rows.length === 0) return;
    after = rows[rows.length - 1]!.rowIndex;
    let chunk = "";
    for (const row of rows) {
      if (!rowNotDone(row, job.status)) continue;
      const values = job.columns.map((_, i) => row.values[i] ?? "");
      chunk += csvLine([
        ...values,
        failureReason(row, job.status),
        String(row.rowIndex + job.firstRow),
      ]);
    }
    if (chunk) yield chunk;
  }
}

export function failureReason(row: ImportRow, jobStatus: string): string {
  const notDone = notDoneReason(row, jobStatus);
  if (notDone) return notDone;
  const issues = [...row.issues, ...row.planIssues];
  const errors = issues.filter((issue) => issue.severity === "error");
  if (row.state === "invalid") return issueWords(errors) || "Invalid row.";
  // Why it was excluded is the administrator's; what the checks said of it helps decide again
  // (a duplicate names the row it repeats).
  if (row.state === "excluded") {
    const said = issueWords(errors.length > 0 ? errors : issues);
    return said ? `Excluded in the preview: ${said}` : "Excluded in the preview.";
  }
  const code = row.resultCode === null ? "" : ` (code ${row.resultCode})`;
  return `${row.resultMessage ?? "Failed."}${code}`;
}

function issueWords(issues: RowIssue[]): string {
  return issues
    .map((issue) => (issue.field ? `${issue.field}: ${issue.message}` : issue.message))
    .join("; ");
}
