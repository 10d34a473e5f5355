import "server-only";
import { sql } from "drizzle-orm";
import type { Database } from "@/lib/db/client";
import type { EarlierMessages } from "@/lib/imports/types";
import { rowsOf } from "../shared/rows";
import { rowStateSql } from "../store/row-state";
import type { ImportJob } from "../store/jobs";

/**
 * Delta at cutover (docs/imports-jobs.md, "A newer export: only what is new"). A newer export
 * of the same community repeats everything an earlier one held, under the same dedup ids (they
 * are derived from the source's own ids). A pending message that an earlier messages import of
 * this console created in the same channel, with the same dedup id, becomes `existed`: it is
 * not sent again, so a cutover sends only what is new. What the newer export says differently
 * is not lost without a word:
 * - its text or file changed (an edit since): a warning on the row, counted; the platform keeps
 *   what was sent first;
 * - its reactions changed: the replies stage adds the new ones (it lists a message's reactions
 *   first, so the ones already there are not added again), with the platform id the earlier
 *   import found;
 * - a new reply to it: the stage finds its id as for any root.
 * Runs after the channel and sender checks (a row they refuse stays refused) and before the
 * thread plan, which treats an `existed` root as sent.
 */
export async function markEarlierMessages(db: Database, job: ImportJob): Promise<EarlierMessages> {
  const earlierJobs = rowsOf<{ id: string }>(
    await db.execute(sql`
      select id from import_jobs where resource = 'messages' and id <> ${job.id}`),
  ).map((row) => row.id);
  if (earlierJobs.length === 0) return { imported: 0, changed: 0, newReactions: 0 };

  const changedWarning = sql`jsonb_build_array(jsonb_build_object(
    'field', 'message', 'severity', 'warning',
    'message', 'Changed in the source since the import "' || e.file_name || '" sent it (an edit?): the platform keeps what was sent first.'))`;
  // Counted where the rows are: a cutover's delta may mark millions of them.
  const mark = (replies: boolean) => sql`
    with earlier as (
      select distinct on (o.resource_key, o.body ->> 'dedup_id')
        o.resource_key, o.body ->> 'dedup_id' as dedup_id, o.body, o.reactions,
        o.platform_message_id, j.file_name
      from import_rows as o join import_jobs as j on j.id = o.job_id
      where o.job_id in (select jsonb_array_elements_text(${JSON.stringify(earlierJobs)}::jsonb))
        and o.resource_key in (select distinct resource_key from import_rows
          where job_id = ${job.id} and state = 'pending')
        and ${sql.raw(rowStateSql("o"))} = 'created'
      order by o.resource_key, o.body ->> 'dedup_id', j.created_at desc
    ),
    marked as (update import_rows as r set
      state = 'existed',
      existed_before = true,
      result_message = 'Imported by the earlier import "' || e.file_name || '": not sent again.',
      platform_message_id = e.platform_message_id,
      plan_issues = case when ${changed} then r.plan_issues || ${changedWarning} else r.plan_issues end,
      thread_state = case
        when r.reactions is not null and r.reactions is distinct from e.reactions
          ${replies ? sql`and e.platform_message_id is not null` : sql``} then 'pending'
        ${
          replies
            ? sql``
            : sql`when exists (select 1 from import_rows as c where c.job_id = r.job_id
                and c.state = 'pending' and c.parent_source_id = r.source_id
                and c.resource_key = r.resource_key) then 'pending'`
        }
        else null end
    from earlier as e
    where r.job_id = ${job.id} and r.state = 'pending' and r.resource_key = e.resource_key
      and r.body ->> 'dedup_id' = e.dedup_id
      and r.parent_source_id is ${replies ? sql`not null` : sql`null`}
    returning ${changed} as changed, r.thread_state = 'pending' and r.reactions is not null
      and r.reactions is distinct from e.reactions as new_reactions)
    select count(*)::int as imported, count(*) filter (where changed)::int as changed,
      count(*) filter (where new_reactions)::int as new_reactions
    from marked`;
  type Counts = { imported: number; changed: number; new_reactions: number };
  // Replies first: a root stays to be found only for the replies still to send.
  const [replies] = rowsOf<Counts>(await db.execute(mark(true)));
  const [roots] = rowsOf<Counts>(await db.execute(mark(false)));
  return {
    imported: (replies?.imported ?? 0) + (roots?.imported ?? 0),
    changed: (replies?.changed ?? 0) + (roots?.changed ?? 0),
    newReactions: (replies?.new_reactions ?? 0) + (roots?.new_reactions ?? 0),
  };
}

/** The newer row says something else than the earlier one: its text, its file, its sender. */
const changed = sql`((r.body ->> 'message') is distinct from (e.body ->> 'message')
  or (r.body ->> 'url') is distinct from (e.body ->> 'url')
  or (r.body ->> 'user_id') is distinct from (e.body ->> 'user_id'))`;
