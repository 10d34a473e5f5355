import "server-only";
import { sql } from "drizzle-orm";
import type { Database } from "@/lib/db/client";
import { rowsOf } from "../shared/rows";

/** The replies stage of a messages job: replies sent and reactions added, of those planned. */
export type ThreadProgress = {
  replies: number;
  repliesDone: number;
  reactions: number;
  reactionsDone: number;
};

/**
 * Each job's replies stage as it stands, for the jobs with thread work (the others are not in
 * the map): the rows the plan gave thread work (`thread_state` set), their replies and
 * reactions, and of those the replies sent (`created`) and the reactions of rows whose work is
 * done. A row whose reactions were refused is not done: it counts among the rows with replies
 * or reactions not carried.
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
  }>(
    await db.execute(sql`
      select job_id,
        -- A reply an earlier import sent (existed) is not sent again: only its new reactions.
        count(*) filter (where parent_source_id is not null and state <> 'existed')::int as replies,
        count(*) filter (where parent_source_id is not null and state = 'created')::int as replies_done,
        coalesce(sum(reactions), 0)::int as reactions,
        coalesce(sum(reactions) filter (where thread_state = 'done'), 0)::int as reactions_done
      from (select job_id, parent_source_id, state, thread_state,
          (select count(*) from jsonb_array_elements(coalesce(reactions, '[]'::jsonb)) as e,
            jsonb_array_elements(e -> 'user_ids') as u) as reactions
        from import_rows
        where job_id in (select jsonb_array_elements_text(${JSON.stringify(jobIds)}::jsonb))
          and thread_state is not null) as t
      group by job_id`),
  );
  for (const row of rows) {
    const progress = {
      replies: row.replies,
      repliesDone: row.replies_done,
      reactions: row.reactions,
      reactionsDone: row.reactions_done,
    };
    if (progress.replies + progress.reactions > 0) map.set(row.job_id, progress);
  }
  return map;
}
