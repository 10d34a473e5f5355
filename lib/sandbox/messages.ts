import { and, asc, desc, eq, gt, gte, inArray, lt, or, type SQL } from "drizzle-orm";
import type { Database } from "@/lib/db/client";
import { preparedQuery } from "@/lib/db/raw";
import { sandboxMessages } from "@/lib/db/schema";
import {
  messageSender,
  type MessageListQuery,
  type MessageListResponse,
  type MessageResource,
  type MigratedMessage,
  type Migration,
} from "@/lib/schemas/messages";
import {
  channelNotFound,
  findChannelType,
  findUsers,
  userNotFound,
  type ChannelType,
} from "./channels";
import { ErrorCode, SandboxError } from "./errors";

type MessageRow = typeof sandboxMessages.$inferSelect;

/**
 * Stores migrated messages in an open or group channel, checked and written by one statement:
 * the channel and every sender are looked up in it, and the messages go in only when all are
 * found, so a request is stored whole or not at all. A dedup_id already stored in the
 * channel, or repeated in the request, is stored once (the first); the unique index also
 * settles two requests racing with the same dedup_id.
 */
export async function migrateMessages(
  db: Database,
  appId: string,
  channelUrl: string,
  migration: Migration,
): Promise<void> {
  const dedupIds = new Set<string>();
  const messages = migration.messages.filter((message) => {
    if (message.dedup_id === undefined) return true;
    if (dedupIds.has(message.dedup_id)) return false;
    dedupIds.add(message.dedup_id);
    return true;
  });
  const [outcome] = await preparedQuery<{
    channel_type: ChannelType | null;
    missing: string[] | null;
  }>(db, "sandbox_migrate_messages", migrateMessagesSql, [
    appId,
    channelUrl,
    JSON.stringify(messages.map(toMessageRecord)),
  ]);
  if (!outcome?.channel_type) throw channelNotFound(channelUrl);
  if (outcome.missing) {
    const missing = new Set(outcome.missing);
    // The first unknown sender in the request's order, as a check message by message would find.
    throw userNotFound(
      messages.map(messageSender).find((userId) => userId !== undefined && missing.has(userId))!,
    );
  }
}

/** One message as a row of the statement's JSON parameter (the columns of sandbox_messages). */
function toMessageRecord(message: MigratedMessage) {
  const file = message.message_type === "FILE";
  return {
    user_id: messageSender(message) ?? null,
    message_type: message.message_type,
    message: file ? "" : message.message,
    custom_type: message.custom_type,
    data: file ? "" : message.data,
    file: file
      ? {
          url: message.url,
          name: message.file_name,
          type: message.file_type,
          size: message.file_size,
          data: message.custom_field,
          thumbnails: message.thumbnails,
          require_auth: message.require_auth,
        }
      : null,
    mentioned_user_ids: message.mentioned_user_ids,
    sorted_metaarray: message.sorted_metaarray,
    is_silent: message.message_type === "ADMM" && message.is_silent,
    dedup_id: message.dedup_id ?? null,
    timestamp: message.timestamp,
  } satisfies Record<string, unknown>;
}

// The channel, the senders and the insert in one round trip; the text never changes with the
// number of messages (they travel as one JSON parameter), so PostgreSQL plans it once per
// connection. Rows keep the request's order (message_id breaks ties between equal timestamps).
// The JSON columns are read as text and cast: json_to_recordset filling jsonb columns itself
// costs several times more per row (measured on PostgreSQL 15).
const migrateMessagesSql = `with channel as (
  select 'open'::text as channel_type from sandbox_open_channels where app_id = $1 and channel_url = $2
  union all
  select 'group'::text from sandbox_group_channels where app_id = $1 and channel_url = $2
  limit 1
), input as (
  select * from rows from (json_to_recordset($3::json) as (user_id text, message_type text,
    message text, custom_type text, data text, file text, mentioned_user_ids text,
    sorted_metaarray text, is_silent boolean, dedup_id text, "timestamp" bigint))
    with ordinality as r(user_id, message_type, message, custom_type, data, file,
      mentioned_user_ids, sorted_metaarray, is_silent, dedup_id, "timestamp", n)
), missing as (
  -- One index probe per distinct sender: a join here may be planned as a scan of every user
  -- of the application (PGlite never analyzes; a generic plan may not either).
  select s.user_id
  from (select distinct user_id from input where user_id is not null) as s
  left join lateral (
    select true as found from sandbox_users as u
    where u.app_id = $1 and u.user_id = s.user_id limit 1
  ) as f on true
  where f.found is null
), stored as (
  insert into sandbox_messages (app_id, channel_url, channel_type, user_id, message_type, message,
    custom_type, data, file, mentioned_user_ids, sorted_metaarray, is_silent, dedup_id, "timestamp")
  select $1, $2, c.channel_type, i.user_id, i.message_type, i.message, i.custom_type, i.data,
    i.file::jsonb, i.mentioned_user_ids::jsonb, i.sorted_metaarray::jsonb, i.is_silent,
    i.dedup_id, i."timestamp"
  from input i cross join channel c
  where not exists (select 1 from missing)
  order by i.n
  on conflict do nothing
  returning 1
)
select (select channel_type from channel) as channel_type,
  (select array_agg(user_id) from missing) as missing,
  (select count(*) from stored) as stored`;

