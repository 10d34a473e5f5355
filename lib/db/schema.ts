import { sql } from "drizzle-orm";
import type {
  FinalAction,
  FinalReason,
  FinalStepState,
  FollowUps,
  ImportResource,
  JobOptions,
  JobPlan,
  JobStatus,
  PlanProgress,
  Rehearsal,
  RowIssue,
  RowState,
  VerificationCounts,
  VerificationFindingKind,
  VerificationScope,
  VerificationState,
} from "@/lib/imports/types";
import type { MessageReaction } from "@/lib/imports/reactions";
import type { MigratedFile, SortedMetaarray } from "@/lib/schemas/messages";
import type { DeliveryAttempt } from "@/lib/schemas/sandbox-events";
import type { WebhookPayload } from "@/lib/schemas/webhook-payloads";
import {
  bigint,
  bigserial,
  boolean,
  customType,
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

const bytea = customType<{ data: Uint8Array; driverData: Uint8Array }>({
  dataType: () => "bytea",
});

const createdAt = () => timestamp("created_at", { withTimezone: true }).notNull().defaultNow();

// ---------------------------------------------------------------------------
// Console
// ---------------------------------------------------------------------------

/** Small key/value settings the console generates once and keeps (password hash, cookie secret). */
export const consoleSettings = pgTable("console_settings", {
  key: text("key").primaryKey(),
  value: text("value").notNull(),
  updatedAt: timestamp("updated_at", { withTimezone: true }).notNull().defaultNow(),
});

/** Administrator sessions; the cookie carries the id, signed. Deleting the row signs out. */
export const adminSessions = pgTable("admin_sessions", {
  id: text("id").primaryKey(),
  createdAt: createdAt(),
  expiresAt: timestamp("expires_at", { withTimezone: true }).notNull(),
  /** The target this session works on (lib/targets); null: the default one. */
  targetId: text("target_id"),
});

/**
 * Remote platforms added on the Settings page (lib/targets). The embedded sandbox's
 * applications are targets too, read from sandbox_apps, so they are not repeated here.
 */
export const platformTargets = pgTable("platform_targets", {
  id: text("id").primaryKey(),
  name: text("name").notNull(),
  appId: text("app_id").notNull(),
  chatBaseUrl: text("chat_base_url").notNull(),
  callsBaseUrl: text("calls_base_url").notNull(),
  /** The API token, sealed by lib/targets/secret-box.ts (AES-256-GCM when a key is given). */
  sealedApiToken: text("sealed_api_token").notNull(),
  /** What the administrator said it is: confirmations say "production platform" or "sandbox". */
  environment: text("environment").$type<"production" | "sandbox">().notNull(),
  createdAt: createdAt(),
});

// ---------------------------------------------------------------------------
// Sandbox platform
// ---------------------------------------------------------------------------

export type WebhookSettings = {
  enabled: boolean;
  url: string;
  include_members: boolean;
  enabled_events: string[];
};

/** Requests per second; `migration` covers POST /v3/migration/..., which falls under `write` when unset. */
export type RateLimitSettings = { get?: number; write?: number; migration?: number };

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

export type SessionToken = { session_token: string; expires_at: number };

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

export type GroupChannelMember = {
  user_id: string;
  state: "joined" | "invited";
  hidden_status: "unhidden" | "hidden_allow_auto_unhide" | "hidden_prevent_auto_unhide";
};

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

// ---------------------------------------------------------------------------
// Console test deliveries (remote platform)
// ---------------------------------------------------------------------------

/**
 * Test events the console posted itself, because a remote platform has no operation to emit
 * one; the attempts live beside the event since they are only ever read together.
 */
export const consoleTestDeliveries = pgTable(
  "console_test_deliveries",
  {
    id: text("id").primaryKey(),
    /**
     * The remote target the event was posted for (lib/targets): each target's log shows its own.
     * Null: posted before targets existed, for the target PLATFORM_CHAT_URL fixed.
     */
    targetId: text("target_id"),
    category: text("category").notNull(),
    url: text("url").notNull(),
    payload: jsonb("payload").$type<WebhookPayload>().notNull(),
    status: text("status").$type<"pending" | "delivered" | "failed">().notNull().default("pending"),
    attempts: jsonb("attempts").$type<DeliveryAttempt[]>().notNull().default([]),
    createdAt: createdAt(),
    seq: bigserial("seq", { mode: "number" }).notNull(),
  },
  (t) => [index("console_test_deliveries_seq").on(t.seq)],
);

// ---------------------------------------------------------------------------
// Guided imports (durable jobs)
// ---------------------------------------------------------------------------

/** One import: the file's shape, its plan, and where the run stands. */
export const importJobs = pgTable(
  "import_jobs",
  {
    id: text("id").primaryKey(),
    /** The target the job acts on (lib/targets), chosen when it was made; null: the default one. */
    targetId: text("target_id"),
    resource: text("resource").$type<ImportResource>().notNull(),
    fileName: text("file_name").notNull(),
    columns: jsonb("columns").$type<string[]>().notNull(),
    mapping: jsonb("mapping").$type<Record<string, string>>().notNull(),
    /**
     * What is done to a column's values before they are read (lib/imports/transforms.ts),
     * by column; parsed with `columnTransformsSchema` where it is read.
     */
    transforms: jsonb("transforms").$type<Record<string, unknown>>().notNull().default({}),
    /** The administrator's choices for the job beyond the mapping (`JobOptions`). */
    options: jsonb("options").$type<JobOptions>().notNull().default({}),
    totalRows: integer("total_rows").notNull(),
    /** The row a spreadsheet shows for the first data row (header row included): row numbers everywhere count from it. */
    firstRow: integer("first_row").notNull().default(2),
    status: text("status").$type<JobStatus>().notNull().default("draft"),
    /** What the plan found (counts, warnings); null until planned. */
    plan: jsonb("plan").$type<JobPlan>(),
    plannedAt: timestamp("planned_at", { withTimezone: true }),
    /** How far the plan being made has got; null unless the job is `planning`. */
    planProgress: jsonb("plan_progress").$type<PlanProgress>(),
    /** The worker making the plan, and until when its claim holds unless renewed. */
    claimedBy: text("claimed_by"),
    claimedUntil: timestamp("claimed_until", { withTimezone: true }),
    /** The last rehearsal's outcome in a scratch sandbox application. */
    rehearsal: jsonb("rehearsal").$type<Rehearsal>(),
    /** Why the job stopped, when something other than a row went wrong. */
    error: text("error"),
    createdAt: createdAt(),
    startedAt: timestamp("started_at", { withTimezone: true }),
    finishedAt: timestamp("finished_at", { withTimezone: true }),
  },
  (t) => [
    index("import_jobs_status").on(t.status, t.createdAt),
    index("import_jobs_target").on(t.targetId, t.createdAt),
  ],
);

/** One data row of an import's file, with what will be (or was) sent for it. */
export const importRows = pgTable(
  "import_rows",
  {
    jobId: text("job_id")
      .notNull()
      .references(() => importJobs.id, { onDelete: "cascade" }),
    rowIndex: integer("row_index").notNull(),
    values: jsonb("values").$type<string[]>().notNull(),
    excluded: boolean("excluded").notNull().default(false),
    state: text("state").$type<RowState>().notNull().default("pending"),
    /** user_id or channel_url (the file's or the plan's derived one). */
    resourceKey: text("resource_key"),
    sourceId: text("source_id"),
    /** The creation body the row sends (the planned request). */
    body: jsonb("body").$type<Record<string, unknown>>(),
    followUps: jsonb("follow_ups").$type<FollowUps>(),
    /** null: none to make; pending; done; failed. */
    followUpState: text("follow_up_state").$type<"pending" | "done" | "failed">(),
    issues: jsonb("issues").$type<RowIssue[]>().notNull().default([]),
    /** What the plan found beyond the row itself (duplicates, unknown members); redone by each plan. */
    planIssues: jsonb("plan_issues").$type<RowIssue[]>().notNull().default([]),
    /** The plan's snapshot: already on the platform before the job ran. */
    existedBefore: boolean("existed_before").notNull().default(false),
    /** Creation requests sent so far (an earlier one may have been done without our knowing). */
    attempts: integer("attempts").notNull().default(0),
    /**
     * Creation requests the platform refused with 429. The first few do not use up a try
     * (`FREE_RATE_LIMITED_TRIES` in lib/imports/jobs/run/row-retry.ts); past them each one does.
     */
    rateLimitedTries: integer("rate_limited_tries").notNull().default(0),
    resultCode: integer("result_code"),
    resultMessage: text("result_message"),
    nextAttemptAt: timestamp("next_attempt_at", { withTimezone: true }),
    /** A worker holds the row until this time; a dead worker's claim runs out by itself. */
    lockedUntil: timestamp("locked_until", { withTimezone: true }),
    lockedBy: text("locked_by"),
    finishedAt: timestamp("finished_at", { withTimezone: true }),
    /** A reply (messages): the source id of its thread's root, the top one for a reply to a reply. */
    parentSourceId: text("parent_source_id"),
    /** A message's reactions, `[{key, user_ids}]`, added by the replies stage. */
    reactions: jsonb("reactions").$type<MessageReaction[]>(),
    /**
     * The row's reactions as uploaded, kept while the plan leaves some of them out of
     * `reactions` (by users who are not members of the group channel); each plan starts again
     * from them. Null when the plan left none out.
     */
    reactionsAsUploaded: jsonb("reactions_as_uploaded").$type<MessageReaction[]>(),
    /** The message's id on the platform, once the replies stage has found (a root) or sent (a reply) it. */
    platformMessageId: bigint("platform_message_id", { mode: "number" }),
    /**
     * The replies stage (messages): null when nothing is sent after the message is migrated;
     * pending (a root's id to find, a reply to send, reactions to add); done; failed.
     */
    threadState: text("thread_state").$type<"pending" | "done" | "failed">(),
    /**
     * A newer export's message an earlier import sent, edited in the source since: the fields
     * the update API can change that the source changed, with the values the earlier import
     * sent (what the platform holds until the update). Null when there is nothing to update.
     */
    edit: jsonb("edit").$type<Record<string, unknown>>(),
    /** The update of an edited message (`edit`): pending; done; failed. Null without one. */
    editState: text("edit_state").$type<"pending" | "done" | "failed">(),
  },
  (t) => [
    primaryKey({ columns: [t.jobId, t.rowIndex] }),
    // The replies stage's work of a channel: few rows of the job, found without reading the rest.
    index("import_rows_thread_pending")
      .on(t.jobId, t.resourceKey, t.rowIndex)
      .where(sql`${t.threadState} = 'pending'`),
    // The edits a newer export carries (lib/imports/jobs/replies/): few rows of the job.
    index("import_rows_edit_pending")
      .on(t.jobId, t.resourceKey, t.rowIndex)
      .where(sql`${t.editState} = 'pending'`),
    index("import_rows_state").on(t.jobId, t.state, t.rowIndex),
    // The runner's claims that look behind its place in the job (lib/imports/jobs/run/claims.ts):
    // created rows whose follow-ups remain, and rows waiting for a retry. Both are few, and
    // without them each claim read every row of the job already done (the claims' cost grew
    // with the job: two thirds of a 30,000-user run's time on PGlite).
    index("import_rows_follow_ups_pending")
      .on(t.jobId, t.rowIndex)
      .where(sql`${t.state} = 'created' and ${t.followUpState} = 'pending'`),
    index("import_rows_retries")
      .on(t.jobId, t.rowIndex)
      .where(sql`${t.state} = 'pending' and ${t.nextAttemptAt} is not null`),
    // Messages are claimed a channel at a time.
    index("import_rows_channel").on(t.jobId, t.resourceKey, t.state),
    // A channel's messages still to send, in the order they are sent: a claim reads the next
    // few hundred from here without sorting the channel.
    index("import_rows_pending_messages")
      .on(t.jobId, t.resourceKey, sql`(${t.body} -> 'timestamp')`, t.rowIndex)
      .where(sql`${t.state} = 'pending' and ${t.body} ? 'timestamp'`),
  ],
);

/**
 * The migration's last stage (lib/imports/jobs/finish): the deactivations and freezes deferred
 * until every message that names those people or channels has been sent. One row per user or
 * channel and job, so asking again adds nothing and a step done stays done.
 */
export const importFinalSteps = pgTable(
  "import_final_steps",
  {
    jobId: text("job_id")
      .notNull()
      .references(() => importJobs.id, { onDelete: "cascade" }),
    action: text("action").$type<FinalAction>().notNull(),
    /** user_id, or the channel's channel_url. */
    key: text("key").notNull(),
    /** users, open_channels or group_channels: where the request goes. */
    resource: text("resource").$type<Exclude<ImportResource, "messages">>().notNull(),
    reason: text("reason").$type<FinalReason>().notNull(),
    /** The file's row for a deactivation or freeze the file asked for; null for a sender. */
    rowIndex: integer("row_index"),
    state: text("state").$type<FinalStepState>().notNull(),
    resultCode: integer("result_code"),
    resultMessage: text("result_message"),
    lockedBy: text("locked_by"),
    lockedUntil: timestamp("locked_until", { withTimezone: true }),
    finishedAt: timestamp("finished_at", { withTimezone: true }),
  },
  (t) => [
    primaryKey({ columns: [t.jobId, t.action, t.key] }),
    index("import_final_steps_state").on(t.state),
  ],
);

/**
 * A messages import's channel: who sends its history now (one worker at a time, in order,
 * until its lease runs out), and how far the platform has taken it. The messages themselves are
 * only read to be sent: a message the channel's sending has passed is created
 * (`lib/imports/jobs/store/row-state.ts`), and only a failure is written on its row.
 */
export const importChannelLeases = pgTable(
  "import_channel_leases",
  {
    jobId: text("job_id")
      .notNull()
      .references(() => importJobs.id, { onDelete: "cascade" }),
    resourceKey: text("resource_key").notNull(),
    lockedBy: text("locked_by"),
    lockedUntil: timestamp("locked_until", { withTimezone: true }),
    /** A request of the channel waits for a retry: nothing of it is sent before this. */
    nextAttemptAt: timestamp("next_attempt_at", { withTimezone: true }),
    /**
     * The last message the platform took, as (timestamp, row index) in sending order: every
     * message still pending up to here is created. Null before the first.
     */
    sentThroughTimestamp: jsonb("sent_through_timestamp"),
    sentThroughRow: integer("sent_through_row"),
    /** The messages that place has passed, counted as it moved: what the counts add up. */
    sentMessages: integer("sent_messages").notNull().default(0),
  },
  (t) => [primaryKey({ columns: [t.jobId, t.resourceKey] })],
);

/**
 * A Verify of an import (lib/imports/jobs/verify): what the target holds now, compared with what
 * the import holds. Worked in the background a unit at a time (a row, a page of users, or a
 * channel's messages): each unit's findings and the cursor past it are written together, so a
 * Verify cut short by a restart goes on after its last unit, and adds nothing twice.
 */
export const importVerifications = pgTable(
  "import_verifications",
  {
    id: text("id").primaryKey(),
    jobId: text("job_id")
      .notNull()
      .references(() => importJobs.id, { onDelete: "cascade" }),
    /** `run`: the console's target; `rehearsal`: the scratch application of the last rehearsal. */
    scope: text("scope").$type<VerificationScope>().notNull(),
    /** The scratch application verified (rehearsal scope). */
    appId: text("app_id"),
    state: text("state").$type<VerificationState>().notNull().default("running"),
    /** Messages compared per channel: null for every one, else a sample of this many. */
    sample: integer("sample"),
    /** Units to verify (rows of a users or channels import, channels of a messages import) and verified. */
    total: integer("total").notNull().default(0),
    done: integer("done").notNull().default(0),
    /** The last unit verified: a row index, or a channel URL. Null before the first. */
    cursor: text("cursor"),
    counts: jsonb("counts")
      .$type<VerificationCounts>()
      .notNull()
      .default({ matched: 0, missing: 0, extra: 0, different: 0 }),
    error: text("error"),
    claimedBy: text("claimed_by"),
    claimedUntil: timestamp("claimed_until", { withTimezone: true }),
    createdAt: createdAt(),
    finishedAt: timestamp("finished_at", { withTimezone: true }),
  },
  (t) => [index("import_verifications_job").on(t.jobId, t.createdAt)],
);

/** What a Verify found that does not match: each with its row (none for an extra) and reason. */
export const importVerificationFindings = pgTable(
  "import_verification_findings",
  {
    id: bigserial("id", { mode: "number" }).primaryKey(),
    verificationId: text("verification_id")
      .notNull()
      .references(() => importVerifications.id, { onDelete: "cascade" }),
    kind: text("kind").$type<VerificationFindingKind>().notNull(),
    rowIndex: integer("row_index"),
    /** The user id or channel URL, and for a message its channel and time. */
    key: text("key").notNull(),
    /** The field that differs, for `different`. */
    field: text("field"),
    reason: text("reason").notNull(),
  },
  (t) => [index("import_verification_findings_order").on(t.verificationId, t.id)],
);
