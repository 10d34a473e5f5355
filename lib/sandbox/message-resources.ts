import { and, asc, inArray, isNotNull, sql } from "drizzle-orm";
import type { Database } from "@/lib/db/client";
import { sandboxMessageReactions, sandboxMessages } from "@/lib/db/schema";
import { sortedMetaarraySchema } from "@/lib/schemas/message-resource";
import {
  migratedFileSchema,
  type MessageDetails,
  type MessageResource,
  type ThreadInfo,
} from "@/lib/schemas/messages";
import { userIdsSchema } from "@/lib/schemas/sandbox-storage";
import { findUsers } from "./lookups";

export type MessageRow = typeof sandboxMessages.$inferSelect;
type MessageUser = NonNullable<MessageResource["user"]>;

/**
 * A stored message's JSON columns, parsed where it becomes a resource: a page of at most 200
 * messages, a few tenths of a microsecond each (the migration's bulk writes never read them).
 */
function parsedMessage(row: MessageRow): MessageRow {
  return {
    ...row,
    file: row.file === null ? null : migratedFileSchema.parse(row.file),
    mentionedUserIds: userIdsSchema.parse(row.mentionedUserIds),
    sortedMetaarray: sortedMetaarraySchema.parse(row.sortedMetaarray),
  };
}

/** No `include_*`: what a plain read answers. */
export const noDetails: MessageDetails = {
  include_parent_message_info: false,
  include_thread_info: false,
  include_reactions: false,
  with_sorted_meta_array: false,
};

/** Users who replied most, as `thread_info.most_replies` lists them. */
const MOST_REPLIES_MAX = 10;

/**
 * Stored messages as the platform answers them, with what `details` asks for: each root's
 * thread, each reply's root, each message's reactions. Senders, mentioned users and repliers are
 * read from the users at answer time, as the platform does; a user deleted since keeps the id.
 */
export async function messageResources(
  db: Database,
  appId: string,
  stored: MessageRow[],
  details: MessageDetails,
): Promise<MessageResource[]> {
  if (stored.length === 0) return [];
  const rows = stored.map(parsedMessage);
  const roots = rows.filter((row) => row.parentMessageId === null).map((row) => row.messageId);
  const parentIds = [
    ...new Set(rows.flatMap((row) => (row.parentMessageId === null ? [] : [row.parentMessageId]))),
  ];
  const [threads, parents, reactions] = await Promise.all([
    details.include_thread_info ? threadsOf(db, roots) : new Map<number, ThreadCounts>(),
    details.include_parent_message_info && parentIds.length > 0
      ? db.select().from(sandboxMessages).where(inArray(sandboxMessages.messageId, parentIds))
      : ([] as MessageRow[]),
    details.include_reactions
      ? reactionsOf(
          db,
          rows.map((row) => row.messageId),
        )
      : new Map(),
  ]);
  const parentById = new Map(parents.map((row) => [row.messageId, parsedMessage(row)]));
  const users = await findUsers(db, appId, [
    ...rows.flatMap(namedUsers),
    ...parents.flatMap((row) => (row.userId === null ? [] : [row.userId])),
    ...[...threads.values()].flatMap((thread) => thread.repliers.map(([userId]) => userId)),
  ]);
  const userOf = (userId: string): MessageUser => {
    const user = users.get(userId);
    return { user_id: userId, nickname: user?.nickname ?? "", profile_url: user?.profileUrl ?? "" };
  };

  return rows.map((row) => {
    const resource = toMessageResource(row, userOf, details.with_sorted_meta_array);
    if (details.include_thread_info && row.parentMessageId === null) {
      resource.thread_info = toThreadInfo(threads.get(row.messageId), userOf);
    }
    const parent = row.parentMessageId === null ? undefined : parentById.get(row.parentMessageId);
    if (parent) {
      resource.parent_message_info = {
        message: parent.message,
        type: parent.messageType,
        custom_type: parent.customType,
        ts: parent.timestamp,
        ...(parent.userId !== null && { user: userOf(parent.userId) }),
        ...(parent.file && {
          file: {
            url: parent.file.url,
            file_name: parent.file.name,
            file_type: parent.file.type,
            file_size: parent.file.size,
          },
        }),
      };
    }
    if (details.include_reactions) resource.reactions = reactions.get(row.messageId) ?? [];
    return resource;
  });
}

