import "server-only";
import { and, eq, sql } from "drizzle-orm";
import type { Database } from "@/lib/db/client";
import { importJobs } from "@/lib/db/schema";
import { startPollLoop, type PollLoop } from "@/lib/background/poll-loop";
import type { PlatformClient } from "@/lib/platform";
import type { PlanProgress } from "@/lib/imports/types";
import { planJob, PlanStopped, rowsOf } from "./plan";
import { runRehearsal } from "./rehearsal";

export type PlannerOptions = {
  getDb: () => Promise<Database>;
  createClient: () => Promise<PlatformClient>;
  workerId: string;
  /** How long a claim on a job holds without being renewed; a dead worker's plan is made again after it. */
  leaseMs?: number;
  pollMs?: number;
  log?: (line: string) => void;
};

/**
 * Does the work before a run, one job at a time, oldest first: the plans of jobs that are
 * `planning` and the rehearsals asked for on `planned` jobs. A job is claimed with
 * `FOR UPDATE SKIP LOCKED` and a lease, so several processes on one PostgreSQL database never
 * work the same job at once, and work cut short by a crash is done again once the lease runs
 * out. A plan that fails sends the job back to `draft` with the reason, to be asked for again;
 * a rehearsal that fails records why as its outcome.
 */
export function startPlanner(options: PlannerOptions): PollLoop {
  const leaseMs = options.leaseMs ?? 15_000;
  const { workerId } = options;
  const log = options.log ?? ((line: string) => console.log(`[imports] ${line}`));
  const leaseEnd = () => new Date(Date.now() + leaseMs);
  const ours = (jobId: string) => and(eq(importJobs.id, jobId), eq(importJobs.claimedBy, workerId));
  const release = (db: Database, jobId: string) =>
    db.update(importJobs).set({ claimedBy: null, claimedUntil: null }).where(ours(jobId));

  async function tick(db: Database): Promise<boolean> {
    const claimed = rowsOf<{ id: string; status: string }>(
      await db.execute(sql`
        update import_jobs set claimed_by = ${workerId}, claimed_until = ${leaseEnd().toISOString()}::timestamptz
        where id = (
          select id from import_jobs
          where (status = 'planning' or (status = 'planned' and rehearsal ->> 'state' = 'running'))
            and (claimed_until is null or claimed_until < now())
          order by created_at limit 1
          for update skip locked)
        returning id, status`),
    );
    const job = claimed[0];
    if (!job) return false;

    const renew = setInterval(() => {
      void db
        .update(importJobs)
        .set({ claimedUntil: leaseEnd() })
        .where(ours(job.id))
        .catch((error: unknown) => log(`renewing the claim on job ${job.id} failed: ${String(error)}`));
    }, leaseMs / 3);
    try {
      if (job.status === "planning") await plan(db, job.id);
      else await rehearse(db, job.id);
    } finally {
      clearInterval(renew);
    }
    return true;
  }

  async function plan(db: Database, jobId: string) {
    const onProgress = async (planProgress: PlanProgress) => {
      const kept = await db
        .update(importJobs)
        .set({ planProgress, claimedUntil: leaseEnd() })
        .where(and(ours(jobId), eq(importJobs.status, "planning")))
        .returning({ id: importJobs.id });
      return kept.length > 0 && loop.running;
    };
    try {
      const started = performance.now();
      await planJob(db, await options.createClient(), jobId, onProgress);
      log(`planned job ${jobId} in ${Math.round(performance.now() - started)} ms`);
    } catch (error) {
      // Cancelled (nothing to do), or this process is stopping: let another take it at once.
      if (error instanceof PlanStopped) return void (await release(db, jobId));
      const reason = error instanceof Error ? error.message : String(error);
      log(`planning job ${jobId} failed: ${reason}`);
      await db
        .update(importJobs)
        .set({ status: "draft", planProgress: null, claimedBy: null, claimedUntil: null, error: `The plan could not be made: ${reason}` })
        .where(and(ours(jobId), eq(importJobs.status, "planning")));
    }
  }

  async function rehearse(db: Database, jobId: string) {
    try {
      const started = performance.now();
      await runRehearsal(db, await options.createClient(), jobId, { shouldStop: () => !loop.running });
      log(`rehearsed job ${jobId} in ${Math.round(performance.now() - started)} ms`);
    } catch (error) {
      if (!(error instanceof PlanStopped)) throw error;
    } finally {
      await release(db, jobId);
    }
  }

  const loop: PollLoop = startPollLoop(async () => tick(await options.getDb()), {
    pollMs: options.pollMs ?? 500,
    onError: (error) => log(`planner failed: ${String(error)}`),
  });
  return loop;
}
