import "server-only";
import { randomUUID } from "node:crypto";
import { asc, inArray } from "drizzle-orm";
import { startPollLoop } from "@/lib/background/poll-loop";
import type { Database } from "@/lib/db/client";
import { importJobs } from "@/lib/db/schema";
import type { PlatformClient, ResponseInfo } from "@/lib/platform";
import { isTargetError } from "@/lib/targets";
import {
  failTargetSteps,
  targetsWithFinalSteps,
  workFinalSteps,
  type FinalStepWork,
} from "../finish/run";
import { prepareSenders } from "../finish/senders";
import { completeIfDone, finishCancelling } from "../run/completion";
import { workMessageJob } from "../run/message-runner";
import { workThreadStage } from "../replies/thread-stage";
import { workRows } from "../run/row-work";
import type { Pacers } from "../run/send-row";
import { transition, type ImportJob } from "../store/jobs";
import { startPlanner } from "./planner";
import { pacingByTarget, type TargetPacing } from "./target-pacing";
import { startVerifier } from "../verify/verifier";

export type RunnerOptions = {
  getDb: () => Promise<Database>;
  /**
   * The job's platform (its `targetId`, null for a job made before targets), with the runner's
   * response hook (pacing) and no 429 waits of its own.
   */
  createClient: (hooks: {
    targetId: string | null;
    onResponse: (info: ResponseInfo) => void;
    rateLimitRetries: number;
  }) => Promise<PlatformClient>;
  /** Requests in flight at once (keep-alive connections are reused between them). */
  concurrency?: number;
  /** Creation tries per row before a transient failure is final. */
  maxAttempts?: number;
  /** A row's 429s that do not count as tries (`FREE_RATE_LIMITED_TRIES` when absent). */
  freeRateLimitedTries?: number;
  /**
   * How long a claim holds a row without being renewed. A live worker renews its claims
   * every third of this; a dead worker's rows come back to the others when it runs out.
   */
  leaseMs?: number;
  pollMs?: number;
  workerId?: string;
  log?: (line: string) => void;
};

export type ImportRunner = {
  workerId: string;
  /** The pacers of a target's requests (null: jobs made before targets), for tests and the bench. */
  pacersOf: (targetId: string | null) => Pacers;
  /** Look for work now (a job was just started or resumed). */
  nudge: () => void;
  /** Finishes the requests in flight, records them, and gives the rest of its claims back. */
  stop: () => Promise<void>;
};

/**
 * Works the jobs whose status is `running`, one at a time, oldest first, and beside them
 * makes the plans of jobs that are `planning` (`./planner.ts`). The rows of a job are worked
 * by `../run/row-work.ts` (a messages job's by `../run/message-runner.ts`): claimed with
 * `FOR UPDATE SKIP LOCKED` and a lease, so several processes on one PostgreSQL database
 * share a job without sending a row twice, and a dead worker's rows come back when its
 * lease runs out. Outcomes are written in batches.
 */
