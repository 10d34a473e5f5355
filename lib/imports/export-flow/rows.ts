import type { ColumnMapping } from "@/lib/imports/fields";
import type { ImportResource } from "@/lib/imports/types";

/**
 * The three imports an export becomes, as the flat files would be: their columns, and the
 * mapping of each column to a field, made here rather than guessed (issue 24: matching guessed
 * `profile.email` as the profile image). Rows are lists of cells in these columns' order.
 */

export const flowResources = [
  "users",
  "group_channels",
  "messages",
] as const satisfies readonly ImportResource[];
export type FlowResource = (typeof flowResources)[number];

export const flowColumns = {
  users: ["user_id", "nickname", "profile_url", "is_active", "bot", "username"],
  group_channels: [
    "source_id",
    "name",
    "user_ids",
    "is_distinct",
    "is_public",
    "is_super",
    "frozen",
    "custom_type",
    "data",
  ],
  messages: [
    "channel",
    "message_type",
    "user_id",
    "message",
    "timestamp",
    "source_id",
    "mentioned_user_ids",
    "url",
    "file_name",
    "file_size",
    "file_type",
    "parent_id",
    "reactions",
  ],
} as const satisfies Record<FlowResource, readonly string[]>;

type Columns<R extends FlowResource> = (typeof flowColumns)[R][number];

/** One row of one import, cell by cell in its columns' order. */
export type FlowRow = { resource: FlowResource; values: string[] };

export function flowRow<R extends FlowResource>(
  resource: R,
  cells: Partial<Record<Columns<R>, string>>,
): FlowRow {
  const byName = cells as Record<string, string | undefined>;
  return {
    resource,
    values: (flowColumns[resource] as readonly string[]).map((column) => byName[column] ?? ""),
  };
}

const identity = (columns: readonly string[]): ColumnMapping =>
  Object.fromEntries(columns.map((column) => [column, column]));

/** Each column's field: the columns are named after their fields, apart from these. */
export function flowMapping(resource: FlowResource): ColumnMapping {
  const mapping = identity(flowColumns[resource]);
  if (resource === "users") {
    mapping.bot = "metadata.bot";
    mapping.username = "metadata.username";
  }
  if (resource === "messages") {
    mapping.channel = "channel_url";
  }
  return mapping;
}

/** The file name each import gets in the job list: the export's name and what the job holds. */
export function flowFileName(exportName: string, resource: FlowResource): string {
  const what =
    resource === "users" ? "people" : resource === "group_channels" ? "conversations" : "messages";
  return `${exportName.slice(0, 200)} — ${what}`;
}
