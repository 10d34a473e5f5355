import { z } from "zod";

/**
 * What a guided import keeps in the database's JSON columns (lib/db/schema/imports.ts), as zod
 * schemas: the tables take their types from here, and the job store parses what it reads with
 * them. lib/imports/types.ts names the same types for the rest of the imports.
 */

/** What can be imported, in the platform's order: users, then channels, then messages. */
export const importResourceSchema = z.enum([
  "users",
  "open_channels",
  "group_channels",
  "messages",
]);

/** One problem with one row, shown beside its cell. */
export const rowIssueSchema = z.object({
  /** The resource field it concerns (`user_id`, `metadata.team`, `user_ids`), or "" for the row. */
  field: z.string(),
  message: z.string(),
  severity: z.enum(["error", "warning"]),
  /** The platform error code the platform would answer with, when there is one. */
  code: z.number().optional(),
});

/** Calls made after a resource is created (interface 4.3, 4.5). */
export const followUpsSchema = z.object({
  /** Users marked inactive in the old system: `PUT /v3/users/{id}` with `{"is_active": false}`. */
  deactivate: z.boolean().optional(),
  /** Channels frozen in the old system: `PUT /v3/{kind}/{url}/freeze` with `{"freeze": true}`. */
  freeze: z.boolean().optional(),
  /** Metadata that a multipart creation could not carry: `PUT /v3/users/{id}/metadata`. */
  metadata: z.record(z.string(), z.string()).optional(),
  /**
   * Group channel members past the first 100 (a creation adds at most 100): invited after
   * the creation with `POST /v3/group_channels/{url}/invite`, 100 ids a request.
   */
  invite: z.array(z.string()).optional(),
});

/** One reaction key and the users who reacted with it, as the import stores them (`import_rows.reactions`). */
export const messageReactionSchema = z.object({ key: z.string(), user_ids: z.array(z.string()) });

/** A job's options beyond its mapping. */
export const jobOptionsSchema = z.object({
  /**
   * Messages: a sender that is neither on the platform nor in a users import is created (its
   * id as nickname, no profile image) before the messages and deactivated in the last stage,
   * instead of its messages being left out.
   */
  createUnknownSenders: z.boolean().optional(),
});

/** What the migration's last stage does to a user or a channel. */
export const finalActionSchema = z.enum(["deactivate", "freeze"]);
/**
 * Why: the file marked the row inactive or frozen; the sender was deactivated on the platform
 * before the job and was reactivated for its messages; the sender was unknown and created for
 * its messages (`createUnknownSenders`).
 */
export const finalReasonSchema = z.enum(["file", "reactivated", "created_sender"]);
/**
 * `preparing`: a sender being reactivated or created before the messages (recorded first, so
 * a crash never leaves one active without a step); `waiting`: for the last stage to be asked
 * for; `pending`: asked for, to send; `done`; `failed`.
 */
export const finalStepStateSchema = z.enum(["preparing", "waiting", "pending", "done", "failed"]);

/**
 * Where one row stands in a job: `pending`; `created` by this job; `existed` already on the
 * platform (skipped, nothing overwritten); `failed` (the platform refused it, or transient
 * failures ran out of retries); `invalid` in the preview and `excluded` by the administrator,
 * both never sent.
 */
export const rowStateSchema = z.enum([
  "pending",
  "created",
  "existed",
  "failed",
  "invalid",
  "excluded",
]);

export const jobStatusSchema = z.enum([
  "draft",
  "planning",
  "planned",
  "running",
  "paused",
  "cancelling",
  "cancelled",
  "completed",
]);

/** How far a plan being made has got: rows looked up on the platform out of those to look up. */
export const planProgressSchema = z.object({
  step: z.enum(["lookups", "members", "saving"]),
  done: z.number(),
  total: z.number(),
});

/**
 * A newer export's messages that an earlier import of this console created (the same channel
 * and dedup id): skipped, so a cutover sends only what is new.
 */
export const earlierMessagesSchema = z.object({
  imported: z.number(),
  /**
   * Of those, edited in the source since (text, mentions, custom type or data): the replies
   * stage updates them on the platform. (In plans made before edits were carried: every
   * message that changed, kept as first sent.)
   */
  changed: z.number(),
  /**
   * Of those, changed in what the platform's update cannot change (sender, kind, file): kept
   * as first sent, each with a warning. Absent in older plans.
   */
  keptAsSent: z.number().optional(),
  /** Of those, with reactions the earlier import did not have: the new ones are added. */
  newReactions: z.number(),
});

