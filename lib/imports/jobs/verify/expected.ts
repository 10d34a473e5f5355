import { columnTransformsSchema, transformText } from "@/lib/imports/transforms";
import type { FollowUps } from "@/lib/imports/types";
import {
  parseReactions,
  type ExpectedChannel,
  type ExpectedMessage,
  type ExpectedUser,
} from "./compare";

/**
 * What a row of the import says the target holds, read from what the row sent (its planned
 * body and follow-ups), and, for threads and reactions, from the row's own cells through the
 * job's mapping (fields `parent_id` and `reactions`), so Verify reads them wherever a stage of
 * the job keeps them.
 */

export type VerifiedRow = {
  rowIndex: number;
  /** As it stands: `created` by the job, or `existed` before it (never overwritten). */
  state: string;
  values: readonly string[];
  body: Record<string, unknown> | null;
  followUps: FollowUps | null;
  /**
   * The migration's last stage has made the row's deferred deactivation or freeze; until it
   * has, the user is expected active and the channel open. Absent: done (rows without one).
   */
  lastStageDone?: boolean;
  /**
   * The reactions the plan kept, when it left some of the cell's out (by users who are not
   * members of the group channel, named in its warning): those are what the target holds.
   */
  plannedReactions?: Array<{ key: string; user_ids: string[] }>;
};

type JobShape = {
  columns: readonly string[];
  mapping: Record<string, string>;
  transforms: Record<string, unknown>;
};

const text = (value: unknown) => (typeof value === "string" ? value : undefined);

/** The cell of the column mapped to `field`, as the job read it (after its transform); undefined when no column is. */
export function mappedCell(
  job: JobShape,
  values: readonly string[],
  field: string,
): string | undefined {
  const column = job.columns.findIndex((name) => job.mapping[name] === field);
  if (column < 0) return undefined;
  const transforms = columnTransformsSchema.safeParse(job.transforms);
  const name = job.columns[column]!;
  const transform =
    transforms.success && Object.hasOwn(transforms.data, name) ? transforms.data[name] : undefined;
  return transformText(transform, (values[column] ?? "").trim());
}

export function expectedUser(row: VerifiedRow): ExpectedUser {
  const body = row.body ?? {};
  const userId = text(body.user_id) ?? "";
  if (row.state !== "created") return { rowIndex: row.rowIndex, userId, existenceOnly: true };
  const metadata = {
    ...((body.metadata as Record<string, string> | undefined) ?? {}),
    ...(row.followUps?.metadata ?? {}),
  };
  return {
    rowIndex: row.rowIndex,
    userId,
    existenceOnly: false,
    nickname: text(body.nickname),
    profileUrl: text(body.profile_url),
    metadata,
    isActive: !(row.followUps?.deactivate && row.lastStageDone !== false),
  };
}

const channelFields = ["name", "cover_url", "custom_type", "data"] as const;

export function expectedChannel(
  row: VerifiedRow,
  group: boolean,
  channelUrl: string,
): ExpectedChannel {
  const body = row.body ?? {};
  if (row.state !== "created")
    return { rowIndex: row.rowIndex, channelUrl, existenceOnly: true, fields: {} };
  const fields: Record<string, unknown> = {};
  for (const field of channelFields)
    if (text(body[field]) !== undefined) fields[field] = body[field];
  if (row.followUps?.freeze && row.lastStageDone !== false) fields.freeze = true;
  const expected: ExpectedChannel = {
    rowIndex: row.rowIndex,
    channelUrl,
    existenceOnly: false,
    fields,
  };
  if (group) {
    const members = Array.isArray(body.user_ids) ? (body.user_ids as string[]) : [];
    expected.members = [...new Set([...members, ...(row.followUps?.invite ?? [])])];
  }
  return expected;
}

/** A root's dedup id, time and sender, found by the source id its replies name. */
export type RootRow = { dedupId?: string; timestamp: number; sender?: string };

/**
 * A messages row's expectation. `roots` holds the job's rows by source id, for the replies;
 * a reply whose root is not among them is not compared for its parent (the plan refuses it).
 */
export function expectedMessage(
  job: JobShape,
  row: VerifiedRow,
  roots: ReadonlyMap<string, RootRow>,
): ExpectedMessage {
  const body = row.body ?? {};
  const type = text(body.message_type) ?? "MESG";
  const expected: ExpectedMessage = {
    rowIndex: row.rowIndex,
    dedupId: text(body.dedup_id),
    type,
    sender: type === "ADMM" ? undefined : text(body.user_id),
    // A reply goes through the send API: its time is its `created_at`.
    timestamp: Number(body.timestamp ?? body.created_at),
    customType: text(body.custom_type) ?? "",
    mentions: Array.isArray(body.mentioned_user_ids) ? (body.mentioned_user_ids as string[]) : [],
  };
  if (type === "FILE") {
    expected.file = {
      url: text(body.url) ?? "",
      name: text(body.file_name),
      type: text(body.file_type),
      size: typeof body.file_size === "number" ? body.file_size : undefined,
    };
    if (text(body.custom_field) !== undefined) expected.data = text(body.custom_field);
  } else {
    expected.text = text(body.message) ?? "";
    expected.data = text(body.data) ?? "";
  }
  const parent = mappedCell(job, row.values, "parent_id");
  if (parent !== undefined) {
    if (parent === "") expected.parent = null;
    else if (roots.has(parent)) expected.parent = roots.get(parent)!;
  }
  const reactions = mappedCell(job, row.values, "reactions");
  if (row.plannedReactions) expected.reactions = row.plannedReactions;
  else if (reactions !== undefined) {
    const parsed = parseReactions(reactions);
    if (parsed !== null) expected.reactions = parsed;
  }
  return expected;
}
