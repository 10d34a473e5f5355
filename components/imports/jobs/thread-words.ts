import type { JobProgress } from "@/lib/imports/jobs";

const n = (value: number) => value.toLocaleString("en");

/**
 * A messages import's replies stage in words, as the job page and the migration overview show
 * it: replies sent, reactions added and a newer export's edited messages updated, of those
 * planned. Pure, for server and client alike.
 */
export function threadWords({
  replies,
  repliesDone,
  reactions,
  reactionsDone,
  edits = 0,
  editsDone = 0,
}: NonNullable<JobProgress["threads"]>): string {
  const parts: string[] = [];
  if (replies > 0)
    parts.push(`${n(repliesDone)} of ${n(replies)} ${replies === 1 ? "reply" : "replies"} sent`);
  if (reactions > 0)
    parts.push(
      `${n(reactionsDone)} of ${n(reactions)} ${reactions === 1 ? "reaction" : "reactions"} added`,
    );
  if (edits > 0)
    parts.push(
      `${n(editsDone)} of ${n(edits)} edited ${edits === 1 ? "message" : "messages"} updated`,
    );
  return parts.join(", ");
}
