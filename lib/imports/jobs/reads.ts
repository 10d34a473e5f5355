import "server-only";
import { getDb } from "@/lib/db/client";
import type { MissingReferences, ReferenceLookup } from "@/lib/imports/references";
import type { PlatformClient } from "@/lib/platform";
import { targetsWithFinalSteps } from "./finish/run";
import { finalStage, type FinalStage } from "./finish/steps";
import { missingReferences } from "./plan/lookups";
import {
  jobOutcomeCounts,
  migrationOverview,
  type MigrationStage,
  type StageJob,
} from "./report/overview";
import {
  failuresCsv,
  jobProgress,
  reportPage,
  rowRequests,
  type JobProgress,
  type ReportRow,
  type RowRequests,
} from "./report/report";
import { adoptUntargetedJobs, findJob, listJobs, requireJob, type ImportJob } from "./store/jobs";

/**
 * What the console's pages, routes and proxy read of the import jobs: one function per read,
 * each opening the database itself, so `app/` and `proxy.ts` never hold it.
 */

/** Whether a job has this address: the proxy answers 404 for one that has not. */
export async function importJobExists(jobId: string): Promise<boolean> {
  return (await findJob(await getDb(), jobId)) !== undefined;
}

/** The job page's first render: the job and its progress, or undefined when there is no such job. */
export async function readImportJob(
  jobId: string,
): Promise<{ job: ImportJob; progress: JobProgress } | undefined> {
  const db = await getDb();
  const job = await findJob(db, jobId);
  if (!job) return undefined;
  return { job, progress: await jobProgress(db, jobId) };
}

/** The job's status, counts and pace, which the job page polls while the job runs. */
export async function readJobProgress(jobId: string): Promise<JobProgress> {
  return jobProgress(await getDb(), jobId);
}

/** A page of the per-row report. */
export async function readReportPage(
  jobId: string,
  options: Parameters<typeof reportPage>[2],
): Promise<{ rows: ReportRow[]; nextAfter: number | null }> {
  return reportPage(await getDb(), jobId, options);
}

/** The requests a row of the file sends, or null when the file has no such row. */
export async function readRowRequests(
  jobId: string,
  at: Parameters<typeof rowRequests>[2],
): Promise<RowRequests | null> {
  return rowRequests(await getDb(), jobId, at);
}

/** The failures CSV, a line at a time, with the job it belongs to (refused when there is none). */
export async function readFailures(
  jobId: string,
): Promise<{ job: ImportJob; lines: AsyncGenerator<string> }> {
  const db = await getDb();
  const job = await requireJob(db, jobId);
  return { job, lines: failuresCsv(db, jobId) };
}

/** The target a job was made on (null: none recorded, the default one), or undefined: no such job. */
export async function readJobTarget(jobId: string): Promise<string | null | undefined> {
  return (await findJob(await getDb(), jobId))?.targetId;
}

/** The imports list: the newest jobs of a target, each with its rows' outcomes. */
export async function readImportList(targetId: string): Promise<{
  jobs: ImportJob[];
  counts: Map<string, StageJob["counts"]>;
}> {
  const db = await getDb();
  const jobs = await listJobs(db, 100, targetId);
  return { jobs, counts: await jobOutcomeCounts(db, jobs) };
}

/** The newest `limit` jobs of a target. */
export async function readImportJobs(limit: number, targetId: string): Promise<ImportJob[]> {
  return listJobs(await getDb(), limit, targetId);
}

/** The migration to a target at a glance: users, then channels, then messages. */
export async function readMigrationOverview(targetId: string): Promise<MigrationStage[]> {
  return migrationOverview(await getDb(), targetId);
}

/**
 * Whether a target has an import planning, rehearsing or running, or its migration's last stage
 * being sent (it cannot be removed then: the worker would have nowhere to send them).
 */
export async function targetHasWorkInProgress(targetId: string): Promise<boolean> {
  const db = await getDb();
  const busy = (await listJobs(db, 1000, targetId)).some(
    (job) =>
      ["planning", "running", "paused", "cancelling"].includes(job.status) ||
      job.rehearsal?.state === "running",
  );
  return busy || (await targetsWithFinalSteps(db)).includes(targetId);
}

/** See `adoptUntargetedJobs`: run once at start-up with the default target's id. */
export async function adoptJobsWithoutTarget(targetId: string): Promise<void> {
  await adoptUntargetedJobs(await getDb(), targetId);
}

/** The migration's last stage: the deferred deactivations and freezes, and where they stand. */
export async function readFinalStage(targetId: string): Promise<FinalStage> {
  return finalStage(await getDb(), targetId);
}

/** The wizard's question: which channels and users its rows name exist nowhere. */
export async function readMissingReferences(
  client: PlatformClient,
  lookup: ReferenceLookup,
): Promise<MissingReferences> {
  return missingReferences(await getDb(), client, lookup);
}