function namedUsers(row: MessageRow): string[] {
  return [...(row.userId === null ? [] : [row.userId]), ...row.mentionedUserIds];
}

export function toMessageResource(
  row: MessageRow,
  userOf: (userId: string) => MessageUser,
  withSortedMetaarray: boolean,
): MessageResource {
  return {
    message_id: row.messageId,
    type: row.messageType,
    message: row.message,
    custom_type: row.customType,
    data: row.data,
    created_at: row.timestamp,
    updated_at: row.updatedAt,
    channel_url: row.channelUrl,
    channel_type: row.channelType,
    mention_type: "users",
    mentioned_users: row.mentionedUserIds.map(userOf),
    is_removed: false,
    silent: row.isSilent,
    message_survival_seconds: -1,
    parent_message_id: row.parentMessageId ?? 0,
    is_reply_to_channel: row.isReplyToChannel,
    ...(row.userId !== null && { user: userOf(row.userId) }),
    ...(row.file && {
      file: {
        url: row.file.url,
        name: row.file.name,
        type: row.file.type,
        size: row.file.size,
        data: row.file.data,
      },
      thumbnails: row.file.thumbnails,
      require_auth: row.file.require_auth,
    }),
    ...(withSortedMetaarray && { sorted_metaarray: row.sortedMetaarray }),
  };
}

type ThreadCounts = {
  replyCount: number;
  lastRepliedAt: number;
  /** [user_id, replies], most replies first. */
  repliers: Array<[string, number]>;
};

/** Each root's replies, counted per replier by one grouped read of the thread index. */
async function threadsOf(db: Database, rootIds: number[]): Promise<Map<number, ThreadCounts>> {
  const threads = new Map<number, ThreadCounts>();
  if (rootIds.length === 0) return threads;
  const { parentMessageId, userId, timestamp } = sandboxMessages;
  const rows = await db
    .select({
      rootId: parentMessageId,
      userId,
      replies: sql<number>`count(*)::int`,
      lastAt: sql<string>`max(${timestamp})::text`,
    })
    .from(sandboxMessages)
    .where(and(isNotNull(parentMessageId), inArray(parentMessageId, rootIds)))
    .groupBy(parentMessageId, userId);
  for (const row of rows) {
    const thread = threads.get(row.rootId!) ?? { replyCount: 0, lastRepliedAt: 0, repliers: [] };
    thread.replyCount += row.replies;
    thread.lastRepliedAt = Math.max(thread.lastRepliedAt, Number(row.lastAt));
    if (row.userId !== null) thread.repliers.push([row.userId, row.replies]);
    threads.set(row.rootId!, thread);
  }
  for (const thread of threads.values()) {
    thread.repliers.sort(([a, m], [b, n]) => n - m || (a < b ? -1 : a > b ? 1 : 0));
  }
  return threads;
}

function toThreadInfo(
  thread: ThreadCounts | undefined,
  userOf: (userId: string) => MessageUser,
): ThreadInfo {
  return {
    reply_count: thread?.replyCount ?? 0,
    last_replied_at: thread?.lastRepliedAt ?? 0,
    most_replies: (thread?.repliers ?? [])
      .slice(0, MOST_REPLIES_MAX)
      .map(([userId]) => userOf(userId)),
    updated_at: thread?.lastRepliedAt ?? 0,
  };
}

type ReactionSummary = NonNullable<MessageResource["reactions"]>[number];

/** Each message's reactions by key, keys and users in the order they were added. */
export async function reactionsOf(
  db: Database,
  messageIds: number[],
): Promise<Map<number, ReactionSummary[]>> {
  const byMessage = new Map<number, ReactionSummary[]>();
  if (messageIds.length === 0) return byMessage;
  const rows = await db
    .select()
    .from(sandboxMessageReactions)
    .where(inArray(sandboxMessageReactions.messageId, messageIds))
    .orderBy(asc(sandboxMessageReactions.seq));
  for (const row of rows) {
    const summaries = byMessage.get(row.messageId) ?? [];
    let summary = summaries.find((candidate) => candidate.key === row.reaction);
    if (!summary) {
      summary = { key: row.reaction, user_ids: [], updated_at: 0 };
      summaries.push(summary);
    }
    summary.user_ids.push(row.userId);
    summary.updated_at = Math.max(summary.updated_at, row.updatedAt);
    byMessage.set(row.messageId, summaries);
  }
  return byMessage;
}
