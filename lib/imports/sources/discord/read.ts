import type { OpenedExport } from "../detect";
import { EntryError, jsonItems, type ExportEntry } from "../entries";
import { ChannelMessageIds } from "../message-ids";
import { problem, unreadableFile, unreadableItem } from "../problems";
import {
  type ChannelKind,
  type ExportRecord,
  type MessageRecord,
  type NoticeKind,
  type PersonRecord,
  type SourceLocation,
} from "../types";
import { filled, isObject, list, number, object, unique, type Fields } from "../values";

/**
 * DiscordChatExporter's JSON: one file per channel (a large channel may be split into parts,
 * "… [part 2].json", all with the same channel), each `{guild, channel, dateRange, exportedAt,
 * messages: […], messageCount}`. Files are grouped by channel and read one channel at a time;
 * a channel's messages are streamed, never held (a file can be hundreds of MB).
 *
 * Discord exports list no members and no user directory: people are made from the messages'
 * authors, reactions and mentions, and a channel's members are everyone who wrote or reacted
 * in it. Discord has no "archived" flag for channels; a channel filed under a category whose
 * name says "archive" is taken as archived (docs/imports-exports.md).
 */

const kinds: Record<string, ChannelKind> = {
  GuildTextChat: "public",
  GuildNews: "public",
  GuildVoiceChat: "public",
  GuildStageVoice: "public",
  GuildForum: "public",
  GuildNewsThread: "public",
  GuildPublicThread: "public",
  GuildPrivateThread: "private",
  DirectTextChat: "dm",
  DirectGroupTextChat: "group_dm",
};
const threads = new Set(["GuildNewsThread", "GuildPublicThread", "GuildPrivateThread"]);

const notices: Record<string, NoticeKind | null> = {
  Default: null,
  Reply: null,
  RecipientAdd: "join",
  RecipientRemove: "leave",
  Call: "other",
  ChannelNameChange: "rename",
  ChannelIconChange: "other",
  ChannelPinnedMessage: "pin",
  GuildMemberJoin: "join",
  ThreadCreated: "other",
};

/** Discord's epoch: a snowflake's top 42 bits are milliseconds since 2015-01-01. */
const DISCORD_EPOCH = 1420070400000;
export function snowflakeTime(id: string): number | null {
  return /^\d{1,20}$/.test(id) ? Number(BigInt(id) >> 22n) + DISCORD_EPOCH : null;
}

type ChannelFile = { entry: ExportEntry; guild: Fields; channel: Fields };

export async function* readDiscordExport(opened: OpenedExport): AsyncGenerator<ExportRecord> {
  // The start of each file: its guild and channel, to put a channel's parts together.
  const byChannel = new Map<string, ChannelFile[]>();
  const notDiscord: ExportRecord[] = [];
  let guildName: string | null = null;
  for (const entry of opened.entries) {
    if (!entry.path.toLowerCase().endsWith(".json")) continue;
    const start = await preamble(entry);
    if (typeof start === "string") {
      notDiscord.push(
        problem("ignored-file", `${entry.path} ${start}: it is left out.`, { path: entry.path }),
      );
      continue;
    }
    const id = filled(start.channel.id)!;
    byChannel.set(id, [...(byChannel.get(id) ?? []), start]);
    if (filled(start.guild.id) !== "0") guildName ??= filled(start.guild.name);
  }
  yield {
    type: "export",
    format: "discord",
    name: guildName ?? opened.name.replace(/\.(zip|json)$/i, ""),
    source: { path: opened.name },
  };
  yield* notDiscord;

  const people = new Set<string>();
  const person = (user: unknown, source: SourceLocation): PersonRecord | null => {
    if (!isObject(user)) return null;
    const id = filled(user.id);
    if (!id || people.has(id)) return null;
    people.add(id);
    const username = filled(user.name);
    return {
      type: "person",
      id,
      username,
      displayName: filled(user.nickname) ?? username ?? id,
      realName: null,
      email: null,
      avatarUrl: filled(user.avatarUrl),
      isBot: user.isBot === true,
      // Discord keeps a deleted account's id and renames it; that name is all an export shows.
      deactivated: username !== null && /^(Deleted User\b|deleted_user_[0-9a-f]+$)/i.test(username),
      fromMessages: true,
      source,
    };
  };

  const order = [...byChannel.values()].sort(
    (a, b) => channelOrder(a[0]!) - channelOrder(b[0]!) || snowflakeOrder(a[0]!, b[0]!),
  );
  for (const files of order) {
    files.sort((a, b) => a.entry.path.localeCompare(b.entry.path, "en", { numeric: true }));
    const { channel, entry: first } = files[0]!;
    const id = filled(channel.id)!;
    const type = filled(channel.type) ?? "GuildTextChat";
    const category = filled(channel.category);
    const name = filled(channel.name) ?? id;
    const label =
      kinds[type] === "dm" || kinds[type] === "group_dm" ? `the conversation ${name}` : `#${name}`;
    yield {
      type: "channel",
      id,
      kind: kinds[type] ?? "public",
      name,
      topic: filled(channel.topic),
      purpose: null,
      createdAt: snowflakeTime(id),
      creatorId: null,
      archived: !threads.has(type) && category !== null && /archive/i.test(category),
      parentChannelId: threads.has(type) ? filled(channel.categoryId) : null,
      source: { path: first.path },
    };
    const members = new Set<string>();
    const ids = new ChannelMessageIds(label);
    /** Replies' roots, so that a reply to a reply attaches to the top of its chain. */
    const rootOf = new Map<string, string>();
    for (const { entry } of files) {
      let previous = -Infinity;
      let reversed = false;
      try {
        for await (const { value, item } of jsonItems(entry, "messages")) {
          const source = { path: entry.path, item };
          if (!isObject(value)) {
            yield unreadableItem(source, "is not a JSON object");
            continue;
          }
          const found = [
            value.author,
            ...list(value.mentions),
            ...list(value.reactions).flatMap((reaction) => list(object(reaction).users)),
          ]
            .map((user) => person(user, source))
            .filter((record) => record !== null);
          yield* found;
          const message = ids.admit(discordMessage(value, id, source), source);
          if (message.type === "problem") {
            yield message;
            continue;
          }
          if (message.createdAt < previous && !reversed) {
            reversed = true;
            yield problem(
              "reversed-order",
              `${entry.path} lists its messages newest first (exported with --reverse), so a reply to a reply is attached to the message it answers rather than to the top of its thread. Export again without --reverse to keep threads whole.`,
              { path: entry.path },
            );
          }
          previous = message.createdAt;
          if (message.parentId !== null) {
            const root = rootOf.get(message.parentId) ?? message.parentId;
            message.threadRootId = root;
            rootOf.set(message.id, root);
          }
          if (message.senderId) members.add(message.senderId);
          for (const reaction of message.reactions)
            for (const user of reaction.userIds) members.add(user);
          yield message;
        }
      } catch (error) {
        if (!(error instanceof EntryError)) throw error;
        yield unreadableFile(error, entry.path, "its messages");
      }
    }
    yield* ids.missingRoots();
    yield {
      type: "members",
      channelId: id,
      userIds: [...members],
      listed: false,
      source: { path: first.path },
    };
  }
}

