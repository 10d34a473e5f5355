import "server-only";
import { sql } from "drizzle-orm";
import type { Database } from "@/lib/db/client";
import { rowsOf } from "../shared/rows";

/**
 * The replies stage of a messages job: replies sent, reactions added and a newer export's
 * edits made, of those planned.
 */
export type ThreadProgress = {
  replies: number;
  repliesDone: number;
  reactions: number;
  reactionsDone: number;
  edits: number;
  editsDone: number;
};

/**
 * Each job's replies stage as it stands, for the jobs with thread work (the others are not in
 * the map): the rows the plan gave thread work (`thread_state` set), their replies and
 * reactions, and of those the replies sent (`created`) and the reactions of rows whose work is
 * done; and the rows with an edit to make (`edit_state` set), and of those the ones made. A row
 * whose reactions were refused is not done: it counts among the rows with replies or reactions
 * not carried; one whose update was refused is failed.
 */
export async function threadProgress(
  db: Database,
  jobIds: readonly string[],
): Promise<Map<string, ThreadProgress>> {
  const map = new Map<string, ThreadProgress>();
  if (jobIds.length === 0) return map;
  const rows = rowsOf<{
    job_id: string;
    replies: number;
    replies_done: number;
    reactions: number;
    reactions_done: number;
    edits: number;
    edits_done: number;
  }>(
    await db.execute(sql`
      select job_id,
        -- A reply an earlier import sent (existed) is not sent again: only its new reactions
        -- or its edit.
        count(*) filter (where parent_source_id is not null and thread_state is not null
          and not existed_before)::int as replies,
        count(*) filter (where parent_source_id is not null and thread_state is not null
          and state = 'created')::int as replies_done,
        coalesce(sum(reactions) filter (where thread_state is not null), 0)::int as reactions,
        coalesce(sum(reactions) filter (where thread_state = 'done'), 0)::int as reactions_done,
        count(*) filter (where edit_state is not null)::int as edits,
        count(*) filter (where edit_state = 'done')::int as edits_done
      from (select job_id, parent_source_id, state, thread_state, existed_before, edit_state,
          (select count(*) from jsonb_array_elements(coalesce(reactions, '[]'::jsonb)) as e,
            jsonb_array_elements(e -> 'user_ids') as u) as reactions
        from import_rows
        where job_id in (select jsonb_array_elements_text(${JSON.stringify(jobIds)}::jsonb))
          and (thread_state is not null or edit_state is not null)) as t
      group by job_id`),
  );
  for (const row of rows) {
    const progress = {
      replies: row.replies,
      repliesDone: row.replies_done,
      reactions: row.reactions,
      reactionsDone: row.reactions_done,
      edits: row.edits,
      editsDone: row.edits_done,
    };
    if (progress.replies + progress.reactions + progress.edits > 0) map.set(row.job_id, progress);
  }
  return map;
}
