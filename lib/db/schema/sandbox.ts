/** The embedded platform's tables: applications, users, channels, messages, files, webhook delivery. */
import { sql } from "drizzle-orm";
import type { MigratedFile, SortedMetaarray } from "@/lib/schemas/messages";
import type {
  GroupChannelMember,
  RateLimitSettings,
  SessionToken,
  StoredWebhookSettings,
} from "@/lib/schemas/sandbox-storage";
import type { WebhookPayload } from "@/lib/schemas/webhook-payloads";
import {
  bigint,
  bigserial,
  boolean,
  index,
  integer,
  json,
  jsonb,
  pgTable,
  primaryKey,
  text,
  timestamp,
  uniqueIndex,
} from "drizzle-orm/pg-core";
import { bytea, createdAt } from "./columns";

/** The JSON columns' types are zod schemas' (lib/schemas/sandbox-storage.ts), named here as before. */
export type { GroupChannelMember, RateLimitSettings, SessionToken };
export type WebhookSettings = StoredWebhookSettings;

export const sandboxApps = pgTable("sandbox_apps", {
  id: text("id").primaryKey(),
  name: text("name").notNull(),
  apiToken: text("api_token").notNull(),
  isDefault: boolean("is_default").notNull().default(false),
  webhook: jsonb("webhook").$type<WebhookSettings>().notNull(),
  /** Per-application rate limit set from the console; null falls back to SANDBOX_RATE_LIMIT. */
  rateLimit: jsonb("rate_limit").$type<RateLimitSettings>(),
  createdAt: createdAt(),
});

export const sandboxUsers = pgTable(
  "sandbox_users",
  {
    appId: text("app_id")
      .notNull()
      .references(() => sandboxApps.id, { onDelete: "cascade" }),
    userId: text("user_id").notNull(),
    nickname: text("nickname").notNull(),
    profileUrl: text("profile_url").notNull().default(""),
    accessToken: text("access_token").notNull().default(""),
    isActive: boolean("is_active").notNull().default(true),
    metadata: jsonb("metadata").$type<Record<string, string>>().notNull().default({}),
    sessionTokens: jsonb("session_tokens").$type<SessionToken[]>().notNull().default([]),
    /** Milliseconds since the epoch. */
    createdAt: bigint("created_at", { mode: "number" }).notNull(),
    seq: bigserial("seq", { mode: "number" }).notNull(),
  },
  (t) => [
    primaryKey({ columns: [t.appId, t.userId] }),
    index("sandbox_users_seq").on(t.appId, t.seq),
  ],
);

/** The columns open and group channels share (fresh builders for each table). */
const channelColumns = () => ({
  appId: text("app_id")
    .notNull()
    .references(() => sandboxApps.id, { onDelete: "cascade" }),
  channelUrl: text("channel_url").notNull(),
  name: text("name").notNull(),
  coverUrl: text("cover_url").notNull().default(""),
  customType: text("custom_type").notNull().default(""),
  data: text("data").notNull().default(""),
});

export const sandboxOpenChannels = pgTable(
  "sandbox_open_channels",
  {
    ...channelColumns(),
    isEphemeral: boolean("is_ephemeral").notNull().default(false),
    isDynamicPartitioned: boolean("is_dynamic_partitioned").notNull().default(true),
    operatorIds: jsonb("operator_ids").$type<string[]>().notNull().default([]),
    freeze: boolean("freeze").notNull().default(false),
    /** Seconds since the epoch, as the open channel resource reports it. */
    createdAt: bigint("created_at", { mode: "number" }).notNull(),
    seq: bigserial("seq", { mode: "number" }).notNull(),
  },
  (t) => [
    primaryKey({ columns: [t.appId, t.channelUrl] }),
    index("sandbox_open_channels_seq").on(t.appId, t.seq),
  ],
);

export const sandboxGroupChannels = pgTable(
  "sandbox_group_channels",
  {
    ...channelColumns(),
    isDistinct: boolean("is_distinct").notNull().default(false),
    isPublic: boolean("is_public").notNull().default(false),
    isSuper: boolean("is_super").notNull().default(false),
    isEphemeral: boolean("is_ephemeral").notNull().default(false),
    accessCode: text("access_code"),
    blockSdkUserChannelJoin: boolean("block_sdk_user_channel_join").notNull().default(false),
    createdBy: text("created_by"),
    members: jsonb("members").$type<GroupChannelMember[]>().notNull().default([]),
    operatorIds: jsonb("operator_ids").$type<string[]>().notNull().default([]),
    /** Sorted member ids plus custom_type, set only for distinct channels, to find the one to reuse. */
    distinctKey: text("distinct_key"),
    freeze: boolean("freeze").notNull().default(false),
    /** Milliseconds since the epoch. */
    createdAt: bigint("created_at", { mode: "number" }).notNull(),
    seq: bigserial("seq", { mode: "number" }).notNull(),
  },
  (t) => [
    primaryKey({ columns: [t.appId, t.channelUrl] }),
    index("sandbox_group_channels_seq").on(t.appId, t.seq),
    index("sandbox_group_channels_distinct").on(t.appId, t.distinctKey),
  ],
);

