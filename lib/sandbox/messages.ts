import { and, asc, eq, gte } from "drizzle-orm";
import type { Database } from "@/lib/db/client";
import { preparedQuery } from "@/lib/db/raw";
import { sandboxMessages } from "@/lib/db/schema";
import type { MessageListQuery, MessageResource, Migration } from "@/lib/schemas/messages";
import {
  channelNotFound,
  findChannelType,
  findUsers,
  userNotFound,
  type ChannelType,
} from "./channels";

/**
 * Stores migrated messages in an open or group channel with one statement: it finds the
 * channel's type, checks every sender, and inserts only when all are there, so a request is
 * stored whole or not at all. A dedup_id already stored in the channel, or repeated in the
 * request, is stored once (the first); the unique index also settles two requests racing
 * with the same dedup_id.
 */
export async function migrateMessages(
  db: Database,
  appId: string,
  channelUrl: string,
  migration: Migration,
): Promise<void> {
  const dedupIds = new Set<string>();
  const rows = migration.messages.map((message, index) => {
    const first = message.dedup_id === undefined || !dedupIds.has(message.dedup_id);
    if (message.dedup_id !== undefined) dedupIds.add(message.dedup_id);
    return {
      ord: index,
      keep: first,
      user_id: message.user_id,
      message_type: message.message_type,
      message: message.message,
      custom_type: message.custom_type,
      data: message.data,
      dedup_id: message.dedup_id ?? null,
      ts: message.timestamp,
    };
  });
  const [result] = await preparedQuery<{ channel_type: string | null; unknown_ord: number | null }>(
    db,
    "sandbox_migrate_messages",
    migrateMessagesSql,
    [appId, channelUrl, JSON.stringify(rows)],
  );
  if (!result?.channel_type) throw channelNotFound(channelUrl);
  if (result.unknown_ord !== null) throw userNotFound(rows[result.unknown_ord]!.user_id);
}

// Messages travel as one JSON parameter, so the text (and PostgreSQL's prepared plan) is the
// same for 1 or 100 messages.
const migrateMessagesSql = `with msgs as (
  select * from json_to_recordset($3::json) as m(ord int, keep boolean, user_id text,
    message_type text, message text, custom_type text, data text, dedup_id text, ts bigint)
), channel as (
  select 'open'::text as channel_type from sandbox_open_channels where app_id = $1 and channel_url = $2
  union all
  select 'group'::text from sandbox_group_channels where app_id = $1 and channel_url = $2
  limit 1
), missing as (
  select min(m.ord) as ord from msgs m
  where not exists (select 1 from sandbox_users u where u.app_id = $1 and u.user_id = m.user_id)
), stored as (
  insert into sandbox_messages
    (app_id, channel_url, channel_type, user_id, message_type, message, custom_type, data, dedup_id, timestamp)
  select $1, $2, c.channel_type, m.user_id, m.message_type, m.message, m.custom_type, m.data, m.dedup_id, m.ts
  from msgs m cross join channel c
  where m.keep and (select ord from missing) is null
  order by m.ord
  on conflict do nothing
  returning 1
)
select (select channel_type from channel) as channel_type, (select ord from missing) as unknown_ord,
  (select count(*) from stored) as stored`;

/** The channel's messages sent at or after `message_ts`, oldest first. */
export async function listMessages(
  db: Database,
  appId: string,
  channelType: ChannelType,
  channelUrl: string,
  query: MessageListQuery,
): Promise<{ messages: MessageResource[] }> {
  if ((await findChannelType(db, appId, channelUrl)) !== channelType)
    throw channelNotFound(channelUrl);
  const rows = await db
    .select()
    .from(sandboxMessages)
    .where(
      and(
        eq(sandboxMessages.appId, appId),
        eq(sandboxMessages.channelUrl, channelUrl),
        gte(sandboxMessages.timestamp, query.message_ts),
      ),
    )
    .orderBy(asc(sandboxMessages.timestamp), asc(sandboxMessages.messageId))
    .limit(query.next_limit);
  const users = await findUsers(
    db,
    appId,
    rows.map((row) => row.userId),
  );
  return {
    messages: rows.map((row) => {
      const user = users.get(row.userId);
      return {
        message_id: row.messageId,
        type: row.messageType,
        message: row.message,
        custom_type: row.customType,
        data: row.data,
        created_at: row.timestamp,
        channel_url: row.channelUrl,
        channel_type: row.channelType,
        // A sender deleted since the migration keeps their id; the profile is gone.
        user: {
          user_id: row.userId,
          nickname: user?.nickname ?? "",
          profile_url: user?.profileUrl ?? "",
        },
      };
    }),
  };
}
