import "server-only";
import { sql } from "drizzle-orm";
import type { Database } from "@/lib/db/client";
import type { MessageReaction } from "@/lib/imports/reactions";
import { rowsOf } from "../shared/rows";
import { editedValues, type MessageEdit } from "./edits";
import { messagePlaceSql, rowStateSql, sentThroughPlaceSql } from "../store/row-state";

/**
 * The replies stage's rows in the database: which channels have thread work and are done
 * migrating, the roots whose platform ids are to be found, the replies to send and the
 * reactions to add. Every read is of rows with `thread_state = 'pending'` (a partial index),
 * so the stage never reads a channel's whole history.
 */

/**
 * The job's row under `r` is on the platform: created by this job, or `existed` (a newer
 * export's message an earlier import created: ../plan/earlier-messages.ts).
 */
const onPlatform = sql.raw(`${rowStateSql("r")} in ('created', 'existed')`);

/**
 * Channels of the job with thread work (or edits to make) whose messages are all migrated (none pending past the
 * channel's `sent_through` place, none waiting for a retry) and that no worker holds; all of
 * them, held or not, with `claimable: false`.
 */
export async function threadChannels(
  db: Database,
  jobId: string,
  { claimable }: { claimable: boolean },
): Promise<string[]> {
  const now = new Date().toISOString();
  const free = sql`and not (coalesce(l.locked_until > ${now}::timestamptz, false)
    or coalesce(l.next_attempt_at > ${now}::timestamptz, false))`;
  const result = await db.execute(sql`
    select c.resource_key from (select resource_key from import_rows
        where job_id = ${jobId} and thread_state = 'pending' and resource_key is not null
      union
      select resource_key from import_rows
        where job_id = ${jobId} and edit_state = 'pending' and resource_key is not null) as c
    left join import_channel_leases as l on l.job_id = ${jobId} and l.resource_key = c.resource_key
    where not exists (select 1 from import_rows as m
        where m.job_id = ${jobId} and m.resource_key = c.resource_key and m.state = 'pending'
          and m.body ? 'timestamp'
          and ${sql.raw(messagePlaceSql("m"))} > ${sql.raw(sentThroughPlaceSql("l"))})
      ${claimable ? free : sql``}
    order by c.resource_key`);
  return rowsOf<{ resource_key: string }>(result).map((row) => row.resource_key);
}

/**
 * A migrated message whose platform id the stage looks for, in this job or an earlier one;
 * `edit`: one of this job's with an edit to make.
 */
export type RootToFind = {
  jobId: string;
  rowIndex: number;
  dedupId: string;
  timestamp: number;
  edit: boolean;
};

/**
 * The channel's migrated messages whose ids are still unknown: this job's roots, reacted
 * messages and edited messages, and the roots its replies name that an earlier messages import
 * created.
 */
export async function rootsToFind(
  db: Database,
  jobId: string,
  channelUrl: string,
): Promise<RootToFind[]> {
  const result = await db.execute(sql`
    select r.job_id, r.row_index, r.body ->> 'dedup_id' as dedup_id,
      (r.body ->> 'timestamp')::bigint as ts, r.edit_state is not distinct from 'pending' as edit
    from import_rows as r
    where r.job_id = ${jobId} and r.resource_key = ${channelUrl} and r.thread_state = 'pending'
      and r.parent_source_id is null and r.platform_message_id is null and r.body ? 'timestamp'
      and ${onPlatform}
    union
    select r.job_id, r.row_index, r.body ->> 'dedup_id', (r.body ->> 'timestamp')::bigint, true
    from import_rows as r
    where r.job_id = ${jobId} and r.resource_key = ${channelUrl} and r.edit_state = 'pending'
      and r.parent_source_id is null and r.platform_message_id is null and r.body ? 'timestamp'
      and r.state = 'existed'
    union
    select o.job_id, o.row_index, o.body ->> 'dedup_id', (o.body ->> 'timestamp')::bigint, false
    from import_rows as o join import_jobs as j on j.id = o.job_id
    where o.resource_key = ${channelUrl} and o.job_id <> ${jobId} and j.resource = 'messages'
      and o.parent_source_id is null and o.platform_message_id is null and o.body ? 'timestamp'
      and ${sql.raw(rowStateSql("o"))} = 'created'
      and o.source_id in (select p.parent_source_id from import_rows as p
        where p.job_id = ${jobId} and p.resource_key = ${channelUrl} and p.thread_state = 'pending'
          and p.state = 'pending' and p.parent_source_id is not null)`);
  return rowsOf<{
    job_id: string;
    row_index: number;
    dedup_id: string;
    ts: string | number;
    edit: boolean;
  }>(result).map((row) => ({
    jobId: row.job_id,
    rowIndex: Number(row.row_index),
    dedupId: row.dedup_id,
    timestamp: Number(row.ts),
    edit: row.edit,
  }));
}

