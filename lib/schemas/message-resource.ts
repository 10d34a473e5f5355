import { z } from "zod";
import { storableString } from "./text-values";

/**
 * A message as the platform answers it (send, get, update, list, a group channel's
 * `last_message`), apart from the request schemas in ./messages.ts so that the channel
 * resources can hold one.
 */

export const MESSAGE_TYPES = ["MESG", "FILE", "ADMM"] as const;
export type MessageType = (typeof MESSAGE_TYPES)[number];

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

/** A user as a message names it (sender, mentioned users). */
export const messageUserSchema = z.object({
  user_id: storableString("user_id"),
  nickname: z.string(),
  profile_url: z.string(),
});

/** A root's thread (`include_thread_info=true`). */
export const threadInfoSchema = z.object({
  reply_count: z.number().int(),
  /** The newest reply's `created_at`; 0 without replies. */
  last_replied_at: z.number().int(),
  /** The users who replied most, most replies first (at most 10). */
  most_replies: z.array(messageUserSchema),
  updated_at: z.number().int(),
});

export type ThreadInfo = z.output<typeof threadInfoSchema>;

/** A reply's root as the reply shows it (`include_parent_message_info=true`). */
export const parentMessageInfoSchema = z.object({
  message: z.string(),
  type: z.enum(MESSAGE_TYPES),
  custom_type: z.string(),
  /** The root's `created_at`. */
  ts: z.number().int(),
  user: messageUserSchema.optional(),
  file: z
    .object({
      url: z.string(),
      file_name: z.string(),
      file_type: z.string(),
      file_size: z.number().int(),
    })
    .optional(),
});

/** The reactions of one key on a message (`include_reactions=true`). */
export const messageReactionSchema = z.object({
  key: z.string(),
  user_ids: z.array(z.string()),
  /** When the newest of them was added. */
  updated_at: z.number().int(),
});

/** A stored message as the platform answers it (send, get, update, list). */
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
  /**
   * The root this message replies to; 0 for a message that is no reply. The sandbox always
   * answers both; a platform's client reads a message without them as no reply.
   */
  parent_message_id: z.number().int().optional(),
  is_reply_to_channel: z.boolean().optional(),
  thread_info: threadInfoSchema.optional(),
  parent_message_info: parentMessageInfoSchema.optional(),
  reactions: z.array(messageReactionSchema).optional(),
});

export type MessageResource = z.output<typeof messageResourceSchema>;

export const messageListResponseSchema = z.object({ messages: z.array(messageResourceSchema) });
export type MessageListResponse = z.output<typeof messageListResponseSchema>;
