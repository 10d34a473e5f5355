import { z } from "zod";
import { CUSTOM_TYPE_MAX } from "./channels";
import { MESSAGE_TYPES, sortedMetaarraySchema, thumbnailSchema } from "./message-resource";
import { queryBoolean, storableString, textInteger } from "./text-values";

export * from "./message-resource";

/** Messages per migrate request (section 8). */
export const MIGRATION_MESSAGES_MAX = 100;
/**
 * The `sorted_metaarray` key every message an import sends carries, its value the message's
 * dedup id: how a read of the channel finds the row a platform message came from.
 */
export const IMPORT_DEDUP_KEY = "import_dedup_id";
/** The channels' max_length_message: a longer message could never have been sent. */
export const MESSAGE_LENGTH_MAX = 5000;

// ---------------------------------------------------------------------------
// Migration (`POST /v3/migration/{channel_url}`): the three shapes of the real platform
// (MigrateMessagesTextMessageRequest, ...FileMessageRequest, ...AdminMessageRequest).
// The import validator checks rows with these same schemas.
// ---------------------------------------------------------------------------

/** Milliseconds since the epoch, when the message was sent in the old system. */
export const messageTimestampSchema = z
  .number()
  .int()
  .min(0, { message: '"timestamp" must be a whole number of milliseconds since the epoch.' })
  // Stored as a 64-bit integer: a larger value could be accepted but never stored.
  .max(Number.MAX_SAFE_INTEGER, {
    message: '"timestamp" must be a whole number of milliseconds since the epoch.',
  });

/** Message ids are 64-bit integers; the ones JSON and JavaScript carry exactly. */
function messageIdNumber(field: string) {
  const message = `"${field}" must be a message id.`;
  return z
    .number({ error: `"${field}" must be a number.` })
    .int()
    .max(Number.MAX_SAFE_INTEGER, { error: message });
}

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

/** A FILE message's file as stored (`sandbox_messages.file`) and answered. */
export const migratedFileSchema = z.object({
  url: z.string(),
  name: z.string(),
  type: z.string(),
  size: z.number(),
  /** The migration's `custom_field`. */
  data: z.string(),
  thumbnails: z.array(thumbnailSchema),
  require_auth: z.boolean(),
});
export type MigratedFile = z.output<typeof migratedFileSchema>;

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

export const REPLY_TYPES = ["none", "all", "only_reply_to_channel"] as const;
export type ReplyType = (typeof REPLY_TYPES)[number];

/** What a read adds to each message: `include_*` and `with_sorted_meta_array`. */
const messageDetailsShape = {
  /** Replies carry `parent_message_info`, their root's text, type, time and sender. */
  include_parent_message_info: queryBoolean().default(false),
  /** Messages that are no reply carry `thread_info`. */
  include_thread_info: queryBoolean().default(false),
  /** Every message carries `reactions` (always empty in open channels). */
  include_reactions: queryBoolean().default(false),
  with_sorted_meta_array: queryBoolean().default(false),
};

export type MessageDetails = {
  include_parent_message_info: boolean;
  include_thread_info: boolean;
  include_reactions: boolean;
  with_sorted_meta_array: boolean;
};

/** A reference point of the list: 0 means "not given", as the platform's SDKs send it. */
function referencePoint(name: string, message: string) {
  return textInteger(
    z
      .number({ error: `"${name}" must be a number.` })
      .int()
      .min(0, { error: message })
      .max(Number.MAX_SAFE_INTEGER, { error: message }),
  )
    .optional()
    .transform((value) => (value === 0 ? undefined : value));
}

/**
 * Query of the message list: the messages around `message_ts` (or the message `message_id`),
 * `prev_limit` before and `next_limit` after, in time order. The platform's SDKs send both
 * reference points, the one not meant as 0; two given at once are refused (docs/sandbox.md).
 */