export const sandboxMessages = pgTable(
  "sandbox_messages",
  {
    messageId: bigserial("message_id", { mode: "number" }).primaryKey(),
    appId: text("app_id")
      .notNull()
      .references(() => sandboxApps.id, { onDelete: "cascade" }),
    channelUrl: text("channel_url").notNull(),
    channelType: text("channel_type").$type<"open" | "group">().notNull(),
    /** Null for admin messages (ADMM), which have no sender. */
    userId: text("user_id"),
    messageType: text("message_type").$type<"MESG" | "FILE" | "ADMM">().notNull(),
    message: text("message").notNull().default(""),
    customType: text("custom_type").notNull().default(""),
    data: text("data").notNull().default(""),
    /** FILE messages only: the file as migrated. */
    file: jsonb("file").$type<MigratedFile>(),
    mentionedUserIds: jsonb("mentioned_user_ids").$type<string[]>().notNull().default([]),
    sortedMetaarray: jsonb("sorted_metaarray").$type<SortedMetaarray>().notNull().default([]),
    isSilent: boolean("is_silent").notNull().default(false),
    dedupId: text("dedup_id"),
    /** Milliseconds since the epoch. */
    timestamp: bigint("timestamp", { mode: "number" }).notNull(),
    /** The root of the thread this message replies to; null for a message that is no reply. */
    parentMessageId: bigint("parent_message_id", { mode: "number" }),
    /** A reply sent to the channel as well (`reply_to_channel`). */
    isReplyToChannel: boolean("is_reply_to_channel").notNull().default(false),
    /** Milliseconds since the epoch of the last update; 0 until the message is updated. */
    updatedAt: bigint("updated_at", { mode: "number" }).notNull().default(0),
  },
  (t) => [
    index("sandbox_messages_channel").on(t.appId, t.channelUrl, t.timestamp),
    uniqueIndex("sandbox_messages_dedup")
      .on(t.appId, t.channelUrl, t.dedupId)
      .where(sql`${t.dedupId} is not null`),
    // A root's thread: its replies counted and listed. Most messages are no reply.
    index("sandbox_messages_thread")
      .on(t.parentMessageId, t.timestamp)
      .where(sql`${t.parentMessageId} is not null`),
  ],
);

/**
 * Reactions on group channel messages: one row per user and key. Deleted with their message
 * (and so with its channel or application).
 */
export const sandboxMessageReactions = pgTable(
  "sandbox_message_reactions",
  {
    messageId: bigint("message_id", { mode: "number" })
      .notNull()
      .references(() => sandboxMessages.messageId, { onDelete: "cascade" }),
    reaction: text("reaction").notNull(),
    userId: text("user_id").notNull(),
    /** Milliseconds since the epoch. */
    updatedAt: bigint("updated_at", { mode: "number" }).notNull(),
    /** The order reactions were added in, which the reaction lists keep. */
    seq: bigserial("seq", { mode: "number" }).notNull(),
  },
  (t) => [primaryKey({ columns: [t.messageId, t.reaction, t.userId] })],
);

/**
 * Migration requests stored as they were accepted, one row each, until their messages are filed
 * into sandbox_messages in batch order: once migrations to the channel pause, before its history
 * is read, or at start (see lib/sandbox/messages.ts). A request costs one row instead of a
 * hundred index entries.
 */
export const sandboxMessageBatches = pgTable(
  "sandbox_message_batches",
  {
    batchId: bigserial("batch_id", { mode: "number" }).primaryKey(),
    appId: text("app_id")
      .notNull()
      .references(() => sandboxApps.id, { onDelete: "cascade" }),
    channelUrl: text("channel_url").notNull(),
    channelType: text("channel_type").$type<"open" | "group">().notNull(),
    /** The request's messages as a JSON array of sandbox_messages' columns. */
    messages: text("messages").notNull(),
  },
  (t) => [index("sandbox_message_batches_channel").on(t.appId, t.channelUrl, t.batchId)],
);

/** Profile images and channel covers uploaded with multipart requests, served back by URL. */
export const sandboxFiles = pgTable("sandbox_files", {
  id: text("id").primaryKey(),
  appId: text("app_id")
    .notNull()
    .references(() => sandboxApps.id, { onDelete: "cascade" }),
  contentType: text("content_type").notNull(),
  bytes: bytea("bytes").notNull(),
  createdAt: createdAt(),
});

