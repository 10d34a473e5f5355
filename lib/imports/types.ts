/**
 * The shared vocabulary of guided imports: what the browser prepares (parse, map, validate)
 * and what the server stores, plans and runs. Both sides import these types; neither side's
 * internals.
 */

import type {
  EarlierMessages,
  FollowUps,
  ImportResource,
  MessageReaction,
  RowIssue,
} from "@/lib/schemas/import-jobs";

/** The stored shapes are zod schemas in lib/schemas/import-jobs.ts, which the database's tables use too. */
export type {
  EarlierMessages,
  FinalAction,
  FinalReason,
  FinalStepState,
  FollowUps,
  ImportResource,
  IssueSeverity,
  JobOptions,
  JobPlan,
  JobStatus,
  MessagePlan,
  PlanProgress,
  Rehearsal,
  RehearsalProgress,
  RowIssue,
  RowState,
  ThreadPlan,
  VerificationCounts,
  VerificationFindingKind,
  VerificationScope,
  VerificationState,
} from "@/lib/schemas/import-jobs";

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
