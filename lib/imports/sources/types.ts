import { z } from "zod";

/**
 * The records a reader of an export yields: one shape for the three formats, so the steps
 * after a reader (the summary, the mapping choices, the forecast, the migration) never look
 * at a Slack, Discord or Mattermost field. The schemas are for where records cross a boundary
 * (the worker's messages, storage); readers build plain objects of these types.
 *
 * Ids are the source's own: Slack's U…/C…/D… ids and message `ts`, Discord's snowflakes,
 * Mattermost's usernames and team/channel names (its bulk export has no ids of its own; see
 * docs/imports-exports.md). Times are Unix milliseconds.
 */

export const exportFormats = ["slack", "discord", "mattermost"] as const;
export const exportFormatSchema = z.enum(exportFormats);
export type ExportFormat = z.infer<typeof exportFormatSchema>;

export const exportFormatNames: Record<ExportFormat, string> = {
  slack: "Slack workspace export",
  discord: "Discord export (DiscordChatExporter)",
  mattermost: "Mattermost bulk export",
};

/**
 * Where a record was read: the file (the path inside the ZIP, or the dropped file's name),
 * and the item of its JSON array or the line of its JSONL, counted from 1.
 */
export const sourceLocationSchema = z.object({
  path: z.string(),
  item: z.number().int().positive().optional(),
  line: z.number().int().positive().optional(),
});
export type SourceLocation = z.infer<typeof sourceLocationSchema>;

/** "general/2024-01-02.json, item 3", for messages to the administrator. */
export function describeLocation(location: SourceLocation): string {
  if (location.line !== undefined)
    return `${location.path}, line ${location.line.toLocaleString("en-US")}`;
  if (location.item !== undefined)
    return `${location.path}, item ${location.item.toLocaleString("en-US")}`;
  return location.path;
}

/** The export as a whole: its format and the community's name where the export says it. */
export const exportInfoRecordSchema = z.object({
  type: z.literal("export"),
  format: exportFormatSchema,
  name: z.string().nullable(),
  source: sourceLocationSchema,
});

export const personRecordSchema = z.object({
  type: z.literal("person"),
  id: z.string(),
  /** The handle (Slack `name`, Discord username, Mattermost username). */
  username: z.string().nullable(),
  /** The name people see: display name, else real name, else handle, else id. */
  displayName: z.string(),
  realName: z.string().nullable(),
  email: z.string().nullable(),
  avatarUrl: z.string().nullable(),
  isBot: z.boolean(),
  /** Deleted or deactivated in the source. */
  deactivated: z.boolean(),
  /**
   * Not listed by the export, only seen in its messages: a sender missing from Slack's
   * users.json, a legacy Slack integration, every Discord author (Discord exports list no
   * members). Its names come from what the messages carry.
   */
  fromMessages: z.boolean(),
  source: sourceLocationSchema,
});

export const channelKinds = ["public", "private", "dm", "group_dm"] as const;
export const channelKindSchema = z.enum(channelKinds);
export type ChannelKind = z.infer<typeof channelKindSchema>;

export const channelRecordSchema = z.object({
  type: z.literal("channel"),
  id: z.string(),
  kind: channelKindSchema,
  name: z.string(),
  topic: z.string().nullable(),
  purpose: z.string().nullable(),
  createdAt: z.number().nullable(),
  creatorId: z.string().nullable(),
  archived: z.boolean(),
  /** A Discord thread's channel. */
  parentChannelId: z.string().nullable(),
  source: sourceLocationSchema,
});

/**
 * A channel's members, once the reader knows them all: from the channel list (Slack), the
 * users' memberships (Mattermost), or, where the export lists none (Discord), everyone who
 * wrote or reacted in it. `listed` says which.
 */
export const membersRecordSchema = z.object({
  type: z.literal("members"),
  channelId: z.string(),
  userIds: z.array(z.string()),
  listed: z.boolean(),
  source: sourceLocationSchema,
});

export const noticeKinds = [
  "join",
  "leave",
  "topic",
  "purpose",
  "rename",
  "archive",
  "unarchive",
  "pin",
  "other",
] as const;
export const noticeKindSchema = z.enum(noticeKinds);
export type NoticeKind = z.infer<typeof noticeKindSchema>;

export const reactionSchema = z.object({
  /** The emoji's name as the source writes it: `thumbsup`, `+1::skin-tone-2`, `👍`, `partyparrot`. */
  name: z.string(),
  /** A custom emoji's id where the source has one (Discord). */
  emojiId: z.string().nullable(),
  userIds: z.array(z.string()),
  /** The source's count; Slack may list fewer users than it counts. */
  count: z.number().int().nonnegative(),
});
export type Reaction = z.infer<typeof reactionSchema>;

