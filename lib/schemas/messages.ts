import { z } from "zod";
import { CUSTOM_TYPE_MAX } from "./channels";
import { storableString, textInteger } from "./text-values";

/** Messages per migrate request (section 8). */
export const MIGRATION_MESSAGES_MAX = 100;
/** The channels' max_length_message: a longer message could never have been sent. */
export const MESSAGE_LENGTH_MAX = 5000;

export const MESSAGE_TYPES = ["MESG", "FILE", "ADMM"] as const;
export type MessageType = (typeof MESSAGE_TYPES)[number];

export const migratedMessageSchema = z.object({
  user_id: z.string(),
  message_type: z.enum(MESSAGE_TYPES, {
    message: `"message_type" must be one of ${MESSAGE_TYPES.join(", ")}.`,
  }),
  message: storableString("message").max(MESSAGE_LENGTH_MAX),
  /** Milliseconds since the epoch, when the message was sent in the old system. */
  timestamp: z.number().refine((value) => Number.isSafeInteger(value) && value >= 0, {
    message: '"timestamp" must be a whole number of milliseconds since the epoch.',
  }),
  custom_type: storableString("custom_type").max(CUSTOM_TYPE_MAX).default(""),
  data: storableString("data").default(""),
  /** Makes a retried request safe: a dedup_id already stored in the channel is skipped. */
  dedup_id: z.string().optional(),
});

export type MigratedMessage = z.output<typeof migratedMessageSchema>;

export const migrationSchema = z.object({
  messages: z.array(migratedMessageSchema).max(MIGRATION_MESSAGES_MAX),
  update_read_ts: z.boolean().default(false),
});

export type Migration = z.output<typeof migrationSchema>;

export const MESSAGE_LIST_LIMIT_MAX = 200;
export const MESSAGE_LIST_LIMIT_DEFAULT = 15;

const nextLimitMessage = `"next_limit" must be between 1 and ${MESSAGE_LIST_LIMIT_MAX}.`;

/** Query of the message list: the messages sent at or after `message_ts`, oldest first. */
export const messageListQuerySchema = z.object({
  message_ts: textInteger(
    z.number({ error: '"message_ts" must be a number.' }).int().min(0, {
      error: '"message_ts" must be a whole number of milliseconds since the epoch.',
    }),
  ).default(0),
  next_limit: textInteger(
    z
      .number({ error: '"next_limit" must be a number.' })
      .int()
      .min(1, { error: nextLimitMessage })
      .max(MESSAGE_LIST_LIMIT_MAX, { error: nextLimitMessage }),
  ).default(MESSAGE_LIST_LIMIT_DEFAULT),
});

export type MessageListQuery = z.output<typeof messageListQuerySchema>;

/** A stored message as the message list answers it. */
export type MessageResource = {
  message_id: number;
  type: MessageType;
  message: string;
  custom_type: string;
  data: string;
  created_at: number;
  channel_url: string;
  channel_type: "open" | "group";
  user: { user_id: string; nickname: string; profile_url: string };
};
