import "server-only";
import { sql } from "drizzle-orm";
import type { Database } from "@/lib/db/client";
import type { ImportResource } from "@/lib/imports/types";
import { rowsOf } from "../shared/rows";
import { listJobs, type ImportJob } from "../store/jobs";
import type { OutcomeCounts } from "./outcome-words";
import { threadProgress, type ThreadProgress } from "./thread-progress";
import { runVerificationsOf, type VerificationSummary } from "../verify/report";

export type StageName = "users" | "channels" | "messages";

export type StageJob = {
  id: string;
  fileName: string;
  resource: ImportResource;
  status: string;
  counts: OutcomeCounts;
  /** Its newest Verify finished since it ran: when, and what it found; null when there is none. */
  verified: { at: string; differences: number } | null;
  /** A messages job with replies or reactions: its replies stage's progress; null otherwise. */
  threads: ThreadProgress | null;
};

export type MigrationStage = {
  stage: StageName;
  /** `not started` (no import), `in progress` (one has not completed), `done` (all completed). */
  state: "not started" | "in progress" | "done";
  jobs: StageJob[];
  totals: StageJob["counts"];
  /**
   * Verify of the stage: `verified` when every import of it that ran has a Verify finished
   * since its run ended (`at`: the latest of them), with the findings they counted in all.
   */
  verification: { verified: boolean; at: string | null; differences: number };
};

const stageOf: Record<ImportResource, StageName> = {
  users: "users",
  open_channels: "channels",
  group_channels: "channels",
  messages: "messages",
};

/** The three stages of the migration to a target, with its imports (cancelled ones left out). */
export async function migrationOverview(db: Database, targetId: string): Promise<MigrationStage[]> {
  const jobs = (await listJobs(db, 500, targetId)).filter((job) => job.status !== "cancelled");
  const counts = await jobOutcomeCounts(db, jobs);
  const threads = await threadProgress(
    db,
    jobs.filter((job) => job.resource === "messages" && job.plan).map((job) => job.id),
  );
  const verifications = await runVerificationsOf(
    db,
    jobs.map((job) => job.id),
  );
  return (["users", "channels", "messages"] as const).map((stage) => {
    const stageJobs = jobs
      .filter((job) => stageOf[job.resource] === stage)
      .map((job) => ({
        id: job.id,
        fileName: job.fileName,
        resource: job.resource,
        status: job.status,
        counts: counts.get(job.id) ?? empty(),
        verified: verifiedSinceRun(job, verifications.get(job.id)),
        threads: threads.get(job.id) ?? null,
      }));
    const totals = empty();
    for (const job of stageJobs)
      for (const key of Object.keys(totals) as Array<keyof typeof totals>)
        totals[key] += job.counts[key];
    const state =
      stageJobs.length === 0
        ? "not started"
        : stageJobs.every((job) => job.status === "completed")
          ? "done"
          : "in progress";
    const ran = stageJobs.filter((job) => jobs.find((j) => j.id === job.id)?.startedAt);
    const verification = {
      verified: ran.length > 0 && ran.every((job) => job.verified !== null),
      at: null as string | null,
      differences: 0,
    };
    for (const { verified } of ran) {
      if (!verified) continue;
      verification.differences += verified.differences;
      if (!verification.at || verified.at > verification.at) verification.at = verified.at;
    }
    return { stage, state, jobs: stageJobs, totals, verification };
  });
}

function verifiedSinceRun(
  job: ImportJob,
  verification: VerificationSummary | undefined,
): StageJob["verified"] {
  if (!job.startedAt || !verification?.finishedAt) return null;
  if (new Date(verification.finishedAt) < (job.finishedAt ?? job.startedAt)) return null;
  const { missing, extra, different } = verification.counts;
  return { at: verification.finishedAt, differences: missing + extra + different };
}

function empty(): StageJob["counts"] {
  return {
    created: 0,
    existed: 0,
    failed: 0,
    invalid: 0,
    excluded: 0,
    pending: 0,
    threadsFailed: 0,
  };
}

/** Each job's rows by outcome, in one query for any number of jobs. */
export async function jobOutcomeCounts(
  db: Database,
  jobs: ImportJob[],
): Promise<Map<string, StageJob["counts"]>> {
  const map = new Map<string, StageJob["counts"]>();
  if (jobs.length === 0) return map;
  const rows = rowsOf<{ job_id: string } & StageJob["counts"]>(
    await db.execute(sql`
      with jobs as (
        select jsonb_array_elements_text(${JSON.stringify(jobs.map((job) => job.id))}::jsonb) as id
      ), rows as (
        select job_id,
          count(*) filter (where state = 'created')::int as created,
          count(*) filter (where state = 'existed')::int as existed,
          count(*) filter (where state = 'failed')::int as failed,
          count(*) filter (where state = 'invalid')::int as invalid,
          count(*) filter (where state = 'excluded')::int as excluded,
          count(*) filter (where state = 'pending')::int as pending,
          count(*) filter (where state <> 'failed' and thread_state = 'failed')::int as threads_failed
        from import_rows where job_id in (select id from jobs) group by job_id
      ), sent as (
        select job_id, sum(sent_messages)::int as n
        from import_channel_leases where job_id in (select id from jobs) group by job_id
      )
      -- Messages their channels' sending passed are created (../store/row-state.ts).
      select r.job_id, r.created + coalesce(s.n, 0) as created, r.existed, r.failed, r.invalid,
        r.excluded, r.pending - coalesce(s.n, 0) as pending, r.threads_failed as "threadsFailed"
      from rows as r left join sent as s on s.job_id = r.job_id`),
  );
  for (const { job_id: jobId, ...counts } of rows) map.set(jobId, counts);
  return map;
}
