import { and, eq } from "drizzle-orm";
import type { Database } from "@/lib/db/client";
import {
  sandboxGroupChannels,
  sandboxMessages,
  sandboxOpenChannels,
  type GroupChannelMember,
} from "@/lib/db/schema";
import type { MessageResource, SendMessage, UpdateMessage } from "@/lib/schemas/messages";
import { ErrorCode, SandboxError } from "./errors";
import {
  channelNotFound,
  findUsers,
  groupChannelKey,
  openChannelKey,
  userNotFound,
  type ChannelType,
  type Transaction,
} from "./lookups";
import { findMessage, inChannel, messageNotFound, readableChannel } from "./message-reads";
import { messageResources, noDetails, type MessageRow } from "./message-resources";

/** What the rules for sending and reacting need to know of a channel. */
export type MessageChannel = {
  type: ChannelType;
  url: string;
  freeze: boolean;
  operatorIds: string[];
  /** Group channels only. */
  members: GroupChannelMember[];
};

/**
 * The channel the path names, read and locked against deletion until the transaction ends
 * (`for key share`: sends to one channel do not wait for each other), or 400201.
 */
export async function lockChannel(
  tx: Transaction,
  appId: string,
  type: ChannelType,
  url: string,
): Promise<MessageChannel> {
  const [row] =
    type === "open"
      ? await tx
          .select({
            freeze: sandboxOpenChannels.freeze,
            operatorIds: sandboxOpenChannels.operatorIds,
          })
          .from(sandboxOpenChannels)
          .where(openChannelKey(appId, url))
          .limit(1)
          .for("key share")
      : await tx
          .select({
            freeze: sandboxGroupChannels.freeze,
            operatorIds: sandboxGroupChannels.operatorIds,
            members: sandboxGroupChannels.members,
          })
          .from(sandboxGroupChannels)
          .where(groupChannelKey(appId, url))
          .limit(1)
          .for("key share");
  if (!row) throw channelNotFound(url);
  return { type, url, members: [], ...row };
}

/**
 * Who may send to, or react in, a channel: a registered (400201), active (400300) user who, in
 * a group channel, has joined it (400108); in a frozen channel only its operators (900050).
 * The import sends replies and reactions before it deactivates users and freezes channels.
 */
export async function checkSender(
  tx: Transaction,
  appId: string,
  channel: MessageChannel,
  userId: string,
  action: "send messages" | "add reactions",
): Promise<void> {
  const user = (await findUsers(tx, appId, [userId])).get(userId);
  if (!user) throw userNotFound(userId);
  if (!user.isActive) {
    throw new SandboxError(
      ErrorCode.deactivatedUser,
      `User "${userId}" is deactivated: a deactivated user cannot ${action}.`,
    );
  }
  if (
    channel.type === "group" &&
    !channel.members.some((member) => member.user_id === userId && member.state === "joined")
  ) {
    throw new SandboxError(
      ErrorCode.notAMember,
      `User "${userId}" is not a joined member of channel "${channel.url}": only its members can ${action}.`,
    );
  }
  if (channel.freeze && !channel.operatorIds.includes(userId)) {
    throw new SandboxError(
      ErrorCode.channelFrozen,
      `Channel "${channel.url}" is frozen: only its operators can ${action}.`,
    );
  }
}

/**
 * Sends a message (MESG, FILE or ADMM), a reply when `parent_message_id` names a root. The
 * request is checked whole first (channel, sender, root); then a `dedup_id` already stored in
 * the channel, by a send or a migration, answers the stored message and stores nothing.
 */
export async function sendMessage(
  db: Database,
  appId: string,
  channelType: ChannelType,
  channelUrl: string,
  input: SendMessage,
): Promise<MessageResource> {
  // Files the channel's migrated requests: their dedup_ids and roots count.
  await readableChannel(db, appId, channelType, channelUrl);
  const createdAt = input.created_at ?? Date.now();
  const row = await db.transaction(async (tx) => {
    const channel = await lockChannel(tx, appId, channelType, channelUrl);
    if (input.message_type !== "ADMM")
      await checkSender(tx, appId, channel, input.user_id, "send messages");
    if (input.parent_message_id !== 0)
      await checkRoot(tx, appId, channelUrl, input, input.parent_message_id, createdAt);
    const [inserted] = await tx
      .insert(sandboxMessages)
      .values({
        appId,
        channelUrl,
        channelType,
        userId: input.message_type === "ADMM" ? null : input.user_id,
        messageType: input.message_type,
        message: input.message_type === "FILE" ? "" : input.message,
        customType: input.custom_type,
        data: input.data,
        file: input.message_type === "FILE" ? input.file : null,
        mentionedUserIds: input.mentioned_user_ids,
        sortedMetaarray: input.sorted_metaarray,
        isSilent: input.is_silent,
        dedupId: input.dedup_id ?? null,
        timestamp: createdAt,
        parentMessageId: input.parent_message_id === 0 ? null : input.parent_message_id,
        isReplyToChannel: input.parent_message_id !== 0 && input.reply_to_channel,
      })
      .onConflictDoNothing()
      .returning();
    // Only a dedup_id already stored (by a send, a migration, or a concurrent request) conflicts:
    // answer that message. Trying the insert first spares every new message a look-up.
    return inserted ?? (await findByDedupId(tx, appId, channelUrl, input.dedup_id!))!;
  });
  return answer(db, appId, row);
}

