import "server-only";
import { and, asc, eq, sql } from "drizzle-orm";
import type { Database } from "@/lib/db/client";
import { importJobs } from "@/lib/db/schema";
import { claimRows, keepRenewed, unclaimed } from "@/lib/background/lease";
import { startPollLoop, type PollLoop } from "@/lib/background/poll-loop";
import type { PlatformClient } from "@/lib/platform";
import type { PlanProgress } from "@/lib/imports/types";
import { planJob, StoppedEarly } from "../plan/plan";
import { runRehearsal } from "../rehearse/rehearsal";

export type PlannerOptions = {
  getDb: () => Promise<Database>;
  /** The platform of a job's target (null: a job made before targets, the default one). */
  createClient: (targetId: string | null) => Promise<PlatformClient>;
  workerId: string;
  /** How long a claim on a job holds without being renewed; a dead worker's plan is made again after it. */
  leaseMs?: number;
  pollMs?: number;
  log?: (line: string) => void;
};

/**
 * Does the work before a run: the plans of jobs that are `planning` and, in a loop of its own
 * (a long rehearsal must not hold up a plan), the rehearsals asked for on `planned` jobs; each
 * one job at a time, oldest first. A job is claimed with
 * `FOR UPDATE SKIP LOCKED` and a lease, so several processes on one PostgreSQL database never
 * work the same job at once, and work cut short by a crash is done again once the lease runs
 * out. A plan that fails sends the job back to `draft` with the reason, to be asked for again;
 * a rehearsal that fails records why as its outcome.
 */
export function startPlanner(options: PlannerOptions): Pick<PollLoop, "nudge" | "stop"> {
  const leaseMs = options.leaseMs ?? 15_000;
  const { workerId } = options;
  const log = options.log ?? ((line: string) => console.log(`[imports] ${line}`));
  const leaseEnd = () => new Date(Date.now() + leaseMs);
  const ours = (jobId: string) => and(eq(importJobs.id, jobId), eq(importJobs.claimedBy, workerId));
  const release = (db: Database, jobId: string) =>
    db.update(importJobs).set({ claimedBy: null, claimedUntil: null }).where(ours(jobId));

  let stopping = false;
  const waiting = {
    plan: eq(importJobs.status, "planning"),
    rehearsal: and(
      eq(importJobs.status, "planned"),
      sql`${importJobs.rehearsal} ->> 'state' = 'running'`,
    ),
  };

  async function tick(db: Database, kind: keyof typeof waiting): Promise<boolean> {
    const [job] = await claimRows(db, importJobs, {
      key: importJobs.id,
      where: and(waiting[kind], unclaimed(importJobs.claimedUntil)),
      orderBy: asc(importJobs.createdAt),
      limit: 1,
      set: { claimedBy: workerId, claimedUntil: leaseEnd() },
    });
    if (!job) return false;

    const stopRenewing = keepRenewed(
      () => db.update(importJobs).set({ claimedUntil: leaseEnd() }).where(ours(job.id)),
      leaseMs,
      log,
    );
    try {
      if (kind === "plan") await plan(db, job.id, job.targetId);
      else await rehearse(db, job.id, job.targetId);
    } finally {
      stopRenewing();
    }
    return true;
  }

  async function plan(db: Database, jobId: string, targetId: string | null) {
    const onProgress = async (planProgress: PlanProgress) => {
      const kept = await db
        .update(importJobs)
        .set({ planProgress, claimedUntil: leaseEnd() })
        .where(and(ours(jobId), eq(importJobs.status, "planning")))
        .returning({ id: importJobs.id });
      return kept.length > 0 && !stopping;
    };
    try {
      const started = performance.now();
      await planJob(db, await options.createClient(targetId), jobId, onProgress);
      log(`planned job ${jobId} in ${Math.round(performance.now() - started)} ms`);
    } catch (error) {
      // Cancelled (nothing to do), or this process is stopping: let another take it at once.
      if (error instanceof StoppedEarly) return void (await release(db, jobId));
      const reason = error instanceof Error ? error.message : String(error);
      log(`planning job ${jobId} failed: ${reason}`);
      await db
        .update(importJobs)
        .set({
          status: "draft",
          planProgress: null,
          claimedBy: null,
          claimedUntil: null,
          error: `The plan could not be made: ${reason}`,
        })
        .where(and(ours(jobId), eq(importJobs.status, "planning")));
    }
  }

  async function rehearse(db: Database, jobId: string, targetId: string | null) {
    try {
      const started = performance.now();
      await runRehearsal(db, await options.createClient(targetId), jobId, {
        shouldStop: () => stopping,
      });
      log(`rehearsed job ${jobId} in ${Math.round(performance.now() - started)} ms`);
    } catch (error) {
      if (!(error instanceof StoppedEarly)) throw error;
    } finally {
      await release(db, jobId);
    }
  }

  const loops = (["plan", "rehearsal"] as const).map((kind) =>
    startPollLoop(async () => tick(await options.getDb(), kind), {
      pollMs: options.pollMs ?? 500,
      name: `import-${kind}s`,
      onError: (error) => log(`${kind} worker failed: ${String(error)}`),
    }),
  );
  return {
    nudge: () => loops.forEach((loop) => loop.nudge()),
    stop: async () => {
      stopping = true;
      await Promise.all(loops.map((loop) => loop.stop()));
    },
  };
}
