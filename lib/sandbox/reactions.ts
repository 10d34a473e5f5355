import { and, eq } from "drizzle-orm";
import type { Database } from "@/lib/db/client";
import { sandboxMessageReactions, sandboxMessages } from "@/lib/db/schema";
import type { ReactionInput } from "@/lib/schemas/messages";
import { ErrorCode, SandboxError } from "./errors";
import { findUsers, userNotFound, type ChannelType } from "./lookups";
import { findMessage, inChannel, messageNotFound, readableChannel } from "./message-reads";
import { reactionsOf } from "./message-resources";
import { checkSender, lockChannel } from "./message-sends";

type Reaction = { reaction: string; user_id: string };
type ReactionAnswer = Reaction & { success: true; msg_id: number; updated_at: number };

/**
 * Reactions belong to group channel messages: the platform has none in open channels, so an
 * open channel's path answers 400111 (after 400201 for one that does not exist).
 */
async function reactableChannel(
  db: Database,
  appId: string,
  channelType: ChannelType,
  channelUrl: string,
): Promise<void> {
  await readableChannel(db, appId, channelType, channelUrl);
  if (channelType === "open") {
    throw new SandboxError(
      ErrorCode.invalidValue,
      `Channel "${channelUrl}" is an open channel: reactions are for group channel messages only.`,
    );
  }
}

/**
 * Adds `user_id`'s reaction to a message. The user must be able to send to the channel (see
 * checkSender), and admin messages take none (400111). The same reaction again changes nothing
 * and answers the time it was first added.
 */
export async function addReaction(
  db: Database,
  appId: string,
  channelType: ChannelType,
  channelUrl: string,
  messageId: number,
  { user_id: userId, reaction }: Reaction,
): Promise<ReactionAnswer> {
  await reactableChannel(db, appId, channelType, channelUrl);
  const updatedAt = await db.transaction(async (tx) => {
    const channel = await lockChannel(tx, appId, channelType, channelUrl);
    await checkSender(tx, appId, channel, userId, "add reactions");
    const [message] = await tx
      .select({ messageType: sandboxMessages.messageType })
      .from(sandboxMessages)
      .where(and(inChannel(appId, channelUrl), eq(sandboxMessages.messageId, messageId)))
      .limit(1)
      .for("key share");
    if (!message) throw messageNotFound(channelUrl, messageId);
    if (message.messageType === "ADMM") {
      throw new SandboxError(
        ErrorCode.invalidValue,
        `Message ${messageId} is an admin message: admin messages take no reactions.`,
      );
    }
    const [added] = await tx
      .insert(sandboxMessageReactions)
      .values({ messageId, reaction, userId, updatedAt: Date.now() })
      .onConflictDoNothing()
      .returning({ updatedAt: sandboxMessageReactions.updatedAt });
    if (added) return added.updatedAt;
    const [stored] = await tx
      .select({ updatedAt: sandboxMessageReactions.updatedAt })
      .from(sandboxMessageReactions)
      .where(reactionKey(messageId, reaction, userId));
    return stored!.updatedAt;
  });
  return { reaction, user_id: userId, success: true, msg_id: messageId, updated_at: updatedAt };
}

/**
 * Removes `user_id`'s reaction from a message. The user must exist (400201), not be a member:
 * an administrator may take away the reaction of someone who has left. Removing a reaction that
 * is not there changes nothing and succeeds.
 */
export async function removeReaction(
  db: Database,
  appId: string,
  channelType: ChannelType,
  channelUrl: string,
  messageId: number,
  { user_id: userId, reaction }: ReactionInput,
): Promise<ReactionAnswer> {
  await reactableChannel(db, appId, channelType, channelUrl);
  if (!(await findUsers(db, appId, [userId])).has(userId)) throw userNotFound(userId);
  await findMessage(db, appId, channelUrl, messageId);
  await db.delete(sandboxMessageReactions).where(reactionKey(messageId, reaction, userId));
  return { reaction, user_id: userId, success: true, msg_id: messageId, updated_at: Date.now() };
}

/** `GET .../reactions`: each key with the users who added it, keys and users in the order added. */
export async function listReactions(
  db: Database,
  appId: string,
  channelType: ChannelType,
  channelUrl: string,
  messageId: number,
): Promise<{ reactions: Record<string, string[]> }> {
  await reactableChannel(db, appId, channelType, channelUrl);
  await findMessage(db, appId, channelUrl, messageId);
  const summaries = (await reactionsOf(db, [messageId])).get(messageId) ?? [];
  // Built with Object.fromEntries, so a key such as __proto__ is an item like any other.
  return {
    reactions: Object.fromEntries(summaries.map((summary) => [summary.key, summary.user_ids])),
  };
}

function reactionKey(messageId: number, reaction: string, userId: string) {
  return and(
    eq(sandboxMessageReactions.messageId, messageId),
    eq(sandboxMessageReactions.reaction, reaction),
    eq(sandboxMessageReactions.userId, userId),
  );
}
