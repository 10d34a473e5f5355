import "server-only";
import { sql } from "drizzle-orm";
import type { Database } from "@/lib/db/client";
import type { FinalAction, FinalReason } from "@/lib/imports/types";
import { rowsOf } from "../shared/rows";
import { ImportJobError, ofTarget, statusWords, type ImportJob } from "../store/jobs";

/**
 * The migration's last stage: the deactivations and freezes deferred until every message,
 * reply and reaction naming those people and channels has been sent (docs/imports-jobs.md,
 * "The last stage"). Its steps live in `import_final_steps`, one per user or channel and job:
 * - the file's: a users row marked inactive, a channel row marked frozen, once created;
 *   recorded when the stage is asked for;
 * - a sender's: deactivated on the platform before a messages job and reactivated by it, or
 *   unknown and created by it (`./senders.ts`); recorded before that is done.
 * Asking for the stage moves every step not done to `pending`; the runner sends them
 * (`./run.ts`). Each request is idempotent, so a step sent twice is harmless.
 * The stage is a target's (lib/targets): its steps are those of the jobs made on it, sent to it.
 */

export type FinalCounts = { toDo: number; done: number; failed: number };

export type FinalStage = {
  /** `waiting`: an import is not over; `ready`: to ask for; `in progress`: asked, being sent; `done`. */
  state: "nothing to do" | "waiting" | "ready" | "in progress" | "done";
  /** The import that keeps the stage waiting, in words, when one does. */
  waitingFor: string | null;
  deactivate: FinalCounts;
  freeze: FinalCounts;
  /** Of the deactivations: senders deactivated on the platform before, reactivated for their messages. */
  reactivated: number;
  /** Of the deactivations: unknown senders created for their messages. */
  createdSenders: number;
  /** The first failures, each with the platform's message. */
  failures: Array<{ action: FinalAction; key: string; message: string }>;
};

/**
 * The file's deactivations and freezes: rows created, or still to create by a job that will
 * run. A cancelled job's created rows count too: they are on the platform, active or unfrozen.
 */
const fileSteps = (targetId: string | null) => sql`
  select r.job_id, case when j.resource = 'users' then 'deactivate' else 'freeze' end as action,
    r.resource_key as key, j.resource, r.row_index
  from import_rows as r join import_jobs as j on j.id = r.job_id
  where ${ofTarget("j", targetId)} and j.resource <> 'messages' and r.resource_key is not null
    and ((j.resource = 'users' and r.follow_ups ->> 'deactivate' = 'true')
      or (j.resource <> 'users' and r.follow_ups ->> 'freeze' = 'true'))
    and (r.state = 'created'
      or (r.state = 'pending' and j.status not in ('cancelled', 'cancelling')))`;

/** Steps of the target's jobs, as `s`. */
const targetSteps = (targetId: string | null) => sql`(
  select s.* from import_final_steps as s join import_jobs as j on j.id = s.job_id
  where ${ofTarget("j", targetId)})`;

/**
 * The last stage of the migration to a target: its counts and state, for the migration overview
 * and the Finish confirmation.
 */