/**
 * The channel's messages around a point in time (`message_ts`) or a message (`message_id`):
 * up to `prev_limit` before it and `next_limit` after it, in (created_at, message_id) order.
 * Messages sent exactly at `message_ts` (or the message itself) count among the next ones
 * and are left out with `include=false`.
 */
export async function listMessages(
  db: Database,
  appId: string,
  channelType: ChannelType,
  channelUrl: string,
  query: MessageListQuery,
): Promise<MessageListResponse> {
  if ((await findChannelType(db, appId, channelUrl)) !== channelType)
    throw channelNotFound(channelUrl);

  const filters: SQL[] = [
    eq(sandboxMessages.appId, appId),
    eq(sandboxMessages.channelUrl, channelUrl),
  ];
  if (query.message_type) filters.push(eq(sandboxMessages.messageType, query.message_type));
  const senderIds = [
    ...(query.sender_id === undefined ? [] : [query.sender_id]),
    ...(query.sender_ids ?? []),
  ];
  if (senderIds.length > 0) filters.push(inArray(sandboxMessages.userId, senderIds));
  if (query.custom_types !== undefined && query.custom_types !== "*") {
    filters.push(inArray(sandboxMessages.customType, query.custom_types.split(",")));
  }

  const { before, after } = await referencePoint(db, appId, channelUrl, query);
  const select = (where: SQL | undefined, order: "asc" | "desc", limit: number) =>
    limit === 0
      ? Promise.resolve([] as MessageRow[])
      : db
          .select()
          .from(sandboxMessages)
          .where(and(...filters, where))
          .orderBy(
            ...(order === "asc"
              ? [asc(sandboxMessages.timestamp), asc(sandboxMessages.messageId)]
              : [desc(sandboxMessages.timestamp), desc(sandboxMessages.messageId)]),
          )
          .limit(limit);
  const [previous, next] = await Promise.all([
    select(before, "desc", query.prev_limit),
    select(after, "asc", query.next_limit),
  ]);
  const rows = [...previous.reverse(), ...next];
  if (query.reverse) rows.reverse();

  const users = await findUsers(
    db,
    appId,
    rows.flatMap((row) => [...(row.userId === null ? [] : [row.userId]), ...row.mentionedUserIds]),
  );
  const userOf = (userId: string) => {
    const user = users.get(userId);
    // A user deleted since the migration keeps their id; the profile is gone.
    return { user_id: userId, nickname: user?.nickname ?? "", profile_url: user?.profileUrl ?? "" };
  };
  return {
    messages: rows.map((row) => toMessageResource(row, userOf, query.with_sorted_meta_array)),
  };
}

/** Conditions for the messages before and after the query's reference point. */
async function referencePoint(
  db: Database,
  appId: string,
  channelUrl: string,
  query: MessageListQuery,
): Promise<{ before: SQL | undefined; after: SQL | undefined }> {
  const { timestamp, messageId } = sandboxMessages;
  if (query.message_id === undefined) {
    const ts = query.message_ts ?? 0;
    return {
      before: lt(timestamp, ts),
      after: query.include ? gte(timestamp, ts) : gt(timestamp, ts),
    };
  }
  const [reference] = await db
    .select({ timestamp, messageId })
    .from(sandboxMessages)
    .where(
      and(
        eq(sandboxMessages.appId, appId),
        eq(sandboxMessages.channelUrl, channelUrl),
        eq(messageId, query.message_id),
      ),
    )
    .limit(1);
  if (!reference) {
    throw new SandboxError(
      ErrorCode.notFound,
      `No message with message_id ${query.message_id} in channel "${channelUrl}".`,
    );
  }
  const ts = reference.timestamp;
  const id = reference.messageId;
  return {
    before: or(lt(timestamp, ts), and(eq(timestamp, ts), lt(messageId, id))),
    after: or(
      gt(timestamp, ts),
      and(eq(timestamp, ts), query.include ? gte(messageId, id) : gt(messageId, id)),
    ),
  };
}

function toMessageResource(
  row: MessageRow,
  userOf: (userId: string) => NonNullable<MessageResource["user"]>,
  withSortedMetaarray: boolean,
): MessageResource {
  return {
    message_id: row.messageId,
    type: row.messageType,
    message: row.message,
    custom_type: row.customType,
    data: row.data,
    created_at: row.timestamp,
    updated_at: 0,
    channel_url: row.channelUrl,
    channel_type: row.channelType,
    mention_type: "users",
    mentioned_users: row.mentionedUserIds.map(userOf),
    is_removed: false,
    silent: row.isSilent,
    message_survival_seconds: -1,
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
