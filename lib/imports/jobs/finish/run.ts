import "server-only";
import { sql } from "drizzle-orm";
import type { Database } from "@/lib/db/client";
import type { FinalAction, ImportResource } from "@/lib/imports/types";
import { isPlatformError, type PlatformClient } from "@/lib/platform";
import { platformRetries } from "@/lib/platform/retries";
import { withRetries } from "@/lib/retry";
import type { Pacer } from "../run/pacer";
import { finalRequest } from "../run/requests";
import { forEachConcurrent } from "../shared/concurrency";
import { rowsOf } from "../shared/rows";
import { ofTarget } from "../store/jobs";

export type FinalStepWork = {
  db: Database;
  /** The target whose steps are sent (those of the jobs made on it), and its client. */
  targetId: string | null;
  client: PlatformClient;
  /** The pacer of the target's writes. */
  pacer: Pacer;
  workerId: string;
  /** A claim's lease: a dead worker's steps come back to the others once it runs out. */
  leaseMs: number;
  concurrency: number;
  maxAttempts: number;
  running: () => boolean;
  log: (line: string) => void;
};

type ClaimedStep = {
  job_id: string;
  action: FinalAction;
  key: string;
  resource: Exclude<ImportResource, "messages">;
};

/**
 * Sends the pending steps of a target's last stage, a claim of a few at a time (`FOR UPDATE SKIP LOCKED`
 * and a lease, as rows are claimed), until none is left or the worker stops. Each step's
 * outcome is written as soon as it is known, so a restart resends only the steps in flight;
 * their requests are idempotent. Returns whether any step was worked.
 */
export async function workFinalSteps(work: FinalStepWork): Promise<boolean> {
  let worked = false;
  while (work.running()) {
    const steps = await claimSteps(work);
    if (steps.length === 0) break;
    worked = true;
    await forEachConcurrent(steps, work.concurrency, async (step) => {
      const request = finalRequest(step.action, step.resource, step.key);
      try {
        await withRetries(async () => {
          await work.pacer.acquire();
          await work.client.request("chat", request.method, request.path, { json: request.body });
        }, platformRetries(work.maxAttempts));
        await record(work, step, "done", null, null);
      } catch (error) {
        const code = isPlatformError(error) ? error.code : null;
        const reason = error instanceof Error ? error.message : String(error);
        await record(
          work,
          step,
          "failed",
          code,
          `${request.method} ${request.path} failed: ${reason}`,
        );
        work.log(`last stage: ${step.action} ${step.key} failed: ${reason}`);
      }
    });
  }
  return worked;
}

/**
 * The targets whose last stage has steps to send (cheap: the runner asks whenever it is idle);
 * null stands for jobs made with no target.
 */
export async function targetsWithFinalSteps(db: Database): Promise<Array<string | null>> {
  return rowsOf<{ target_id: string | null }>(
    await db.execute(sql`
      select distinct j.target_id from import_final_steps as s
      join import_jobs as j on j.id = s.job_id
      where s.state = 'pending'`),
  ).map((row) => row.target_id);
}

/**
 * The pending steps of a target that can take nothing more (removed, or its token unreadable)
 * fail with the reason, which the migration overview shows; finishing again tries them again.
 */
export async function failTargetSteps(
  db: Database,
  targetId: string | null,
  reason: string,
): Promise<void> {
  await db.execute(sql`
    update import_final_steps set state = 'failed', result_message = ${reason},
      locked_by = null, locked_until = null, finished_at = now()
    where state = 'pending'
      and job_id in (select j.id from import_jobs as j where ${ofTarget("j", targetId)})`);
}

async function claimSteps(work: FinalStepWork): Promise<ClaimedStep[]> {
  return rowsOf<ClaimedStep>(
    await work.db.execute(sql`
      update import_final_steps as s
      set locked_by = ${work.workerId},
        locked_until = now() + ${`${work.leaseMs} milliseconds`}::interval
      from (
        select f.job_id, f.action, f.key from import_final_steps as f
        join import_jobs as j on j.id = f.job_id
        where ${ofTarget("j", work.targetId)} and f.state = 'pending'
          and (f.locked_until is null or f.locked_until < now())
        order by f.job_id, f.action, f.key
        limit ${work.concurrency * 4}
        for update of f skip locked
      ) as c
      where s.job_id = c.job_id and s.action = c.action and s.key = c.key
      returning s.job_id, s.action, s.key, s.resource`),
  );
}

async function record(
  work: FinalStepWork,
  step: ClaimedStep,
  state: "done" | "failed",
  code: number | null,
  message: string | null,
) {
  await work.db.execute(sql`
    update import_final_steps set state = ${state}, result_code = ${code},
      result_message = ${message}, locked_by = null, locked_until = null, finished_at = now()
    where job_id = ${step.job_id} and action = ${step.action} and key = ${step.key}
      and state = 'pending' and locked_by = ${work.workerId}`);
}
