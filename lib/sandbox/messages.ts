import { and, asc, eq, gte } from "drizzle-orm";
import type { Database } from "@/lib/db/client";
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
 * Stores migrated messages in an open or group channel. Everything is checked first and the
 * messages go in with one INSERT, so a request is stored whole or not at all. A dedup_id
 * already stored in the channel, or repeated in the request, is stored once (the first);
 * the unique index also settles two requests racing with the same dedup_id.
 */
export async function migrateMessages(
  db: Database,
  appId: string,
  channelUrl: string,
  migration: Migration,
): Promise<void> {
  const channelType = await findChannelType(db, appId, channelUrl);
  if (!channelType) throw channelNotFound(channelUrl);
  const users = await findUsers(
    db,
    appId,
    migration.messages.map((message) => message.user_id),
  );
  const unknown = migration.messages.find((message) => !users.has(message.user_id));
  if (unknown) throw userNotFound(unknown.user_id);

  const dedupIds = new Set<string>();
  const messages = migration.messages.filter((message) => {
    if (message.dedup_id === undefined) return true;
    if (dedupIds.has(message.dedup_id)) return false;
    dedupIds.add(message.dedup_id);
    return true;
  });
  if (messages.length === 0) return;
  await db
    .insert(sandboxMessages)
    .values(
      messages.map((message) => ({
        appId,
        channelUrl,
        channelType,
        userId: message.user_id,
        messageType: message.message_type,
        message: message.message,
        customType: message.custom_type,
        data: message.data,
        dedupId: message.dedup_id ?? null,
        timestamp: message.timestamp,
      })),
    )
    .onConflictDoNothing();
}

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
