import "server-only";
import { randomUUID } from "node:crypto";
import { asc, inArray } from "drizzle-orm";
import { startPollLoop } from "@/lib/background/poll-loop";
import type { Database } from "@/lib/db/client";
import { importJobs } from "@/lib/db/schema";
import type { PlatformClient, ResponseInfo } from "@/lib/platform";
import { completeIfDone, finishCancelling } from "../run/completion";
import { workMessageJob } from "../run/message-runner";
import { Pacer } from "../run/pacer";
import { workRows } from "../run/row-work";
import type { Pacers } from "../run/send-row";
import type { ImportJob } from "../store/jobs";
import { startPlanner } from "./planner";

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
  pacers: Pacers;
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
  // Every answer reaches its pacer (onResponse below): each learns its limit from the first.
  const pacers: Pacers = {
    read: new Pacer({ learnFirst: true }),
    write: new Pacer({ learnFirst: true }),
    migration: new Pacer({ learnFirst: true }),
  };

  const onResponse = (info: ResponseInfo) =>
    (info.url.includes("/v3/migration/")
      ? pacers.migration
      : info.method === "GET"
        ? pacers.read
        : pacers.write
    ).observe(info.status, info.rateLimit);

  const work = (db: Database, client: PlatformClient, job: ImportJob, followUpsOnly = false) =>
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
    if (!job) return false;
    if (job.status === "cancelling") {
      // Cancel stops new rows, but a row already created still gets its follow-ups
      // (a created user the file marks inactive must not stay active).
      const client = await options.createClient({
        targetId: job.targetId,
        onResponse,
        rateLimitRetries: 0,
      });
      await work(db, client, job, true);
      await finishCancelling(db, job.id);
      return false;
    }
    const client = await options.createClient({
      targetId: job.targetId,
      onResponse,
      rateLimitRetries: 0,
    });
    const worked =
      job.resource === "messages"
        ? await workMessageJob({
            db,
            client,
            job,
            pacer: pacers.migration,
            workerId,
            leaseMs,
            concurrency,
            limits: { maxAttempts, freeRateLimitedTries: options.freeRateLimitedTries },
            running: () => loop.running,
            log,
          })
        : await work(db, client, job);
    await completeIfDone(db, job, log);
    return worked;
  }

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

  return {
    workerId,
    pacers,
    nudge: () => {
      loop.nudge();
      planner.nudge();
    },
    stop: async () => {
      await Promise.all([loop.stop(), planner.stop()]);
    },
  };
}
