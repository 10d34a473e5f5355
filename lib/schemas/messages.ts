import { z } from "zod";
import { CUSTOM_TYPE_MAX } from "./channels";
import { storableString, textBoolean, textInteger } from "./text-values";

/** Messages per migrate request (section 8). */
export const MIGRATION_MESSAGES_MAX = 100;
/** The channels' max_length_message: a longer message could never have been sent. */
export const MESSAGE_LENGTH_MAX = 5000;

export const MESSAGE_TYPES = ["MESG", "FILE", "ADMM"] as const;
export type MessageType = (typeof MESSAGE_TYPES)[number];

// ---------------------------------------------------------------------------
// Migration (`POST /v3/migration/{channel_url}`): the three shapes of the real platform
// (MigrateMessagesTextMessageRequest, ...FileMessageRequest, ...AdminMessageRequest).
// The import validator checks rows with these same schemas.
// ---------------------------------------------------------------------------

/** Milliseconds since the epoch, when the message was sent in the old system. */
export const messageTimestampSchema = z
  .number()
  .int()
  .min(0, { message: '"timestamp" must be a whole number of milliseconds since the epoch.' });

export const sortedMetaarraySchema = z.array(
  z.object({ key: z.string().min(1), value: z.array(z.string()) }),
);
export type SortedMetaarray = z.output<typeof sortedMetaarraySchema>;

/** A thumbnail is a URL, or an object as the platform's file resource holds it. */
export const thumbnailSchema = z.union([
  z.string(),
  z.looseObject({
    url: z.string().optional(),
    width: z.number().optional(),
    height: z.number().optional(),
  }),
]);

/** What every migrated message may carry, whatever its type. */
const migratedMessageCommon = {
  timestamp: messageTimestampSchema,
  custom_type: storableString("custom_type").max(CUSTOM_TYPE_MAX).default(""),
  mentioned_user_ids: z.array(z.string()).default([]),
  /** Makes a retried request safe: a dedup_id already stored in the channel is skipped. */
  dedup_id: z.string().optional(),
  sorted_metaarray: sortedMetaarraySchema.default([]),
};

/** MESG: a text message from a user. */
export const migratedTextMessageSchema = z.object({
  message_type: z.literal("MESG"),
  user_id: storableString("user_id"),
  message: storableString("message").max(MESSAGE_LENGTH_MAX),
  data: storableString("data").default(""),
  ...migratedMessageCommon,
});

/** FILE: a file message from a user; the file itself stays where `url` points. */
export const migratedFileMessageSchema = z.object({
  message_type: z.literal("FILE"),
  user_id: storableString("user_id"),
  url: storableString("url").min(1, { message: '"url" must not be empty.' }),
  file_name: storableString("file_name").default(""),
  file_size: z.number().int().min(0).default(0),
  file_type: z.string().default(""),
  thumbnails: z.array(thumbnailSchema).default([]),
  require_auth: z.boolean().default(false),
  custom_field: storableString("custom_field").default(""),
  ...migratedMessageCommon,
});

/** ADMM: an admin message; it has no sender. */
export const migratedAdminMessageSchema = z.object({
  message_type: z.literal("ADMM"),
  message: storableString("message").max(MESSAGE_LENGTH_MAX),
  data: storableString("data").default(""),
  is_silent: z.boolean().default(false),
  ...migratedMessageCommon,
});

export const migratedMessageSchema = z.discriminatedUnion(
  "message_type",
  [migratedTextMessageSchema, migratedFileMessageSchema, migratedAdminMessageSchema],
  { error: `"message_type" must be one of ${MESSAGE_TYPES.join(", ")}.` },
);

export type MigratedTextMessage = z.output<typeof migratedTextMessageSchema>;
export type MigratedFileMessage = z.output<typeof migratedFileMessageSchema>;
export type MigratedAdminMessage = z.output<typeof migratedAdminMessageSchema>;
export type MigratedMessage = z.output<typeof migratedMessageSchema>;
export type MigratedMessageInput = z.input<typeof migratedMessageSchema>;

/** The sender of a migrated message; admin messages have none. */
export function messageSender(message: MigratedMessage): string | undefined {
  return message.message_type === "ADMM" ? undefined : message.user_id;
}

