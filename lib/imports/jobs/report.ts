import "server-only";
import type { Database } from "@/lib/db/client";
import type { JobPlan, PlanProgress, Rehearsal, RowIssue, RowState } from "@/lib/imports/types";
import { csvLine } from "./csv";
import { creationRequest, followUpRequests, type PlannedRequest } from "./requests";
import { findRow, listRows, recentlyFinished, requireJob, rowCounts, type ImportRow, type RowCounts } from "./store";

/** What the job page shows and polls: the same whether the page stayed open or was reopened. */
export type JobProgress = {
  id: string;
  resource: string;
  fileName: string;
  status: string;
  totalRows: number;
  createdAt: string;
  startedAt: string | null;
  finishedAt: string | null;
  counts: RowCounts;
  /** Rows sent and answered so far (created, existed or failed). */
  done: number;
  /** Rows still to send. */
  remaining: number;
  /** Rows finished per second over the last few seconds. */
  perSecond: number;
  /** At that pace; null when unknown. */
  secondsLeft: number | null;
  plan: JobPlan | null;
  /** How far the plan being made has got, while the job is `planning`. */
  planProgress: PlanProgress | null;
  rehearsal: Rehearsal | null;
  /** Why the job could not go on (e.g. the plan could not be made), in words. */
  error: string | null;
};

const RATE_WINDOW_MS = 10_000;

export async function jobProgress(db: Database, jobId: string): Promise<JobProgress> {
  const job = await requireJob(db, jobId);
  const counts = await rowCounts(db, jobId);
  const done = counts.created + counts.existed + counts.failed - (job.plan?.existing ?? 0);
  const remaining = counts.pending + counts.followUpsPending;
  const perSecond = job.status === "running" ? (await recentlyFinished(db, jobId, RATE_WINDOW_MS)) / (RATE_WINDOW_MS / 1000) : 0;
  return {
    id: job.id,
    resource: job.resource,
    fileName: job.fileName,
    status: job.status,
    totalRows: job.totalRows,
    createdAt: job.createdAt.toISOString(),
    startedAt: job.startedAt?.toISOString() ?? null,
    finishedAt: job.finishedAt?.toISOString() ?? null,
    counts,
    done: Math.max(0, done),
    remaining,
    perSecond: Math.round(perSecond * 10) / 10,
    secondsLeft: perSecond > 0 ? Math.ceil(remaining / perSecond) : null,
    plan: job.plan,
    planProgress: job.planProgress,
    rehearsal: job.rehearsal,
    error: job.error,
  };
}

/** One row of the report, as the page lists it. */
export type ReportRow = {
  rowIndex: number;
  key: string | null;
  state: RowState;
  followUpState: string | null;
  code: number | null;
  message: string | null;
  issues: RowIssue[];
};

export function toReportRow(row: ImportRow): ReportRow {
  return {
    rowIndex: row.rowIndex,
    key: row.resourceKey,
    state: row.state,
    followUpState: row.followUpState,
    code: row.resultCode,
    message: row.state === "pending" ? null : row.resultMessage,
    issues: [...row.issues, ...row.planIssues],
  };
}

export async function reportPage(
  db: Database,
  jobId: string,
  options: { state?: RowState; afterIndex?: number; limit?: number },
): Promise<{ rows: ReportRow[]; nextAfter: number | null }> {
  await requireJob(db, jobId);
  const limit = Math.min(options.limit ?? 100, 500);
  const rows = await listRows(db, jobId, {
    states: options.state ? [options.state] : undefined,
    afterIndex: options.afterIndex,
    limit,
  });
  return { rows: rows.map(toReportRow), nextAfter: rows.length === limit ? rows[rows.length - 1]!.rowIndex : null };
}

/** The exact requests a row will send (or sent), for the administrator to open. */
export type RowRequests = { rowIndex: number; state: RowState; requests: PlannedRequest[]; issues: RowIssue[] };

export async function rowRequests(db: Database, jobId: string, rowIndex: number): Promise<RowRequests | null> {
  const job = await requireJob(db, jobId);
  const row = await findRow(db, jobId, rowIndex);
  if (!row) return null;
  const requests = row.body ? [creationRequest(job.resource, row.body), ...followUpRequests(job.resource, row.resourceKey ?? "", row.followUps)] : [];
  return { rowIndex, state: row.state, requests, issues: [...row.issues, ...row.planIssues] };
}

/**
 * The failures in the file's own columns plus `reason`, so they can be fixed and uploaded
 * again: rows the platform refused, rows invalid in the file, rows whose follow-ups failed.
 * Streamed page by page, so a million-row job never sits in memory.
 */
export async function* failuresCsv(db: Database, jobId: string): AsyncGenerator<string> {
  const job = await requireJob(db, jobId);
  yield `${csvLine([...job.columns, "reason"])}`;
  let after = -1;
  for (;;) {
    const rows = await listRows(db, jobId, { states: ["failed", "invalid", "created"], afterIndex: after, limit: 1000 });
    if (rows.length === 0) return;
    after = rows[rows.length - 1]!.rowIndex;
    let chunk = "";
    for (const row of rows) {
      if (row.state === "created" && row.followUpState !== "failed") continue;
      const values = job.columns.map((_, i) => row.values[i] ?? "");
      chunk += csvLine([...values, failureReason(row)]);
    }
    if (chunk) yield chunk;
  }
}

export function failureReason(row: ImportRow): string {
  if (row.state === "invalid") {
    const errors = [...row.issues, ...row.planIssues].filter((issue) => issue.severity === "error");
    return errors.map((issue) => (issue.field ? `${issue.field}: ${issue.message}` : issue.message)).join("; ") || "Invalid row.";
  }
  const code = row.resultCode === null ? "" : ` (code ${row.resultCode})`;
  return `${row.resultMessage ?? "Failed."}${code}`;
}