/**
 * This job's messages of the channel with thread work that were not migrated (refused, or
 * given up on): nothing can be sent after them. Marks them failed and returns how many.
 */
export async function failUnmigrated(
  db: Database,
  jobId: string,
  channelUrl: string,
): Promise<number> {
  const result = await db.execute(sql`
    update import_rows as r set thread_state = 'failed'
    where r.job_id = ${jobId} and r.resource_key = ${channelUrl} and r.thread_state = 'pending'
      and r.parent_source_id is null and r.state in ('failed', 'invalid', 'excluded')
    returning r.row_index`);
  return rowsOf(result).length;
}

/** A reply to send, with its root's platform id when it is known. */
export type ReplyToSend = {
  rowIndex: number;
  body: Record<string, unknown>;
  parentSourceId: string;
  rootMessageId: number | null;
  attempts: number;
  rateLimitedTries: number;
  hasReactions: boolean;
};

/** The channel's next replies to send, in their time order, each with its root's id. */
export async function repliesToSend(
  db: Database,
  jobId: string,
  channelUrl: string,
  limit: number,
): Promise<ReplyToSend[]> {
  const result = await db.execute(sql`
    select r.row_index, r.body, r.parent_source_id, r.attempts, r.rate_limited_tries,
      r.reactions is not null as has_reactions,
      coalesce(
        (select p.platform_message_id from import_rows as p
          where p.job_id = r.job_id and p.resource_key = r.resource_key
            and p.source_id = r.parent_source_id and p.parent_source_id is null
            and p.platform_message_id is not null limit 1),
        (select o.platform_message_id from import_rows as o join import_jobs as j on j.id = o.job_id
          where j.resource = 'messages' and o.resource_key = r.resource_key
            and o.source_id = r.parent_source_id and o.parent_source_id is null
            and o.platform_message_id is not null limit 1)) as root_id
    from import_rows as r
    where r.job_id = ${jobId} and r.resource_key = ${channelUrl} and r.thread_state = 'pending'
      and r.state = 'pending' and r.parent_source_id is not null
    order by (r.body -> 'created_at'), r.row_index
    limit ${limit}`);
  return rowsOf<{
    row_index: number;
    body: Record<string, unknown> | string;
    parent_source_id: string;
    attempts: number;
    rate_limited_tries: number;
    has_reactions: boolean;
    root_id: string | number | null;
  }>(result).map((row) => ({
    rowIndex: Number(row.row_index),
    body:
      typeof row.body === "string" ? (JSON.parse(row.body) as Record<string, unknown>) : row.body,
    parentSourceId: row.parent_source_id,
    rootMessageId: row.root_id === null ? null : Number(row.root_id),
    attempts: Number(row.attempts),
    rateLimitedTries: Number(row.rate_limited_tries),
    hasReactions: row.has_reactions,
  }));
}

/** A message of the channel, on the platform, to update to the newer export's version. */
export type EditToMake = {
  rowIndex: number;
  /** Its platform id; null while it is to be found (the rehearsal finds it in its own application). */
  messageId: number | null;
  dedupId: string | null;
  /** The fields to update, with the newer export's values. */
  wanted: MessageEdit;
  attempts: number;
  rateLimitedTries: number;
};

