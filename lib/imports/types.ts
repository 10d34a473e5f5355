import type { MessageReaction } from "./reactions";

/**
 * The shared vocabulary of guided imports: what the browser prepares (parse, map, validate)
 * and what the server stores, plans and runs. Both sides import these types; neither side's
 * internals.
 */

/** What can be imported, in the platform's order: users, then channels, then messages. */
export type ImportResource = "users" | "open_channels" | "group_channels" | "messages";

export const importResources: readonly ImportResource[] = [
  "users",
  "open_channels",
  "group_channels",
  "messages",
];

/** The kinds whose rows are channels. */
export type ChannelResource = "open_channels" | "group_channels";

export const channelResources: readonly ChannelResource[] = ["open_channels", "group_channels"];

export function isChannelResource(resource: ImportResource): resource is ChannelResource {
  return resource === "open_channels" || resource === "group_channels";
}

export type IssueSeverity = "error" | "warning";

/** One problem with one row, shown beside its cell. */
export type RowIssue = {
  /** The resource field it concerns (`user_id`, `metadata.team`, `user_ids`), or "" for the row. */
  field: string;
  message: string;
  severity: IssueSeverity;
  /** The platform error code the platform would answer with, when there is one. */
  code?: number;
};

/** Calls made after a resource is created (interface 4.3, 4.5). */
export type FollowUps = {
  /** Users marked inactive in the old system: `PUT /v3/users/{id}` with `{"is_active": false}`. */
  deactivate?: boolean;
  /** Channels frozen in the old system: `PUT /v3/{kind}/{url}/freeze` with `{"freeze": true}`. */
  freeze?: boolean;
  /** Metadata that a multipart creation could not carry: `PUT /v3/users/{id}/metadata`. */
  metadata?: Record<string, string>;
  /**
   * Group channel members past the first 100 (a creation adds at most 100): invited after
   * the creation with `POST /v3/group_channels/{url}/invite`, 100 ids a request.
   */
  invite?: string[];
};

/** A row of the file turned into what will be sent for it. */
export type PreparedRow = {
  /** 0-based index of the data row in the file (after the header row). */
  index: number;
  /** The original cell values in the file's column order (for the failures CSV). */
  values: string[];
  /** The creation request body; null when the row cannot be sent. */
  body: Record<string, unknown> | null;
  /** `user_id`, or `channel_url` (the file's, or derived in the plan); for a message, the channel it goes to. */
  key: string | null;
  /** The old system's id of a channel without a channel_url, from which the plan derives one. */
  sourceId?: string;
  /** A reply: the source id of its thread's root (`parent_id`); it is sent after its channel is migrated. */
  parentSourceId?: string;
  /** A message's reactions, added after its channel is migrated (group channels only). */
  reactions?: MessageReaction[];
  /**
   * What the preview looks up (a message's sender; a channel's member lists and `strict`), those
   * fields read without an error of their own, kept when the row cannot be sent (no body).
   */
  lookup?: Record<string, unknown>;
  followUps: FollowUps;
  issues: RowIssue[];
  /** Left out by the administrator in the preview. */
  excluded?: boolean;
};

/** A job's options beyond its mapping. */
export type JobOptions = {
  /**
   * Messages: a sender that is neither on the platform nor in a users import is created (its
   * id as nickname, no profile image) before the messages and deactivated in the last stage,
   * instead of its messages being left out.
   */
  createUnknownSenders?: boolean;
};

/** What the migration's last stage does to a user or a channel. */
export type FinalAction = "deactivate" | "freeze";
/**
 * Why: the file marked the row inactive or frozen; the sender was deactivated on the platform
 * before the job and was reactivated for its messages; the sender was unknown and created for
 * its messages (`createUnknownSenders`).
 */
export type FinalReason = "file" | "reactivated" | "created_sender";
/**
 * `preparing`: a sender being reactivated or created before the messages (recorded first, so
 * a crash never leaves one active without a step); `waiting`: for the last stage to be asked
 * for; `pending`: asked for, to send; `done`; `failed`.
 */
export type FinalStepState = "preparing" | "waiting" | "pending" | "done" | "failed";

