import "server-only";
import { keepRenewed, renewRowLeases } from "@/lib/background/lease";
import type { Database } from "@/lib/db/client";
import type { PlatformClient } from "@/lib/platform";
import { jobStatus, type ImportJob } from "../store/jobs";
import type { RowUpdate } from "../store/row-updates";
import { rowClaims, type ClaimedRow } from "./claims";
import { outcomeBatches } from "./outcomes";
import { sendCreation, sendFollowUps, type Pacers } from "./send-row";

const STATUS_CHECK_MS = 1000;

export type RowWorkOptions = {
  db: Database;
  /** The job's platform, with no 429 waits of its own: the pacers do the waiting. */
  client: PlatformClient;
  job: ImportJob;
  pacers: Pacers;
  workerId: string;
  leaseMs: number;
  /** Requests in flight at once. */
  concurrency: number;
  /** Creation tries per row before a transient failure is final. */
  maxAttempts: number;
  /** A row's 429s that do not count as tries (`FREE_RATE_LIMITED_TRIES` when absent). */
  freeRateLimitedTries?: number;
  /** Only the follow-ups of rows already created, never a new row: a job being cancelled. */
  followUpsOnly?: boolean;
  /** False once the worker is stopping. */
  running: () => boolean;
  log: (line: string) => void;
};

/**
 * Works a users or channels job until nothing is claimable now or it stops running (while
 * cancelling: until it stops being cancelled). Each lane takes a claimed row, sends it and
 * keeps its outcome for the next batch; the claims' leases are renewed while the lanes work.
 * Returns whether any row was worked.
 */
export async function workRows(options: RowWorkOptions): Promise<boolean> {
  const { db, job, workerId, leaseMs, log } = options;
  const followUpsOnly = options.followUpsOnly ?? false;
  const keepsRunning = followUpsOnly ? "cancelling" : "running";
  let active = true;
  let worked = false;
  const lease = { jobId: job.id, workerId, leaseMs };
  const claims = rowClaims(db, lease, { lanes: options.concurrency, followUpsOnly });
  const outcomes = outcomeBatches(db, job.id, { lockedBy: workerId });
  const stopRenewing = keepRenewed(
    async () => {
      const held = claims.held();
      if (held.length > 0) await renewRowLeases(db, lease, held);
    },
    leaseMs,
    log,
  );
  const statusTimer = setInterval(() => {
    void jobStatus(db, job.id)
      .then((status) => {
        if (status !== keepsRunning) active = false;
      })
      .catch(() => {});
    outcomes.flushIfDue();
  }, STATUS_CHECK_MS);
  const keepGoing = () => active && options.running();

  async function lane() {
    for (let row = await claims.next(keepGoing); row; row = await claims.next(keepGoing)) {
      worked = true;
      // One unit of work per row: its creation, then at once its follow-ups, recorded together.
      outcomes.record(
        row.state === "pending"
          ? await createWithFollowUps(options, row)
          : await followUp(options, row),
      );
      claims.done(row);
    }
  }

  try {
    await Promise.all(Array.from({ length: options.concurrency }, lane));
  } finally {
    clearInterval(statusTimer);
    stopRenewing();
    await outcomes
      .flush()
      .catch((error: unknown) => log(`recording outcomes failed: ${String(error)}`));
    await claims.giveBack();
  }
  return worked;
}

async function createWithFollowUps(options: RowWorkOptions, row: ClaimedRow): Promise<RowUpdate> {
  const created = await create(options, row);
  if (created.state !== "created" || row.followUpState !== "pending") return created;
  // The row counts as done (finished_at) only once its follow-ups are done.
  return { ...created, ...(await followUp(options, row)), state: "created", finished: true };
}

async function create(options: RowWorkOptions, row: ClaimedRow): Promise<RowUpdate> {
  const outcome = await sendCreation(options.client, options.pacers, {
    resource: options.job.resource,
    key: row.resourceKey ?? "",
    body: row.body ?? {},
    earlierAttempts: row.attempts - 1,
    attempt: row.attempts,
    maxAttempts: options.maxAttempts,
    rateLimitedTries: row.rateLimitedTries,
    freeRateLimitedTries: options.freeRateLimitedTries,
  });
  const base = { rowIndex: row.rowIndex, release: true };
  if (outcome.kind === "done") {
    return {
      ...base,
      state: outcome.state,
      resultCode: null,
      resultMessage: outcome.message,
      finished: true,
      ...(outcome.state === "existed" ? { followUpState: null } : {}),
    };
  }
  if (outcome.kind === "retry") {
    return {
      ...base,
      resultCode: outcome.code,
      resultMessage: `Will try again: ${outcome.message}`,
      nextAttemptAt: new Date(Date.now() + outcome.delayMs).toISOString(),
      ...outcome.counts,
    };
  }
  return {
    ...base,
    state: "failed",
    resultCode: outcome.code,
    resultMessage: outcome.message,
    followUpState: null,
    finished: true,
    ...outcome.counts,
  };
}

async function followUp(options: RowWorkOptions, row: ClaimedRow): Promise<RowUpdate> {
  const outcome = await sendFollowUps(
    options.client,
    options.pacers,
    options.job.resource,
    row.resourceKey ?? "",
    row.followUps,
    options.maxAttempts,
  );
  return outcome.ok
    ? { rowIndex: row.rowIndex, release: true, followUpState: "done", finished: true }
    : {
        rowIndex: row.rowIndex,
        release: true,
        followUpState: "failed",
        resultCode: outcome.code,
        resultMessage: outcome.message,
      };
}