/** Guild channels first (by category, as the server lists them), then DMs; threads after their channel. */
function channelOrder({ channel }: ChannelFile): number {
  const type = filled(channel.type) ?? "";
  return kinds[type] === "dm" || kinds[type] === "group_dm" ? 2 : threads.has(type) ? 1 : 0;
}

/** By id: the order the channels were made in. */
function snowflakeOrder(a: ChannelFile, b: ChannelFile): number {
  const [first, second] = [filled(a.channel.id)!, filled(b.channel.id)!];
  return first.length - second.length || (first < second ? -1 : first > second ? 1 : 0);
}

/** A file's guild and channel, read from its start; or why it is not a DiscordChatExporter file. */
async function preamble(entry: ExportEntry): Promise<ChannelFile | string> {
  let guild: Fields | null = null;
  let channel: Fields | null = null;
  const stop = new Error("stop");
  try {
    for await (const _ of jsonItems(entry, "messages", (key, value) => {
      if (key === "guild" && isObject(value)) guild = value;
      if (key === "channel" && isObject(value)) channel = value;
      if (guild && channel) throw stop;
    }))
      break;
  } catch (error) {
    if (error !== stop && !(error instanceof EntryError)) throw error;
    if (error instanceof EntryError && !(guild && channel))
      return `is not a DiscordChatExporter JSON file (${error.message})`;
  }
  if (!guild || !channel || !filled((channel as Fields).id))
    return "is not a DiscordChatExporter JSON file: it does not start with a guild and a channel";
  return { entry, guild, channel };
}

function discordMessage(
  value: Fields,
  channelId: string,
  source: SourceLocation,
): MessageRecord | string {
  const id = filled(value.id);
  if (!id) return 'has no "id"';
  const createdAt = Date.parse(filled(value.timestamp) ?? "");
  if (Number.isNaN(createdAt)) return 'has no "timestamp" that is a date';
  const type = filled(value.type) ?? "Default";
  const reference = object(value.reference);
  const referenced = filled(reference.messageId);
  // A reply names its parent; a pin, a thread's start or a forward reference other things.
  const parentId =
    type === "Reply" && referenced && filled(reference.type) !== "Forward" ? referenced : null;
  const editedAt = Date.parse(filled(value.timestampEdited) ?? "");
  const author = object(value.author);
  return {
    type: "message",
    channelId,
    id,
    senderId: filled(author.id),
    createdAt,
    text: typeof value.content === "string" ? value.content : "",
    subtype: type,
    notice: type in notices ? notices[type]! : "other",
    parentId,
    threadRootId: parentId,
    alsoInChannel: false,
    reactions: list(value.reactions)
      .filter(isObject)
      .flatMap((reaction) => {
        const emoji = object(reaction.emoji);
        const name = filled(emoji.name) ?? filled(emoji.code);
        if (!name) return [];
        const userIds = unique(
          list(reaction.users)
            .map((user) => filled(object(user).id))
            .filter((user) => user !== null),
        );
        return [
          {
            name,
            emojiId: filled(emoji.id),
            userIds,
            count: number(reaction.count) ?? userIds.length,
          },
        ];
      }),
    files: list(value.attachments)
      .filter(isObject)
      .map((attachment) => ({
        id: filled(attachment.id),
        name: filled(attachment.fileName) ?? filled(attachment.id) ?? "(no name)",
        mimeType: null,
        size: number(attachment.fileSizeBytes),
        url: filled(attachment.url),
        state: "available" as const,
      })),
    // A notice's mentions name its subject ("Added carol to the group."), not someone addressed.
    mentionIds:
      notices[type] !== null
        ? []
        : unique(
            list(value.mentions)
              .map((user) => filled(object(user).id))
              .filter((user) => user !== null),
          ),
    edited: !Number.isNaN(editedAt),
    editedAt: Number.isNaN(editedAt) ? null : editedAt,
    isBot: author.isBot === true,
    source,
  };
}
