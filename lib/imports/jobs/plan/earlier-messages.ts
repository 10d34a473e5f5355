import "server-only";
import { sql } from "drizzle-orm";
import type { Database } from "@/lib/db/client";
import type { EarlierMessages } from "@/lib/imports/types";
import { EDITABLE_FIELDS } from "../replies/edits";
import { rowsOf } from "../shared/rows";
import { rowStateSql } from "../store/row-state";
import type { ImportJob } from "../store/jobs";

/**
 * Delta at cutover (docs/imports-jobs.md, "A newer export: only what is new"). A newer export
 * of the same community repeats everything an earlier one held, under the same dedup ids (they
 * are derived from the source's own ids). A pending message that an earlier messages import of
 * this console created in the same channel, with the same dedup id, becomes `existed`: it is
 * not sent again, so a cutover sends only what is new. What the newer export says differently
 * is carried, or named:
 * - its text, mentions, custom type or data changed (an edit since): the row's `edit` keeps
 *   what the earlier import sent of those, and the replies stage updates the platform's message
 *   (`../replies/thread-stage.ts`), finding its id as it finds a root's;
 * - its sender, kind or file changed, which the platform's update API cannot change: a warning
 *   on the row, counted; the platform keeps what was sent first;
 * - its reactions changed, or the earlier import did not carry them all (refused, or cancelled
 *   first): the replies stage adds the new ones (it lists a message's reactions first, so the
 *   ones already there are not added again), with the platform id the earlier import found;
 * - a new reply to it: the stage finds its id as for any root.
 * The earlier version is the newest an earlier import put there: a row it created, or one a
 * later import updated (`edit_state` done). Runs after the channel and sender checks (a row
 * they refuse stays refused) and before the thread plan, which treats an `existed` root as sent.
 */