/** The replies stage of a messages import, as planned. */
export const threadPlanSchema = z.object({
  /** Replies sent with the send API, each to its root. */
  replies: z.number(),
  /** Roots in this file whose platform ids are found after migration. */
  roots: z.number(),
  /** Distinct roots that earlier messages imports of this console created. */
  rootsInEarlierImports: z.number(),
  /** Messages with reactions, and the reactions (one user's one key) added to them. */
  reactedMessages: z.number(),
  reactions: z.number(),
  /** Channels with work in the stage. */
  channels: z.number(),
  /** Replies to a reply, attached to their thread's root (warnings). */
  flattened: z.number(),
  /** Replies refused because their root is nowhere. */
  missingRoots: z.number(),
  /** Open channels whose messages had reactions, left out (at most 100 named). */
  openChannelsWithReactions: z.array(z.string()),
  /**
   * Replies refused, and reactions left out of their rows, because their sender or reacting
   * user will not be a member of the group channel (the platform takes them only from
   * members); the group channels concerned (at most 100 named). Absent from older plans.
   */
  repliesByNonMembers: z.number().optional(),
  reactionsByNonMembers: z.number().optional(),
  nonMemberChannels: z.array(z.string()).optional(),
});

/** What the plan of a messages import found, per channel and in all. */
export const messagePlanSchema = z.object({
  channels: z.number(),
  /** Migration requests the run will send: at most 100 messages of one channel each. */
  requests: z.number(),
  firstTimestamp: z.number().nullable(),
  lastTimestamp: z.number().nullable(),
  byType: z.object({ MESG: z.number(), FILE: z.number(), ADMM: z.number() }),
  /** Channels named by the file that are neither on the platform nor in a channel import. */
  missingChannels: z.array(z.string()),
  /** Senders that are neither users on the platform nor in a users import. */
  missingSenders: z.array(z.string()),
  /** What the replies stage sends after the channels' messages are migrated. */
  threads: threadPlanSchema.optional(),
  /**
   * Senders deactivated on the platform before the job: reactivated before its messages and
   * deactivated again in the migration's last stage. All of them (absent in older plans).
   */
  reactivateSenders: z.array(z.string()).optional(),
  /** With `createUnknownSenders`: the missing senders, created before the messages and deactivated last. */
  createSenders: z.array(z.string()).optional(),
  /** Messages an earlier messages import created: not sent again (absent in older plans). */
  earlier: earlierMessagesSchema.optional(),
  /** The channels with the most messages (at most 100 of them), largest first. */
  largestChannels: z.array(
    z.object({
      channelUrl: z.string(),
      /** Its name, from its import or the platform (absent in older plans). */
      name: z.string().nullable().optional(),
      messages: z.number(),
      requests: z.number(),
      first: z.number(),
      last: z.number(),
    }),
  ),
});

/** What the dry run found, shown on the job page before anything is sent. */
export const jobPlanSchema = z.object({
  toCreate: z.number(),
  existing: z.number(),
  invalid: z.number(),
  excluded: z.number(),
  /** `invitations`: invitation requests (100 member ids each) for channels of more than 100 members. */
  followUps: z.object({
    deactivate: z.number(),
    freeze: z.number(),
    metadata: z.number(),
    invitations: z.number(),
  }),
  /**
   * Rows "with warnings", as the preview counts them: not excluded (invalid ones included),
   * warned by their own checks or by the plan's look-ups (e.g. members that will be left out).
   */
  warnings: z.number(),
  /** Distinct member or operator ids neither in an import nor on the platform. */
  missingMembers: z.number(),
  /** Users imports this channel import depends on that have not completed. */
  orderChecks: z.array(
    z.object({ jobId: z.string(), fileName: z.string(), status: z.string(), channels: z.number() }),
  ),
  lookups: z.object({ requests: z.number(), ms: z.number() }),
  /** Messages imports: channels, requests, time range, what is missing. */
  messages: messagePlanSchema.optional(),
});

/**
 * How far a running rehearsal has got, written on the job as it goes (at most every second),
 * so that a page opened or reloaded mid-way shows it. Rows are messages for a messages import.
 */
export const rehearsalProgressSchema = z.object({
  /** Rows the rehearsal sends. */
  total: z.number(),
  /** Of those, rows with an outcome: created, existed or would fail. */
  done: z.number(),
  created: z.number(),
  existed: z.number(),
  failed: z.number(),
  /** When the rows started to be sent (after the scratch application was seeded). */
  since: z.string(),
  /** When these counts were written. */
  at: z.string(),
});