/**
 * The channel's edits still to make, in row order after `after`: those whose platform ids are
 * known (`knownIds`, the run's), or all of them (the rehearsal's).
 */
export async function editsToMake(
  db: Database,
  jobId: string,
  channelUrl: string,
  { limit, after = -1, knownIds }: { limit: number; after?: number; knownIds: boolean },
): Promise<EditToMake[]> {
  const result = await db.execute(sql`
    select r.row_index, r.platform_message_id, r.body ->> 'dedup_id' as dedup_id, r.body, r.edit,
      r.attempts, r.rate_limited_tries
    from import_rows as r
    where r.job_id = ${jobId} and r.resource_key = ${channelUrl} and r.edit_state = 'pending'
      and r.state = 'existed' and r.row_index > ${after}
      ${knownIds ? sql`and r.platform_message_id is not null` : sql``}
    order by r.row_index
    limit ${limit}`);
  return rowsOf<{
    row_index: number;
    platform_message_id: string | number | null;
    dedup_id: string | null;
    body: Record<string, unknown> | string;
    edit: Record<string, unknown> | string;
    attempts: number;
    rate_limited_tries: number;
  }>(result).map((row) => ({
    rowIndex: Number(row.row_index),
    messageId: row.platform_message_id === null ? null : Number(row.platform_message_id),
    dedupId: row.dedup_id,
    wanted: editedValues(parsed(row.body), Object.keys(parsed(row.edit))),
    attempts: Number(row.attempts),
    rateLimitedTries: Number(row.rate_limited_tries),
  }));
}

/** A jsonb value as the driver gives it: parsed already, or its text. */
function parsed(value: Record<string, unknown> | string): Record<string, unknown> {
  return typeof value === "string" ? (JSON.parse(value) as Record<string, unknown>) : value;
}

/** A message of the channel, on the platform, whose reactions are to be added. */
export type ReactedMessage = {
  rowIndex: number;
  messageId: number;
  reactions: MessageReaction[];
  attempts: number;
  rateLimitedTries: number;
};

/** The channel's messages with reactions still to add whose platform ids are known. */
export async function reactedMessages(
  db: Database,
  jobId: string,
  channelUrl: string,
  limit: number,
): Promise<ReactedMessage[]> {
  const result = await db.execute(sql`
    select r.row_index, r.platform_message_id, r.reactions, r.attempts, r.rate_limited_tries
    from import_rows as r
    where r.job_id = ${jobId} and r.resource_key = ${channelUrl} and r.thread_state = 'pending'
      and r.reactions is not null and r.platform_message_id is not null
      and ${onPlatform}
    order by r.row_index
    limit ${limit}`);
  return rowsOf<{
    row_index: number;
    platform_message_id: string | number;
    reactions: MessageReaction[] | string;
    attempts: number;
    rate_limited_tries: number;
  }>(result).map((row) => ({
    rowIndex: Number(row.row_index),
    messageId: Number(row.platform_message_id),
    reactions:
      typeof row.reactions === "string"
        ? (JSON.parse(row.reactions) as MessageReaction[])
        : row.reactions,
    attempts: Number(row.attempts),
    rateLimitedTries: Number(row.rate_limited_tries),
  }));
}

/**
 * The channel's rows with nothing left to do once their ids are known and their replies and
 * reactions handled: roots and messages whose reactions are all added (or, in an open
 * channel, left out). Marks them done.
 */
export async function finishFoundRoots(
  db: Database,
  jobId: string,
  channelUrl: string,
  { reactionsLeftOut }: { reactionsLeftOut: boolean },
): Promise<void> {
  await db.execute(sql`
    update import_rows as r set thread_state = 'done'
    where r.job_id = ${jobId} and r.resource_key = ${channelUrl} and r.thread_state = 'pending'
      and r.platform_message_id is not null and ${onPlatform}
      and ${reactionsLeftOut ? sql`true` : sql`r.reactions is null`}`);
}