/**
 * A reply's root: a message of the same channel that is no reply itself (threads are one level
 * deep) and no admin message, sent no later than the reply (400111 otherwise).
 */
async function checkRoot(
  tx: Transaction,
  appId: string,
  channelUrl: string,
  input: SendMessage,
  rootId: number,
  createdAt: number,
): Promise<void> {
  const refuse = (reason: string) =>
    new SandboxError(ErrorCode.invalidValue, `"parent_message_id" ${reason}`);
  if (input.message_type === "ADMM") throw refuse("is not allowed: an admin message is no reply.");
  const [root] = await tx
    .select()
    .from(sandboxMessages)
    .where(and(inChannel(appId, channelUrl), eq(sandboxMessages.messageId, rootId)))
    .limit(1)
    .for("key share");
  if (!root) throw refuse(`names no message of channel "${channelUrl}": ${rootId}.`);
  if (root.parentMessageId !== null)
    throw refuse(
      `names a reply (${rootId}); reply to its root, ${root.parentMessageId}: threads are one level deep.`,
    );
  if (root.messageType === "ADMM")
    throw refuse(`names an admin message (${rootId}), which has no thread.`);
  if (createdAt < root.timestamp)
    throw refuse(
      `names a root sent after the reply: the reply's created_at ${createdAt} is before the root's ${root.timestamp}.`,
    );
}

async function findByDedupId(
  tx: Transaction,
  appId: string,
  channelUrl: string,
  dedupId: string,
): Promise<MessageRow | undefined> {
  const [row] = await tx
    .select()
    .from(sandboxMessages)
    .where(and(inChannel(appId, channelUrl), eq(sandboxMessages.dedupId, dedupId)))
    .limit(1);
  return row;
}

/** A message as sends and updates answer it: a reply with its root's `parent_message_info`. */
async function answer(db: Database, appId: string, row: MessageRow): Promise<MessageResource> {
  const [resource] = await messageResources(db, appId, [row], {
    ...noDetails,
    include_parent_message_info: true,
  });
  return resource!;
}

/**
 * `PUT .../messages/{message_id}`: replaces the properties given. `message_type` must be the
 * message's own, and a file message has no text to change (400111).
 */
export async function updateMessage(
  db: Database,
  appId: string,
  channelType: ChannelType,
  channelUrl: string,
  messageId: number,
  input: UpdateMessage,
): Promise<MessageResource> {
  await readableChannel(db, appId, channelType, channelUrl);
  const stored = await findMessage(db, appId, channelUrl, messageId);
  if (stored.messageType !== input.message_type) {
    throw new SandboxError(
      ErrorCode.invalidValue,
      `"message_type" must be the message's own: ${stored.messageType}, not ${input.message_type}.`,
    );
  }
  if (stored.messageType === "FILE" && input.message !== undefined) {
    throw new SandboxError(
      ErrorCode.invalidValue,
      '"message" cannot be set on a file message: it has no text.',
    );
  }
  const [row] = await db
    .update(sandboxMessages)
    .set({
      ...(input.message !== undefined && { message: input.message }),
      ...(input.custom_type !== undefined && { customType: input.custom_type }),
      ...(input.data !== undefined && { data: input.data }),
      ...(input.mentioned_user_ids !== undefined && { mentionedUserIds: input.mentioned_user_ids }),
      ...(input.sorted_metaarray !== undefined && { sortedMetaarray: input.sorted_metaarray }),
      updatedAt: Date.now(),
    })
    .where(and(inChannel(appId, channelUrl), eq(sandboxMessages.messageId, messageId)))
    .returning();
  if (!row) throw messageNotFound(channelUrl, messageId);
  return answer(db, appId, row);
}

/**
 * `DELETE .../messages/{message_id}`: the message and its reactions are gone (no longer listed,
 * read or counted, and its dedup_id is free again); its replies stay, without a root to show.
 */
export async function deleteMessage(
  db: Database,
  appId: string,
  channelType: ChannelType,
  channelUrl: string,
  messageId: number,
): Promise<void> {
  await readableChannel(db, appId, channelType, channelUrl);
  const deleted = await db
    .delete(sandboxMessages)
    .where(and(inChannel(appId, channelUrl), eq(sandboxMessages.messageId, messageId)))
    .returning({ messageId: sandboxMessages.messageId });
  if (deleted.length === 0) throw messageNotFound(channelUrl, messageId);
}