export function startImportRunner(options: RunnerOptions): ImportRunner {
  const concurrency = options.concurrency ?? 16;
  const maxAttempts = options.maxAttempts ?? 8;
  const leaseMs = options.leaseMs ?? 15_000;
  const pollMs = options.pollMs ?? 500;
  const workerId = options.workerId ?? `worker-${randomUUID().slice(0, 8)}`;
  const log = options.log ?? ((line: string) => console.log(`[imports] ${line}`));
  const pacingOf = pacingByTarget();

  const work = (
    db: Database,
    client: PlatformClient,
    job: ImportJob,
    pacers: Pacers,
    followUpsOnly = false,
  ) =>
    workRows({
      db,
      client,
      job,
      pacers,
      workerId,
      leaseMs,
      concurrency,
      maxAttempts,
      freeRateLimitedTries: options.freeRateLimitedTries,
      followUpsOnly,
      running: () => loop.running,
      log,
    });

  async function tick(db: Database): Promise<boolean> {
    const [job] = await db
      .select()
      .from(importJobs)
      .where(inArray(importJobs.status, ["running", "cancelling"]))
      .orderBy(asc(importJobs.startedAt))
      .limit(1);
    if (!job)
      return workLastStage(db, {
        createClient: options.createClient,
        pacingOf,
        workerId,
        leaseMs,
        concurrency,
        maxAttempts,
        running: () => loop.running,
        log,
      });
    const { pacers, onResponse } = pacingOf(job.targetId);
    const client = await clientOfJob(options.createClient, db, job, onResponse, log);
    if (!client) return false;
    if (job.status === "cancelling") {
      // Cancel stops new rows, but a row already created still gets its follow-ups
      // (a created user the file marks inactive must not stay active).
      await work(db, client, job, pacers, true);
      await finishCancelling(db, job.id);
      return false;
    }
    // Senders deactivated on the platform (or unknown, when asked) are made able to send first.
    if (job.resource === "messages" && !sendersPrepared.has(job.id)) {
      if ((await prepareSenders(db, client, job, pacers.write, log)) === 0)
        sendersPrepared.add(job.id);
    }
    const limits = { maxAttempts, freeRateLimitedTries: options.freeRateLimitedTries };
    const stage = { db, client, job, workerId, leaseMs, concurrency, limits, log };
    const running = () => loop.running;
    // A messages job: the migration of each channel, then (once a channel is migrated) its
    // replies and reactions; channels still migrating wait for the next tick.
    const worked =
      job.resource === "messages"
        ? (await workMessageJob({ ...stage, pacer: pacers.migration, running })) ||
          (await workThreadStage({ ...stage, pacers, running }))
        : await work(db, client, job, pacers);
    await completeIfDone(db, job, log);
    return worked;
  }

  /** Messages jobs whose senders this process has prepared (`../finish/senders.ts`). */
  const sendersPrepared = new Set<string>();

  const loop = startPollLoop(async () => tick(await options.getDb()), {
    pollMs,
    name: "import-jobs",
    onError: (error) =>
      log(`job check failed: ${error instanceof Error ? error.message : String(error)}`),
  });

  // Plans are made beside the run, so asking for one never waits for another job to finish.
  const planner = startPlanner({
    getDb: options.getDb,
    createClient: (targetId) =>
      options.createClient({ targetId, onResponse: () => {}, rateLimitRetries: 3 }),
    workerId,
    leaseMs,
    pollMs,
    log,
  });

  // Verifies read the target beside the run, at a read pace of their own.
  const verifier = startVerifier({
    getDb: options.getDb,
    createClient: options.createClient,
    workerId,
    leaseMs,
    pollMs,
    log,
  });

  return {
    workerId,
    pacersOf: (targetId) => pacingOf(targetId).pacers,
    nudge: () => {
      loop.nudge();
      planner.nudge();
      verifier.nudge();
    },
    stop: async () => {
      await Promise.all([loop.stop(), planner.stop(), verifier.stop()]);
    },
  };
}

/**
 * The client of the job's target. A target that is gone (removed, or its token unreadable) can
 * take nothing more: its running job is paused with the reason and a cancelling one cancelled,
 * rather than failing every tick and holding up the jobs behind it.
 */
async function clientOfJob(
  createClient: RunnerOptions["createClient"],
  db: Database,
  job: ImportJob,
  onResponse: (info: ResponseInfo) => void,
  log: (line: string) => void,
): Promise<PlatformClient | undefined> {
  try {
    return await createClient({ targetId: job.targetId, onResponse, rateLimitRetries: 0 });
  } catch (error) {
    if (!isTargetError(error)) throw error;
    log(`job ${job.id}: its target cannot be used: ${error.message}`);
    if (job.status === "cancelling") await finishCancelling(db, job.id);
    else
      await transition(db, job.id, ["running"], "paused", {
        error: `Paused: ${error.message} Nothing more can be sent for this import.`,
      }).catch(() => {});
    return undefined;
  }
}

/** What the last stage's work takes for every target, and how to reach and pace each. */
type LastStageOptions = Omit<FinalStepWork, "db" | "targetId" | "client" | "pacer"> & {
  createClient: RunnerOptions["createClient"];
  pacingOf: (targetId: string | null) => TargetPacing;
};

/**
 * With no job to run: the migration's last stage, once it is asked for (`../finish`), each
 * target's steps sent to that target at its own pace.
 */
async function workLastStage(db: Database, options: LastStageOptions): Promise<boolean> {
  const { createClient, pacingOf, ...work } = options;
  let worked = false;
  for (const targetId of await targetsWithFinalSteps(db)) {
    const { pacers, onResponse } = pacingOf(targetId);
    let client: PlatformClient;
    try {
      client = await createClient({ targetId, onResponse, rateLimitRetries: 0 });
    } catch (error) {
      if (!isTargetError(error)) throw error;
      await failTargetSteps(db, targetId, `Not sent: ${error.message}`);
      continue;
    }
    const sent = await workFinalSteps({ ...work, db, targetId, client, pacer: pacers.write });
    worked ||= sent;
  }
  return worked;
}