export const fileStates = ["available", "deleted", "hidden"] as const;

export const fileSchema = z.object({
  id: z.string().nullable(),
  name: z.string(),
  mimeType: z.string().nullable(),
  size: z.number().nullable(),
  /** Where the file can be fetched. Slack's `url_private` needs a signed-in session. */
  url: z.string().nullable(),
  /** Deleted in the source, or hidden by Slack's plan limit: only its name (if that) is left. */
  state: z.enum(fileStates),
});
export type SourceFile = z.infer<typeof fileSchema>;

export const messageRecordSchema = z.object({
  type: z.literal("message"),
  channelId: z.string(),
  /** Unique within the channel: Slack's `ts`, Discord's id, a Mattermost post's derived id. */
  id: z.string(),
  /** Null only where the source names nobody (a Slack notice without a user). */
  senderId: z.string().nullable(),
  createdAt: z.number(),
  text: z.string(),
  /** The source's own type or subtype: `channel_join`, `GuildMemberJoin`, `system_join_channel`. */
  subtype: z.string().nullable(),
  /** Set for join, leave, topic and other notices the source writes as messages. */
  notice: noticeKindSchema.nullable(),
  /** The message this one answers, as the source says. */
  parentId: z.string().nullable(),
  /** The top of its thread: the parent, or the parent's own root for a reply to a reply (Discord). */
  threadRootId: z.string().nullable(),
  /** A reply also shown in the channel (Slack's "also send to channel"). */
  alsoInChannel: z.boolean(),
  reactions: z.array(reactionSchema),
  files: z.array(fileSchema),
  mentionIds: z.array(z.string()),
  edited: z.boolean(),
  editedAt: z.number().nullable(),
  isBot: z.boolean(),
  source: sourceLocationSchema,
});

export const problemCodes = [
  /** A file that cannot be decompressed, is not UTF-8, or is not valid JSON. */
  "unreadable-file",
  /** One item (a message, a user, a line) that lacks what it needs. */
  "unreadable-item",
  "unknown-person",
  "unknown-channel",
  "duplicate-id",
  /** Replies whose root is not in the export. */
  "missing-root",
  /** A Discord file listed newest first: replies to replies attach to their direct parent. */
  "reversed-order",
  "ignored-file",
] as const;
export const problemCodeSchema = z.enum(problemCodes);
export type ProblemCode = z.infer<typeof problemCodeSchema>;

/**
 * Something wrong that does not stop the reading: the rest of the export stays usable.
 * `message` is written for the administrator and names the file; `skipped` counts the
 * messages (or people, or channels) left out because of it.
 */
export const problemRecordSchema = z.object({
  type: z.literal("problem"),
  code: problemCodeSchema,
  message: z.string(),
  skipped: z.number().int().nonnegative(),
  source: sourceLocationSchema,
});

export const exportRecordSchema = z.discriminatedUnion("type", [
  exportInfoRecordSchema,
  personRecordSchema,
  channelRecordSchema,
  membersRecordSchema,
  messageRecordSchema,
  problemRecordSchema,
]);

export type ExportInfoRecord = z.infer<typeof exportInfoRecordSchema>;
export type PersonRecord = z.infer<typeof personRecordSchema>;
export type ChannelRecord = z.infer<typeof channelRecordSchema>;
export type MembersRecord = z.infer<typeof membersRecordSchema>;
export type MessageRecord = z.infer<typeof messageRecordSchema>;
export type ProblemRecord = z.infer<typeof problemRecordSchema>;
export type ExportRecord = z.infer<typeof exportRecordSchema>;

/**
 * What a reader reads: a File, or anything that slices like one (in Node, `fs.openAsBlob`
 * with a name). A reader asks for slices, so the export is never held in memory.
 */
export type ExportFile = {
  readonly name: string;
  readonly size: number;
  slice(start?: number, end?: number): Blob;
};

export type ReadOptions = {
  /** Bytes of the dropped files read so far, of all of them. */
  onProgress?: (done: number, total: number) => void;
  /** Stops the reading: the reader throws ReadCancelled at its next slice. */
  signal?: AbortSignal;
  /** Lower limits than limits.ts (for tests). */
  limits?: Partial<ExportLimits>;
};

export type ExportLimits = { zipEntries: number; textBytes: number; messages: number };

/** Why an export cannot be read at all; the message is for the administrator. */
export class ExportProblem extends Error {}