export const messageListQuerySchema = z
  .object({
    message_ts: referencePoint(
      "message_ts",
      '"message_ts" must be a whole number of milliseconds since the epoch.',
    ),
    message_id: referencePoint("message_id", '"message_id" must be a message id.'),
    prev_limit: listLimit("prev_limit"),
    next_limit: listLimit("next_limit"),
    include: queryBoolean().default(true),
    reverse: queryBoolean().default(false),
    message_type: z
      .enum(MESSAGE_TYPES, { error: `"message_type" must be one of ${MESSAGE_TYPES.join(", ")}.` })
      .optional(),
    sender_id: z.string().optional(),
    sender_ids: commaList().optional(),
    /** "*" (or absent) means every custom type; an empty value means messages without one. */
    custom_types: z.string().optional(),
    /** Which replies are listed: none (the default), all, or those also sent to the channel. */
    include_reply_type: z
      .preprocess(
        (value) => (typeof value === "string" ? value.toLowerCase() : value),
        z.enum(REPLY_TYPES, {
          error: `"include_reply_type" must be one of ${REPLY_TYPES.join(", ")}.`,
        }),
      )
      .default("none"),
    ...messageDetailsShape,
  })
  .superRefine((query, ctx) => {
    if (query.message_ts !== undefined && query.message_id !== undefined) {
      ctx.addIssue({
        code: "custom",
        path: ["message_id"],
        message:
          '"message_ts" and "message_id" are both given: give one of them (0 means not given).',
      });
    }
  });

export type MessageListQuery = z.output<typeof messageListQuerySchema>;

// ---------------------------------------------------------------------------
// Sending (`POST /v3/{open_channels|group_channels}/{channel_url}/messages`) and the
// operations on one message. The platform's `sendAMessage_request`; the sandbox contract
// adds `parent_message_id` (threads) and the FILE fields beside `url`.
// ---------------------------------------------------------------------------

/** Reaction keys, e.g. an emoji's name. */
export const REACTION_KEY_MAX = 128;

/** What every sent message may carry, whatever its type. */
const sentMessageCommon = {
  custom_type: storableString("custom_type").max(CUSTOM_TYPE_MAX).default(""),
  data: storableString("data").default(""),
  mentioned_user_ids: z.array(storableString("mentioned_user_ids")).default([]),
  /** A dedup_id already stored in the channel answers the stored message and stores nothing. */
  dedup_id: storableString("dedup_id").optional(),
  sorted_metaarray: sortedMetaarraySchema.default([]),
  is_silent: z.boolean().default(false),
  /** The message's time in milliseconds (default: now), so a migrated reply keeps its own. */
  created_at: messageTimestampSchema.optional(),
  /** The root of the thread this message replies to; 0 (or absent) for none. */
  parent_message_id: messageIdNumber("parent_message_id")
    .min(0, { error: '"parent_message_id" must be a message id.' })
    .default(0),
  /** A reply that is also shown in the channel (listed by `include_reply_type=only_reply_to_channel`). */
  reply_to_channel: z.boolean().default(false),
  /** Accepted for the platform's clients; the sandbox sends no push notifications. */
  send_push: z.boolean().optional(),
  /** Accepted for the platform's clients; the sandbox keeps no read receipts. */
  mark_as_read: z.boolean().optional(),
};

/** A file as the platform's `SendbirdFile` describes it (`files` of a FILE message). */
const sentFileSchema = z.object({
  url: storableString("url").min(1, { message: '"url" must not be empty.' }),
  file_name: storableString("file_name").default(""),
  file_size: z.number().int().min(0).default(0),
  file_type: storableString("file_type").default(""),
  thumbnails: z.array(thumbnailSchema).default([]),
  require_auth: z.boolean().default(false),
});

export const sendTextMessageSchema = z.object({
  message_type: z.literal("MESG"),
  user_id: storableString("user_id"),
  message: storableString("message").max(MESSAGE_LENGTH_MAX),
  ...sentMessageCommon,
});

/**
 * A FILE message names its file by `url` (with `file_name`, `file_size`, ... beside it) or by
 * `files`, one file as an object or an array of one. Several files in one message are refused:
 * the sandbox keeps one file per message (docs/sandbox.md).
 */