/** A rehearsal's request and outcome, kept on the job (`import_jobs.rehearsal`). */
export const rehearsalSchema = z.object({
  state: z.enum(["running", "done", "failed"]),
  startedAt: z.string(),
  finishedAt: z.string().optional(),
  created: z.number().optional(),
  existed: z.number().optional(),
  failed: z.number().optional(),
  followUpsFailed: z.number().optional(),
  /** The first failures, with the platform's code and message. */
  failures: z
    .array(z.object({ rowIndex: z.number(), code: z.number().nullable(), message: z.string() }))
    .optional(),
  seededUsers: z.number().optional(),
  /** Referenced users that exist on the target but could not be copied into the scratch application. */
  seedFailed: z.number().optional(),
  seedFailures: z
    .array(z.object({ userId: z.string(), code: z.number().nullable(), message: z.string() }))
    .optional(),
  /**
   * A messages rehearsal's replies stage: replies sent and refused (counted in `created` and
   * `failed` too, as messages of the file), reactions added and refused. Absent before it ran.
   */
  threads: z
    .object({
      replies: z.number(),
      repliesFailed: z.number(),
      reactions: z.number(),
      reactionsFailed: z.number(),
      /** A newer export's edits updated, and refused (absent in older rehearsals). */
      edits: z.number().optional(),
      editsFailed: z.number().optional(),
    })
    .optional(),
  error: z.string().optional(),
  /**
   * The scratch application: of the attempt under way (deleted by whoever takes the rehearsal
   * over), or of the finished rehearsal, kept for Verify until a new rehearsal, plan or the run.
   */
  appId: z.string().optional(),
  /** While it runs, once its rows are being sent. */
  progress: rehearsalProgressSchema.optional(),
});

/** What a Verify checks: the run on the console's target, or the rehearsal's scratch application. */
export const verificationScopeSchema = z.enum(["run", "rehearsal"]);
export const verificationStateSchema = z.enum(["running", "done", "failed", "cancelled"]);
export const verificationFindingKindSchema = z.enum(["missing", "extra", "different"]);
/** Rows (or messages) that match, and findings of each kind. */
export const verificationCountsSchema = z.object({
  matched: z.number(),
  missing: z.number(),
  extra: z.number(),
  different: z.number(),
});

/**
 * An import job's JSON columns as they are read: parsed once per job read (a job is one row,
 * read a few times a second at most), so the rest of the code holds checked values.
 */
export const importJobJsonSchema = z.object({
  columns: z.array(z.string()),
  mapping: z.record(z.string(), z.string()),
  /** Parsed further with `columnTransformsSchema` (lib/imports/transforms.ts) where it is read. */
  transforms: z.record(z.string(), z.unknown()),
  options: jobOptionsSchema,
  plan: jobPlanSchema.nullable(),
  planProgress: planProgressSchema.nullable(),
  rehearsal: rehearsalSchema.nullable(),
});

/**
 * An import row's JSON columns as read. Parsed where a row is shown (the report's pages, a row's
 * requests), not where rows are worked by the million (the plan's and the run's claims): there
 * it would cost about 2 µs a row, 4 % of a core at the run's 20,000 messages/s, for values
 * the upload validated and the job itself wrote.
 */
export const importRowJsonSchema = z.object({
  values: z.array(z.string()),
  body: z.record(z.string(), z.unknown()).nullable(),
  followUps: followUpsSchema.nullable(),
  issues: z.array(rowIssueSchema),
  planIssues: z.array(rowIssueSchema),
  reactions: z.array(messageReactionSchema).nullable(),
  reactionsAsUploaded: z.array(messageReactionSchema).nullable(),
});

export type ImportResource = z.infer<typeof importResourceSchema>;
export type RowIssue = z.infer<typeof rowIssueSchema>;
export type IssueSeverity = RowIssue["severity"];
export type FollowUps = z.infer<typeof followUpsSchema>;
export type MessageReaction = z.infer<typeof messageReactionSchema>;
export type JobOptions = z.infer<typeof jobOptionsSchema>;
export type FinalAction = z.infer<typeof finalActionSchema>;
export type FinalReason = z.infer<typeof finalReasonSchema>;
export type FinalStepState = z.infer<typeof finalStepStateSchema>;
export type RowState = z.infer<typeof rowStateSchema>;
export type JobStatus = z.infer<typeof jobStatusSchema>;
export type PlanProgress = z.infer<typeof planProgressSchema>;
export type EarlierMessages = z.infer<typeof earlierMessagesSchema>;
export type ThreadPlan = z.infer<typeof threadPlanSchema>;
export type MessagePlan = z.infer<typeof messagePlanSchema>;
export type JobPlan = z.infer<typeof jobPlanSchema>;
export type RehearsalProgress = z.infer<typeof rehearsalProgressSchema>;
export type Rehearsal = z.infer<typeof rehearsalSchema>;
export type VerificationScope = z.infer<typeof verificationScopeSchema>;
export type VerificationState = z.infer<typeof verificationStateSchema>;
export type VerificationFindingKind = z.infer<typeof verificationFindingKindSchema>;
export type VerificationCounts = z.infer<typeof verificationCountsSchema>;