export async function finalStage(db: Database, targetId: string | null): Promise<FinalStage> {
  const counts = rowsOf<{ action: FinalAction; reason: FinalReason; state: string; n: number }>(
    await db.execute(sql`
      with file as (${fileSteps(targetId)})
      select f.action, 'file' as reason, coalesce(s.state, 'waiting') as state, count(*)::int as n
      from file as f left join import_final_steps as s
        on s.job_id = f.job_id and s.action = f.action and s.key = f.key
      group by 1, 2, 3
      union all
      select action, reason, state, count(*)::int from ${targetSteps(targetId)} as s
      where reason <> 'file' group by 1, 2, 3`),
  );
  const stage: FinalStage = {
    state: "nothing to do",
    waitingFor: await unfinishedImport(db, targetId),
    deactivate: { toDo: 0, done: 0, failed: 0 },
    freeze: { toDo: 0, done: 0, failed: 0 },
    reactivated: 0,
    createdSenders: 0,
    failures: [],
  };
  let pending = 0;
  for (const { action, reason, state, n } of counts) {
    const kind = stage[action];
    if (state === "done") kind.done += n;
    else if (state === "failed") kind.failed += n;
    else kind.toDo += n;
    if (state === "pending") pending += n;
    if (reason === "reactivated") stage.reactivated += n;
    if (reason === "created_sender") stage.createdSenders += n;
  }
  // Senders a planned messages job will reactivate or create, before its run records them.
  for (const planned of rowsOf<{ reactivate: number; create: number }>(
    await db.execute(sql`
      select coalesce(jsonb_array_length(j.plan -> 'messages' -> 'reactivateSenders'), 0)::int as reactivate,
        coalesce(jsonb_array_length(j.plan -> 'messages' -> 'createSenders'), 0)::int as create
      from import_jobs as j
      where ${ofTarget("j", targetId)} and j.resource = 'messages'
        and j.status in ('planned', 'running', 'paused')
        and not exists (select 1 from import_final_steps as s
          where s.job_id = j.id and s.reason <> 'file')`),
  )) {
    stage.deactivate.toDo += planned.reactivate + planned.create;
    stage.reactivated += planned.reactivate;
    stage.createdSenders += planned.create;
  }
  stage.failures = rowsOf<{ action: FinalAction; key: string; message: string }>(
    await db.execute(sql`
      select action, key, coalesce(result_message, '') as message from ${targetSteps(targetId)} as s
      where state = 'failed' order by finished_at desc nulls last limit 20`),
  );
  const toDo = stage.deactivate.toDo + stage.freeze.toDo;
  const failed = stage.deactivate.failed + stage.freeze.failed;
  const done = stage.deactivate.done + stage.freeze.done;
  stage.state =
    pending > 0
      ? "in progress"
      : toDo + failed > 0
        ? stage.waitingFor
          ? "waiting"
          : "ready"
        : done > 0
          ? "done"
          : "nothing to do";
  return stage;
}

/**
 * An import into the target in progress (planned and not over), in words, or null when none
 * is. A draft (an upload not finished, a plan that failed) is not: nothing of it is sent before
 * it is planned, and a plan made after the last stage sees who is deactivated by then. Another
 * target's imports name other people and channels: they do not hold this stage back.
 */
async function unfinishedImport(db: Database, targetId: string | null): Promise<string | null> {
  const [job] = rowsOf<Pick<ImportJob, "fileName" | "status">>(
    await db.execute(sql`
      select file_name as "fileName", status from import_jobs as j
      where ${ofTarget("j", targetId)} and status not in ('draft', 'completed', 'cancelled')
      order by created_at limit 1`),
  );
  return job ? `the import “${job.fileName}” is ${statusWords[job.status]}` : null;
}

/**
 * Asks for the last stage of the migration to a target: refused while an import into it is not
 * over (its messages may still name the people and channels), otherwise records the file's
 * steps and sets every step not done (a failed one too: asking again tries it again) to be
 * sent. Asking twice adds nothing.
 */
export async function requestFinalStage(
  db: Database,
  targetId: string | null,
): Promise<FinalStage> {
  const waitingFor = await unfinishedImport(db, targetId);
  if (waitingFor)
    throw new ImportJobError(
      `The migration cannot be finished yet: ${waitingFor}. Run it to completion or cancel it first.`,
    );
  await db.transaction(async (tx) => {
    await tx.execute(sql`
      insert into import_final_steps (job_id, action, key, resource, reason, row_index, state)
      select job_id, action, key, resource, 'file', row_index, 'pending' from (${fileSteps(targetId)}) as f
      on conflict (job_id, action, key) do nothing`);
    await tx.execute(sql`
      update import_final_steps set state = 'pending', locked_by = null, locked_until = null
      where state in ('preparing', 'waiting', 'failed')
        and job_id in (select j.id from import_jobs as j where ${ofTarget("j", targetId)})`);
  });
  return finalStage(db, targetId);
}
