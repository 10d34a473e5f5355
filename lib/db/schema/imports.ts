/** The guided imports' tables: durable jobs, their rows, final steps, channel leases and Verify. */
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
  MessageReaction,
  PlanProgress,
  Rehearsal,
  RowIssue,
  RowState,
  VerificationCounts,
  VerificationFindingKind,
  VerificationScope,
  VerificationState,
} from "@/lib/schemas/import-jobs";
import {
  bigint,
  bigserial,
  boolean,
  index,
  integer,
  jsonb,
  pgTable,
  primaryKey,
  text,
  timestamp,
} from "drizzle-orm/pg-core";
import { createdAt } from "./columns";

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