/** Where one row stands in a job. */
export type RowState =
  | "pending"
  /** Created by this job. */
  | "created"
  /** Already on the platform: skipped, nothing overwritten. */
  | "existed"
  /** The platform refused it, or transient failures ran out of retries. */
  | "failed"
  /** Invalid in the preview: never sent. */
  | "invalid"
  /** Excluded by the administrator: never sent. */
  | "excluded";

export type JobStatus =
  | "draft"
  | "planning"
  | "planned"
  | "running"
  | "paused"
  | "cancelling"
  | "cancelled"
  | "completed";

/** How far a plan being made has got: rows looked up on the platform out of those to look up. */
export type PlanProgress = { step: "lookups" | "members" | "saving"; done: number; total: number };

/** Limits of what the console accepts for one import. */
export const MAX_IMPORT_BYTES = 200 * 1024 * 1024;
export const MAX_IMPORT_ROWS = 1_000_000;
/** A message history is far larger than a users or channels file (issue 7, item 4). */
export const MAX_MESSAGE_IMPORT_BYTES = 2 * 1024 * 1024 * 1024;
export const MAX_MESSAGE_IMPORT_ROWS = 5_000_000;

/** The most bytes and rows one file of a kind may hold. */
export function importLimits(resource: ImportResource): { bytes: number; rows: number } {
  return resource === "messages"
    ? { bytes: MAX_MESSAGE_IMPORT_BYTES, rows: MAX_MESSAGE_IMPORT_ROWS }
    : { bytes: MAX_IMPORT_BYTES, rows: MAX_IMPORT_ROWS };
}

/**
 * What one upload chunk may hold (a server action's body stays well under Next.js's limit):
 * the wizard sends chunks within them, the server refuses any other.
 */
export const MAX_CHUNK_ROWS = 5_000;
export const MAX_CHUNK_BYTES = 1024 * 1024;

/** What the dry run found, shown on the job page before anything is sent. */
export type JobPlan = {
  toCreate: number;
  existing: number;
  invalid: number;
  excluded: number;
  /** `invitations`: invitation requests (100 member ids each) for channels of more than 100 members. */
  followUps: { deactivate: number; freeze: number; metadata: number; invitations: number };
  /**
   * Rows "with warnings", as the preview counts them: not excluded (invalid ones included),
   * warned by their own checks or by the plan's look-ups (e.g. members that will be left out).
   */
  warnings: number;
  /** Distinct member or operator ids neither in an import nor on the platform. */
  missingMembers: number;
  /** Users imports this channel import depends on that have not completed. */
  orderChecks: Array<{ jobId: string; fileName: string; status: string; channels: number }>;
  lookups: { requests: number; ms: number };
  /** Messages imports: channels, requests, time range, what is missing. */
  messages?: MessagePlan;
};

/** What the plan of a messages import found, per channel and in all. */
export type MessagePlan = {
  channels: number;
  /** Migration requests the run will send: at most 100 messages of one channel each. */
  requests: number;
  firstTimestamp: number | null;
  lastTimestamp: number | null;
  byType: { MESG: number; FILE: number; ADMM: number };
  /** Channels named by the file that are neither on the platform nor in a channel import. */
  missingChannels: string[];
  /** Senders that are neither users on the platform nor in a users import. */
  missingSenders: string[];
  /** What the replies stage sends after the channels' messages are migrated. */
  threads?: ThreadPlan;
  /**
   * Senders deactivated on the platform before the job: reactivated before its messages and
   * deactivated again in the migration's last stage. All of them (absent in older plans).
   */
  reactivateSenders?: string[];
  /** With `createUnknownSenders`: the missing senders, created before the messages and deactivated last. */
  createSenders?: string[];
  /** Messages an earlier messages import created: not sent again (absent in older plans). */
  earlier?: EarlierMessages;
  /** The channels with the most messages (at most 100 of them), largest first. */
  largestChannels: Array<{
    channelUrl: string;
    /** Its name, from its import or the platform (absent in older plans). */
    name?: string | null;
    messages: number;
    requests: number;
    first: number;
    last: number;
  }>;
};

/** The replies stage of a messages import, as planned. */
/**
 * A newer export's messages that an earlier import of this console created (the same channel
 * and dedup id): skipped, so a cutover sends only what is new.
 */