export const migrationSchema = z.object({
  messages: z.array(migratedMessageSchema).max(MIGRATION_MESSAGES_MAX),
  update_read_ts: z.boolean().default(false),
  rewind_read_ts: z.boolean().default(false),
});

export type Migration = z.output<typeof migrationSchema>;

/** A FILE message's file as stored and answered. */
export type MigratedFile = {
  url: string;
  name: string;
  type: string;
  size: number;
  /** The migration's `custom_field`. */
  data: string;
  thumbnails: z.output<typeof thumbnailSchema>[];
  require_auth: boolean;
};

// ---------------------------------------------------------------------------
// Listing (`GET /v3/{open_channels|group_channels}/{channel_url}/messages`)
// ---------------------------------------------------------------------------

export const MESSAGE_LIST_LIMIT_MAX = 200;
export const MESSAGE_LIST_LIMIT_DEFAULT = 15;

function listLimit(name: string) {
  const message = `"${name}" must be between 0 and ${MESSAGE_LIST_LIMIT_MAX}.`;
  return textInteger(
    z
      .number({ error: `"${name}" must be a number.` })
      .int()
      .min(0, { error: message })
      .max(MESSAGE_LIST_LIMIT_MAX, { error: message }),
  ).default(MESSAGE_LIST_LIMIT_DEFAULT);
}

/** A comma-separated list in a query; empty items dropped. */
function commaList() {
  return z.string().transform((value) => value.split(",").filter((item) => item !== ""));
}

/**
 * Query of the message list: the messages around `message_ts` (or the message `message_id`),
 * `prev_limit` before and `next_limit` after, in time order.
 */
export const messageListQuerySchema = z.object({
  message_ts: textInteger(
    z.number({ error: '"message_ts" must be a number.' }).int().min(0, {
      error: '"message_ts" must be a whole number of milliseconds since the epoch.',
    }),
  ).optional(),
  message_id: textInteger(
    z.number({ error: '"message_id" must be a number.' }).int().min(1, {
      error: '"message_id" must be a message id.',
    }),
  ).optional(),
  prev_limit: listLimit("prev_limit"),
  next_limit: listLimit("next_limit"),
  include: textBoolean().default(true),
  reverse: textBoolean().default(false),
  message_type: z
    .enum(MESSAGE_TYPES, { error: `"message_type" must be one of ${MESSAGE_TYPES.join(", ")}.` })
    .optional(),
  sender_id: z.string().optional(),
  sender_ids: commaList().optional(),
  /** "*" (or absent) means every custom type; an empty value means messages without one. */
  custom_types: z.string().optional(),
  with_sorted_meta_array: textBoolean().default(false),
});

export type MessageListQuery = z.output<typeof messageListQuerySchema>;

/** A user as a message names it (sender, mentioned users). */
export const messageUserSchema = z.object({
  user_id: storableString("user_id"),
  nickname: z.string(),
  profile_url: z.string(),
});

/** A stored message as the message list answers it. */
export const messageResourceSchema = z.object({
  message_id: z.number().int(),
  type: z.enum(MESSAGE_TYPES),
  message: z.string(),
  custom_type: z.string(),
  data: z.string(),
  created_at: z.number().int(),
  updated_at: z.number().int(),
  channel_url: z.string(),
  channel_type: z.enum(["open", "group"]),
  mention_type: z.string(),
  mentioned_users: z.array(messageUserSchema),
  is_removed: z.boolean(),
  silent: z.boolean(),
  message_survival_seconds: z.number().int(),
  /** Absent for admin messages. */
  user: messageUserSchema.optional(),
  /** FILE messages only. */
  file: z
    .object({
      url: z.string(),
      name: z.string(),
      type: z.string(),
      size: z.number(),
      data: z.string(),
    })
    .optional(),
  thumbnails: z.array(thumbnailSchema).optional(),
  require_auth: z.boolean().optional(),
  /** Only with `with_sorted_meta_array=true`. */
  sorted_metaarray: sortedMetaarraySchema.optional(),
});

export type MessageResource = z.output<typeof messageResourceSchema>;

export const messageListResponseSchema = z.object({ messages: z.array(messageResourceSchema) });
export type MessageListResponse = z.output<typeof messageListResponseSchema>;
