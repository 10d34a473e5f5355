import "server-only";
import { sql } from "drizzle-orm";
import type { Database } from "@/lib/db/client";
import { columnTransformsSchema } from "@/lib/imports/transforms";
import { requestPlan } from "../plan/plan";
import { rowsOf } from "../shared/rows";
import { passedSql } from "../store/row-state";
import { ImportJobError, requireJob, type ImportJob } from "../store/jobs";
import { createJob } from "../store/upload";

/**
 * "New job from the rows not done" of a cancelled or completed job: the rows never sent and
 * the rows the platform refused start again as `pending`; rows created whose follow-ups
 * failed (or were cut short) come as `created` with their follow-ups to send, so the new job
 * finishes them instead of skipping them as existing. Rows keep their index, so their row
 * numbers are still the lines of the original file. Invalid rows are left out: they need a
 * fix in the file first; so are the rows excluded in the preview, which were left out on
 * purpose (the failures CSV holds both, to upload again). The new job's plan is asked for at once.
 */
export async function jobFromRowsNotDone(db: Database, jobId: string): Promise<ImportJob> {
  const source = await requireJob(db, jobId);
  if (source.status !== "cancelled" && source.status !== "completed") {
    throw new ImportJobError(
      "A new job from the rows not done can be made once this import has been cancelled or has finished.",
    );
  }
  // A pending message its channel's sending passed is created, with no follow-ups.
  // A newer export's edit not made (cancelled) is taken again: its plan finds the edit anew;
  // so is a sent message whose replies or reactions a cancel left uncarried.
  const notDone = sql`job_id = ${jobId} and (state = 'failed'
    or (state = 'pending' and not ${sql.raw(passedSql("import_rows"))})
    or (state = 'created' and follow_up_state in ('pending', 'failed'))
    or (state = 'existed' and edit_state = 'pending')
    or (state in ('pending', 'created', 'existed') and thread_state = 'pending'))`;
  // A row created with follow-ups to send comes as created; a message whose replies or
  // reactions are still to carry comes as pending, and its plan finds it sent by this import
  // (earlier-messages.ts), so only what is missing is sent.
  const createdAgain = sql`(state = 'created' and thread_state is distinct from 'pending')`;
  const [counted] = rowsOf<{ n: number }>(
    await db.execute(sql`select count(*)::int as n from import_rows where ${notDone}`),
  );
  const total = counted?.n ?? 0;
  if (total === 0) {
    throw new ImportJobError(
      "Every row of this import that could be sent reached its final state; there is nothing to run again. Rows invalid in the file or excluded in the preview, and messages whose replies or reactions were not carried, are in the failures CSV, to be fixed or decided on first.",
    );
  }
  const job = await createJob(db, {
    // The rows were meant for the source's target, not for the one chosen now.
    targetId: source.targetId ?? undefined,
    resource: source.resource,
    fileName: source.fileName.includes("(rows not done)")
      ? source.fileName
      : `${source.fileName} (rows not done)`,
    columns: source.columns,
    mapping: source.mapping,
    transforms: columnTransformsSchema.parse(source.transforms),
    options: source.options,
    totalRows: total,
    firstRow: source.firstRow,
  });
  await db.execute(sql`
    insert into import_rows (job_id, row_index, values, excluded, state, resource_key, source_id, body, follow_ups, follow_up_state, issues, result_message, parent_source_id, reactions)
    select ${job.id}, row_index, values, false,
      case when ${createdAgain} then 'created' else 'pending' end,
      resource_key, source_id, body, follow_ups,
      case when ${createdAgain} then 'pending' else null end,
      issues,
      case when ${createdAgain} then ${`Created by the import ${jobId}; its follow-ups are sent again.`} else null end,
      -- A message's thread root and reactions as uploaded: its plan checks them anew.
      parent_source_id, coalesce(reactions_as_uploaded, reactions)
    from import_rows where ${notDone}`);
  return requestPlan(db, job.id);
}
