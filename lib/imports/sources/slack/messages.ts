import {
  filled,
  isObject,
  list,
  number,
  object,
  strings,
  text,
  unique,
  type Fields,
} from "../values";
import type { MessageRecord, NoticeKind, Reaction, SourceFile, SourceLocation } from "../types";

/** Slack's notices, by subtype (`group_*` are the same in private channels of older exports). */
const notices: Record<string, NoticeKind> = {
  channel_join: "join",
  group_join: "join",
  channel_leave: "leave",
  group_leave: "leave",
  channel_topic: "topic",
  group_topic: "topic",
  channel_purpose: "purpose",
  group_purpose: "purpose",
  channel_name: "rename",
  group_name: "rename",
  channel_archive: "archive",
  group_archive: "archive",
  channel_unarchive: "unarchive",
  group_unarchive: "unarchive",
  pinned_item: "pin",
  unpinned_item: "pin",
  bot_add: "other",
  bot_remove: "other",
  channel_convert_to_private: "other",
  channel_convert_to_public: "other",
  channel_posting_permissions: "other",
};

const MENTION = /<@([UW][A-Z0-9]+)(?:\|[^>]*)?>/g;

/** "1700000000.000100" → 1700000000000 (ms; the microseconds are the message's id, not its time). */
export function slackTime(ts: string): number | null {
  const match = /^(\d+)(?:\.(\d+))?$/.exec(ts.trim());
  if (!match) return null;
  return Number(match[1]) * 1000 + Number((match[2] ?? "").padEnd(3, "0").slice(0, 3));
}

export function mentionIds(messageText: string): string[] {
  return unique(Array.from(messageText.matchAll(MENTION), (match) => match[1]!));
}

function reactions(value: unknown): Reaction[] {
  return list(value)
    .filter(isObject)
    .flatMap((reaction) => {
      const name = filled(reaction.name);
      if (!name) return [];
      const userIds = strings(reaction.users);
      return [{ name, emojiId: null, userIds, count: number(reaction.count) ?? userIds.length }];
    });
}

function file(value: Fields): SourceFile {
  const mode = text(value.mode);
  const state =
    mode === "tombstone" ? "deleted" : mode === "hidden_by_limit" ? "hidden" : "available";
  return {
    id: filled(value.id),
    name: filled(value.name) ?? filled(value.title) ?? filled(value.id) ?? "(no name)",
    mimeType: filled(value.mimetype),
    size: number(value.size),
    url: state === "available" ? (filled(value.url_private) ?? filled(value.permalink)) : null,
    state,
  };
}

/**
 * One item of a day file as a message record, or the reason it cannot be one. `sender` is
 * decided by the reader, which knows users.json.
 */
export function slackMessage(
  item: unknown,
  channelId: string,
  source: SourceLocation,
  sender: (message: Fields) => { id: string | null; isBot: boolean },
): MessageRecord | string {
  if (!isObject(item)) return "is not a JSON object";
  const ts = text(item.ts);
  const createdAt = ts === null ? null : slackTime(ts);
  if (ts === null || createdAt === null) return 'has no "ts" (the message\'s time and id)';
  const subtype = filled(item.subtype);
  const threadTs = filled(item.thread_ts);
  const parentId = threadTs !== null && threadTs !== ts ? threadTs : null;
  const messageText = text(item.text) ?? "";
  const edited = object(item.edited);
  const editedTs = text(edited.ts);
  const from = sender(item);
  const notice = subtype === null ? null : (notices[subtype] ?? null);
  const files = [
    ...list(item.files).filter(isObject),
    ...(isObject(item.file) ? [item.file] : []),
  ].map(file);
  return {
    type: "message",
    channelId,
    id: ts,
    senderId: from.id,
    createdAt,
    text: messageText,
    subtype,
    notice,
    parentId,
    threadRootId: parentId,
    alsoInChannel: subtype === "thread_broadcast",
    reactions: reactions(item.reactions),
    files,
    // A notice's text names its subject the way a mention does ("<@U…> has joined").
    mentionIds: notice === null ? mentionIds(messageText) : [],
    edited: isObject(item.edited),
    editedAt: editedTs === null ? null : slackTime(editedTs),
    isBot: from.isBot,
    source,
  };
}