export type EarlierMessages = {
  imported: number;
  /**
   * Of those, edited in the source since (text, mentions, custom type or data): the replies
   * stage updates them on the platform. (In plans made before edits were carried: every
   * message that changed, kept as first sent.)
   */
  changed: number;
  /**
   * Of those, changed in what the platform's update cannot change (sender, kind, file): kept
   * as first sent, each with a warning. Absent in older plans.
   */
  keptAsSent?: number;
  /** Of those, with reactions the earlier import did not have: the new ones are added. */
  newReactions: number;
};

/**
 * What a plan's earlier messages say changed: `edited`, updated on the platform; `keptAsSent`,
 * changed in what the update cannot carry. A plan made before edits were carried counted every
 * change as kept (it has no `keptAsSent`).
 */
export function earlierChanges(earlier: EarlierMessages | undefined): {
  edited: number;
  keptAsSent: number;
} {
  if (!earlier) return { edited: 0, keptAsSent: 0 };
  return earlier.keptAsSent === undefined
    ? { edited: 0, keptAsSent: earlier.changed }
    : { edited: earlier.changed, keptAsSent: earlier.keptAsSent };
}

export type ThreadPlan = {
  /** Replies sent with the send API, each to its root. */
  replies: number;
  /** Roots in this file whose platform ids are found after migration. */
  roots: number;
  /** Distinct roots that earlier messages imports of this console created. */
  rootsInEarlierImports: number;
  /** Messages with reactions, and the reactions (one user's one key) added to them. */
  reactedMessages: number;
  reactions: number;
  /** Channels with work in the stage. */
  channels: number;
  /** Replies to a reply, attached to their thread's root (warnings). */
  flattened: number;
  /** Replies refused because their root is nowhere. */
  missingRoots: number;
  /** Open channels whose messages had reactions, left out (at most 100 named). */
  openChannelsWithReactions: string[];
  /**
   * Replies refused, and reactions left out of their rows, because their sender or reacting
   * user will not be a member of the group channel (the platform takes them only from
   * members); the group channels concerned (at most 100 named). Absent from older plans.
   */
  repliesByNonMembers?: number;
  reactionsByNonMembers?: number;
  nonMemberChannels?: string[];
};

/** A rehearsal's request and outcome, kept on the job (`import_jobs.rehearsal`). */
/**
 * How far a running rehearsal has got, written on the job as it goes (at most every second),
 * so that a page opened or reloaded mid-way shows it. Rows are messages for a messages import.
 */
export type RehearsalProgress = {
  /** Rows the rehearsal sends. */
  total: number;
  /** Of those, rows with an outcome: created, existed or would fail. */
  done: number;
  created: number;
  existed: number;
  failed: number;
  /** When the rows started to be sent (after the scratch application was seeded). */
  since: string;
  /** When these counts were written. */
  at: string;
};

export type Rehearsal = {
  state: "running" | "done" | "failed";
  startedAt: string;
  finishedAt?: string;
  created?: number;
  existed?: number;
  failed?: number;
  followUpsFailed?: number;
  /** The first failures, with the platform's code and message. */
  failures?: Array<{ rowIndex: number; code: number | null; message: string }>;
  seededUsers?: number;
  /** Referenced users that exist on the target but could not be copied into the scratch application. */
  seedFailed?: number;
  seedFailures?: Array<{ userId: string; code: number | null; message: string }>;
  /**
   * A messages rehearsal's replies stage: replies sent and refused (counted in `created` and
   * `failed` too, as messages of the file), reactions added and refused. Absent before it ran.
   */
  threads?: {
    replies: number;
    repliesFailed: number;
    reactions: number;
    reactionsFailed: number;
    /** A newer export's edits updated, and refused (absent in older rehearsals). */
    edits?: number;
    editsFailed?: number;
  };
  error?: string;
  /**
   * The scratch application: of the attempt under way (deleted by whoever takes the rehearsal
   * over), or of the finished rehearsal, kept for Verify until a new rehearsal, plan or the run.
   */
  appId?: string;
  /** While it runs, once its rows are being sent. */
  progress?: RehearsalProgress;
};

/** What a Verify checks: the run on the console's target, or the rehearsal's scratch application. */
export type VerificationScope = "run" | "rehearsal";
export type VerificationState = "running" | "done" | "failed" | "cancelled";
export type VerificationFindingKind = "missing" | "extra" | "different";
/** Rows (or messages) that match, and findings of each kind. */
export type VerificationCounts = { matched: number } & Record<VerificationFindingKind, number>;