export const sendFileMessageSchema = z
  .object({
    message_type: z.literal("FILE"),
    user_id: storableString("user_id"),
    url: storableString("url").min(1, { message: '"url" must not be empty.' }).optional(),
    files: z
      .union([
        sentFileSchema,
        z
          .array(sentFileSchema)
          .min(1, { error: '"files" must hold one file.' })
          .max(1, { error: '"files" must hold one file: the sandbox keeps one per message.' }),
      ])
      .optional(),
    file_name: storableString("file_name").default(""),
    file_size: z.number().int().min(0).default(0),
    file_type: storableString("file_type").default(""),
    thumbnails: z.array(thumbnailSchema).default([]),
    require_auth: z.boolean().default(false),
    custom_field: storableString("custom_field").default(""),
    ...sentMessageCommon,
  })
  .superRefine((message, ctx) => {
    if (message.url === undefined && message.files === undefined) {
      // Reported as missing (400105), naming url.
      ctx.addIssue({ code: "invalid_type", expected: "string", path: ["url"], input: undefined });
    } else if (message.url !== undefined && message.files !== undefined) {
      ctx.addIssue({
        code: "custom",
        path: ["files"],
        message: '"url" and "files" are both given: name the file once.',
      });
    }
  })
  .transform(({ files, url, ...message }) => {
    const file = Array.isArray(files) ? files[0] : files;
    return {
      ...message,
      file: {
        url: file?.url ?? url ?? "",
        name: file?.file_name ?? message.file_name,
        type: file?.file_type ?? message.file_type,
        size: file?.file_size ?? message.file_size,
        data: message.custom_field,
        thumbnails: file?.thumbnails ?? message.thumbnails,
        require_auth: file?.require_auth ?? message.require_auth,
      } satisfies MigratedFile,
    };
  });

/** An admin message has no sender: a `user_id` sent with it (the platform's SDKs do) is ignored. */
export const sendAdminMessageSchema = z.object({
  message_type: z.literal("ADMM"),
  user_id: z.string().optional(),
  message: storableString("message").max(MESSAGE_LENGTH_MAX),
  ...sentMessageCommon,
});

export const sendMessageSchema = z.discriminatedUnion(
  "message_type",
  [sendTextMessageSchema, sendFileMessageSchema, sendAdminMessageSchema],
  { error: `"message_type" must be one of ${MESSAGE_TYPES.join(", ")}.` },
);

export type SendMessage = z.output<typeof sendMessageSchema>;
export type SendMessageInput = z.input<typeof sendMessageSchema>;

/** `GET .../messages/{message_id}`: what the answer adds, as in the list. */
export const messageGetQuerySchema = z.object(messageDetailsShape);

/**
 * `PUT .../messages/{message_id}`: `message_type` is required, as the platform's description
 * says, and must be the message's own; the properties given replace the stored ones.
 */
export const updateMessageSchema = z.object({
  message_type: z.enum(MESSAGE_TYPES, {
    error: `"message_type" must be one of ${MESSAGE_TYPES.join(", ")}.`,
  }),
  message: storableString("message").max(MESSAGE_LENGTH_MAX).optional(),
  custom_type: storableString("custom_type").max(CUSTOM_TYPE_MAX).optional(),
  data: storableString("data").optional(),
  mentioned_user_ids: z.array(storableString("mentioned_user_ids")).optional(),
  sorted_metaarray: sortedMetaarraySchema.optional(),
});

export type UpdateMessage = z.output<typeof updateMessageSchema>;
export type UpdateMessageInput = z.input<typeof updateMessageSchema>;

/** A message id in a path: decimal digits. */
export const messageIdSchema = textInteger(
  messageIdNumber("message_id").min(1, { error: '"message_id" must be a message id.' }),
);

export const messageTotalCountResponseSchema = z.object({ total: z.number().int() });

// ---------------------------------------------------------------------------
// Reactions (group channels only)
// ---------------------------------------------------------------------------

export const reactionKeySchema = storableString("reaction")
  .min(1, { error: '"reaction" must not be empty.' })
  .max(REACTION_KEY_MAX);

/** `POST .../messages/{message_id}/reactions`, and the query of its DELETE. */
export const reactionSchema = z.object({
  user_id: storableString("user_id"),
  reaction: reactionKeySchema,
});

export type ReactionInput = z.input<typeof reactionSchema>;

export const reactionResponseSchema = z.object({
  reaction: z.string(),
  user_id: z.string(),
  success: z.boolean(),
  msg_id: z.number().int(),
  updated_at: z.number().int(),
});

/** `GET .../reactions`: each key with the users who added it, in the order they did. */
export const reactionListResponseSchema = z.object({
  reactions: z.record(z.string(), z.array(z.string())),
});