// ---------------------------------------------------------------------------
// Webhook delivery (durable outbox)
// ---------------------------------------------------------------------------

export type WebhookEventStatus = "pending" | "delivered" | "failed" | "not_subscribed";
/**
 * What became of a delivery (sandbox contract, "Webhook deliveries, further"): a 2xx answer,
 * another status, no answer after every attempt, or refused by the address guard.
 */
export type WebhookOutcome = "pending" | "delivered" | "failed" | "no_response" | "refused";
/** What became of one attempt; `interrupted` when the server stopped while it was under way. */
export type WebhookAttemptOutcome =
  "delivered" | "failed" | "no_response" | "refused" | "interrupted";

/**
 * The outbox and the delivery log. Stored with `fillfactor = 50` (migration 0013, by hand:
 * drizzle-kit has no table storage parameters) so the claim's update, which changes no indexed
 * column, finds room on its page and writes no index entry.
 */
export const webhookEvents = pgTable(
  "webhook_events",
  {
    id: text("id").primaryKey(),
    appId: text("app_id")
      .notNull()
      .references(() => sandboxApps.id, { onDelete: "cascade" }),
    category: text("category").notNull(),
    /** `json`, not `jsonb`: receivers get the keys in the order section 6 lists them. */
    payload: json("payload").$type<WebhookPayload>().notNull(),
    /** The endpoint at the time the event was accepted. */
    url: text("url").notNull(),
    status: text("status").$type<WebhookEventStatus>().notNull().default("pending"),
    outcome: text("outcome").$type<WebhookOutcome>().notNull().default("pending"),
    /**
     * The direct call or room the event belongs to (`direct_call:<call_id>`, `room:<room_id>`):
     * events with the same key are delivered in order, and the log searches by it.
     */
    orderKey: text("order_key").notNull().default(""),
    attemptCount: integer("attempt_count").notNull().default(0),
    /** Set when an attempt starts, cleared when it is recorded: still set after a crash. */
    attemptStartedAt: timestamp("attempt_started_at", { withTimezone: true }),
    nextAttemptAt: timestamp("next_attempt_at", { withTimezone: true }).notNull().defaultNow(),
    /**
     * The worker that claimed the event for an attempt, by its holder key
     * (lib/background/holder.ts): it holds the event for as long as it lives, however long it
     * stalls, and another worker takes the event once that holder is gone.
     */
    lockedBy: bigint("locked_by", { mode: "number" }),
    createdAt: createdAt(),
    seq: bigserial("seq", { mode: "number" }).notNull(),
  },
  (t) => [
    index("webhook_events_app_seq").on(t.appId, t.seq),
    index("webhook_events_app_outcome_seq").on(t.appId, t.outcome, t.seq),
    index("webhook_events_app_order_key").on(t.appId, t.orderKey, t.seq),
    index("webhook_events_created_at").on(t.createdAt),
    // The claim reads pending events in order; without this it sorts every pending event each time.
    index("webhook_events_pending_seq")
      .on(t.seq)
      .where(sql`${t.status} = 'pending'`),
    // Whether an older event of the same call or room is still pending: one probe per claimed
    // event, which must not walk the key's whole delivered history.
    index("webhook_events_pending_order_key")
      .on(t.appId, t.orderKey, t.seq)
      .where(sql`${t.status} = 'pending'`),
  ],
);

export const webhookAttempts = pgTable(
  "webhook_attempts",
  {
    id: bigserial("id", { mode: "number" }).primaryKey(),
    /**
     * The event (no foreign key: its check, one probe and row lock per attempt recorded, was a
     * fifth of PostgreSQL's work per delivery). Whatever deletes events deletes their attempts
     * (purgeDeliveries, deleteApplication), and recording one needs its event to still exist.
     */
    eventId: text("event_id").notNull(),
    attempt: integer("attempt").notNull(),
    at: timestamp("at", { withTimezone: true }).notNull(),
    status: integer("status"),
    error: text("error"),
    outcome: text("outcome").$type<WebhookAttemptOutcome>().notNull().default("no_response"),
    latencyMs: integer("latency_ms").notNull(),
    requestHeaders: jsonb("request_headers").$type<Record<string, string>>(),
    responseHeaders: jsonb("response_headers").$type<Record<string, string>>(),
    /** The first 2 KiB of the response body. */
    responseExcerpt: text("response_excerpt"),
  },
  (t) => [
    uniqueIndex("webhook_attempts_event_attempt").on(t.eventId, t.attempt),
    index("webhook_attempts_at").on(t.at),
  ],
);