export async function markEarlierMessages(db: Database, job: ImportJob): Promise<EarlierMessages> {
  const earlierJobs = rowsOf<{ id: string }>(
    await db.execute(sql`
      select id from import_jobs where resource = 'messages' and id <> ${job.id}`),
  ).map((row) => row.id);
  if (earlierJobs.length === 0) return { imported: 0, changed: 0, keptAsSent: 0, newReactions: 0 };

  const keptWarning = sql`jsonb_build_array(jsonb_build_object(
    'field', 'message', 'severity', 'warning',
    'message', 'Changed in the source since the import "' || e.file_name || '" sent it (' ||
      case when e.uneditable then 'its sender, kind or file' else 'a reply whose id on the platform is not known' end ||
      '): the platform''s update cannot carry that, so it keeps what was sent first.'))`;
  // Counted where the rows are: a cutover's delta may mark millions of them.
  // Reactions the earlier import did not carry (its replies stage refused them, or a cancel
  // stopped it first) are still to add, as new ones are: the stage adds only those not there.
  const reactionsToAdd = sql`r.reactions is not null
    and (r.reactions is distinct from e.reactions or coalesce(e.thread_state, 'done') <> 'done')`;
  const mark = (replies: boolean) => {
    // A reply's id is known once sent; a root's is found by the replies stage.
    const carried = sql`(not e.uneditable and e.edit <> '{}'::jsonb ${replies ? sql`and e.platform_message_id is not null` : sql``})`;
    return sql`
    with earlier as (
      select distinct on (o.resource_key, o.body ->> 'dedup_id')
        o.resource_key, o.body ->> 'dedup_id' as dedup_id, o.body, o.reactions,
        o.platform_message_id, o.thread_state, j.file_name
      from import_rows as o join import_jobs as j on j.id = o.job_id
      where o.job_id in (select jsonb_array_elements_text(${JSON.stringify(earlierJobs)}::jsonb))
        and o.resource_key in (select distinct resource_key from import_rows
          where job_id = ${job.id} and state = 'pending')
        and (${sql.raw(rowStateSql("o"))} = 'created'
          or (o.state = 'existed' and o.edit_state = 'done'))
      order by o.resource_key, o.body ->> 'dedup_id', j.created_at desc
    ),
    pairs as (
      select r.row_index, o.reactions, o.platform_message_id, o.thread_state, o.file_name,
        ${editSql} as edit, ${uneditableSql} as uneditable
      from import_rows as r join earlier as o
        on r.resource_key = o.resource_key and r.body ->> 'dedup_id' = o.dedup_id
      where r.job_id = ${job.id} and r.state = 'pending'
        and r.parent_source_id is ${replies ? sql`not null` : sql`null`}
    ),
    marked as (update import_rows as r set
      state = 'existed',
      existed_before = true,
      result_message = 'Imported by the earlier import "' || e.file_name || '": not sent again' ||
        case when ${carried}
          then '; changed in the source since (an edit), so the platform''s message is updated to this version.'
          else '.' end,
      platform_message_id = e.platform_message_id,
      edit = case when ${carried} then e.edit end,
      edit_state = case when ${carried} then 'pending' end,
      plan_issues = case when (e.uneditable or e.edit <> '{}'::jsonb) and not ${carried}
        then r.plan_issues || ${keptWarning} else r.plan_issues end,
      thread_state = case
        when ${reactionsToAdd}
          ${replies ? sql`and e.platform_message_id is not null` : sql``} then 'pending'
        ${
          replies
            ? sql``
            : // Uncorrelated, so hashed once: a subquery per row read its channel's rows each time.
              sql`when (r.resource_key, r.source_id) in (select c.resource_key, c.parent_source_id
                from import_rows as c where c.job_id = ${job.id} and c.state = 'pending'
                  and c.parent_source_id is not null) then 'pending'`
        }
        else null end
    from pairs as e
    where r.job_id = ${job.id} and r.row_index = e.row_index
    returning ${carried} as edited, (e.uneditable or e.edit <> '{}'::jsonb) and not ${carried} as kept,
      r.thread_state = 'pending' and ${reactionsToAdd} as new_reactions)
    select count(*)::int as imported, count(*) filter (where edited)::int as changed,
      count(*) filter (where kept)::int as kept, count(*) filter (where new_reactions)::int as new_reactions
    from marked`;
  };
  type Counts = { imported: number; changed: number; kept: number; new_reactions: number };
  // Replies first: a root stays to be found only for the replies still to send.
  const [replies] = rowsOf<Counts>(await db.execute(mark(true)));
  const [roots] = rowsOf<Counts>(await db.execute(mark(false)));
  return {
    imported: (replies?.imported ?? 0) + (roots?.imported ?? 0),
    changed: (replies?.changed ?? 0) + (roots?.changed ?? 0),
    keptAsSent: (replies?.kept ?? 0) + (roots?.kept ?? 0),
    newReactions: (replies?.new_reactions ?? 0) + (roots?.new_reactions ?? 0),
  };
}

/** A field of the body of the row under `alias`, as the platform shows it when absent. */
function field(alias: string, name: string) {
  const absent = name === "mentioned_user_ids" ? "[]" : '""';
  return sql.raw(`coalesce(${alias}.body -> '${name}', '${absent}'::jsonb)`);
}

/**
 * The fields the update API changes that the newer row (`r`) says otherwise than the earlier
 * one (`o`), with the earlier values (what the platform holds): `{}` when none differs.
 */
const editSql = sql`jsonb_strip_nulls(jsonb_build_object(${sql.join(
  EDITABLE_FIELDS.map(
    (name) =>
      sql`${name}::text, case when ${field("r", name)} is distinct from ${field("o", name)} then ${field("o", name)} end`,
  ),
  sql`, `,
)}))`;

/** The newer row changed what the platform's update cannot change: its sender, kind or file. */
const uneditableSql = sql`(${sql.join(
  ["user_id", "message_type", "url", "file_name", "file_type", "file_size", "custom_field"].map(
    (name) => sql`(r.body -> ${name}::text) is distinct from (o.body -> ${name}::text)`,
  ),
  sql` or `,
)})`;
