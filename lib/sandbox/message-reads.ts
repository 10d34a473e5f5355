import {
  and,
  asc,
  count,
  desc,
  eq,
  gt,
  gte,
  inArray,
  isNull,
  lt,
  or,
  sql,
  type SQL,
} from "drizzle-orm";
import type { Database } from "@/lib/db/client";
import { sandboxMessageBatches, sandboxMessages } from "@/lib/db/schema";
import type {
  MessageDetails,
  MessageListQuery,
  MessageListResponse,
  MessageResource,
  ReplyType,
} from "@/lib/schemas/messages";
import { ErrorCode, SandboxError } from "./errors";
import { channelNotFound, findChannelType, type ChannelType } from "./lookups";
import { messageResources, noDetails, type MessageRow } from "./message-resources";
import { fileMessages } from "./messages";

/**
 * Makes sure the path names a channel of the path's kind (else 400201) and files the requests
 * migrated to it, so that a read sees every migration answered before it began.
 */
export async function readableChannel(
  db: Database,
  appId: string,
  channelType: ChannelType,
  channelUrl: string,
): Promise<void> {
  if ((await findChannelType(db, appId, channelUrl)) !== channelType)
    throw channelNotFound(channelUrl);
  await fileMessages(db, appId, channelUrl);
}

/** One message of a channel, or 400201. */
export async function findMessage(
  db: Database,
  appId: string,
  channelUrl: string,
  messageId: number,
): Promise<MessageRow> {
  const [row] = await db
    .select()
    .from(sandboxMessages)
    .where(and(inChannel(appId, channelUrl), eq(sandboxMessages.messageId, messageId)))
    .limit(1);
  if (!row) throw messageNotFound(channelUrl, messageId);
  return row;
}

export function messageNotFound(channelUrl: string, messageId: number): SandboxError {
  return new SandboxError(
    ErrorCode.notFound,
    `No message with message_id ${messageId} in channel "${channelUrl}".`,
  );
}

export function inChannel(appId: string, channelUrl: string): SQL {
  return and(eq(sandboxMessages.appId, appId), eq(sandboxMessages.channelUrl, channelUrl))!;
}

/** Which messages a list shows by `include_reply_type`: replies only when asked for. */
function listedReplies(replyType: ReplyType): SQL | undefined {
  const { parentMessageId, isReplyToChannel } = sandboxMessages;
  if (replyType === "all") return undefined;
  if (replyType === "none") return isNull(parentMessageId);
  return or(isNull(parentMessageId), eq(isReplyToChannel, true));
}

/**
 * The channel's messages around a point in time (`message_ts`) or a message (`message_id`):
 * up to `prev_limit` before it and `next_limit` after it, in (created_at, message_id) order.
 * Messages sent exactly at `message_ts` (or the message itself) count among the next ones
 * and are left out with `include=false`. Replies are listed only as `include_reply_type` says.
 */
export async function listMessages(
  db: Database,
  appId: string,
  channelType: ChannelType,
  channelUrl: string,
  query: MessageListQuery,
): Promise<MessageListResponse> {
  await readableChannel(db, appId, channelType, channelUrl);

  const filters: Array<SQL | undefined> = [
    inChannel(appId, channelUrl),
    listedReplies(query.include_reply_type),
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
  return { messages: await messageResources(db, appId, rows, query) };
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
  const reference = await findMessage(db, appId, channelUrl, query.message_id);
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

/** `GET .../messages/{message_id}`. */
export async function getMessage(
  db: Database,
  appId: string,
  channelType: ChannelType,
  channelUrl: string,
  messageId: number,
  details: MessageDetails,
): Promise<MessageResource> {
  await readableChannel(db, appId, channelType, channelUrl);
  const row = await findMessage(db, appId, channelUrl, messageId);
  const [resource] = await messageResources(db, appId, [row], details);
  return resource!;
}

/** `GET .../messages/total_count`: every message of the channel, replies included. */
export async function countMessages(
  db: Database,
  appId: string,
  channelType: ChannelType,
  channelUrl: string,
): Promise<{ total: number }> {
  await readableChannel(db, appId, channelType, channelUrl);
  const [row] = await db
    .select({ total: count() })
    .from(sandboxMessages)
    .where(inChannel(appId, channelUrl));
  return { total: row?.total ?? 0 };
}

/**
 * Each group channel's `last_message`: the latest message its list shows by default (no
 * replies), or none. One index probe per channel, newest first.
 */
export async function lastMessages(
  db: Database,
  appId: string,
  channelUrls: string[],
): Promise<Map<string, MessageResource>> {
  if (channelUrls.length === 0) return new Map();
  // Requests migrated to these channels and not filed yet may hold their latest messages.
  const pending = await db
    .selectDistinct({ channelUrl: sandboxMessageBatches.channelUrl })
    .from(sandboxMessageBatches)
    .where(
      and(
        eq(sandboxMessageBatches.appId, appId),
        inArray(sandboxMessageBatches.channelUrl, channelUrls),
      ),
    );
  for (const { channelUrl } of pending) await fileMessages(db, appId, channelUrl);
  const urls = sql.join(
    channelUrls.map((url) => sql`${url}`),
    sql`, `,
  );
  const { rows } = (await db.execute(sql`
    select m.message_id from unnest(array[${urls}]::text[]) as c(channel_url)
    cross join lateral (
      select message_id from ${sandboxMessages}
      where app_id = ${appId} and channel_url = c.channel_url
        and parent_message_id is null
      order by "timestamp" desc, message_id desc limit 1
    ) as m`)) as unknown as { rows: Array<{ message_id: string | number }> };
  if (rows.length === 0) return new Map();
  const latest = await db
    .select()
    .from(sandboxMessages)
    .where(
      inArray(
        sandboxMessages.messageId,
        rows.map((row) => Number(row.message_id)),
      ),
    );
  const resources = await messageResources(db, appId, latest, noDetails);
  return new Map(resources.map((resource) => [resource.channel_url, resource]));
}
