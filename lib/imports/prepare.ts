import type { z } from "zod";
import {
  CHANNEL_URL_MAX,
  CHANNEL_URL_MIN,
  groupChannelCreateSchema,
  groupMemberCapacity,
  openChannelCreateSchema,
  USERS_PER_REQUEST_MAX,
} from "@/lib/schemas/channels";
import { toPlatformIssue } from "@/lib/schemas/platform-errors";
import {
  IMPORT_DEDUP_KEY,
  migratedAdminMessageSchema,
  migratedFileMessageSchema,
  migratedMessageSchema,
  migratedTextMessageSchema,
  type MessageType,
} from "@/lib/schemas/messages";
import { createUserSchema } from "@/lib/schemas/users";
import { isWebAddress } from "@/lib/schemas/web-address";
import { deriveDedupId } from "./dedup-id";
import {
  findField,
  importFields,
  isMetadataTarget,
  metadataKeyOf,
  type ColumnMapping,
  type ImportField,
} from "./fields";
import { readReactions, type MessageReaction } from "./reactions";
import { parseTimestamp } from "./timestamps";
import { transformText, type ColumnTransform, type ColumnTransforms } from "./transforms";
import {
  isChannelResource,
  type FollowUps,
  type ImportResource,
  type PreparedRow,
  type RowIssue,
} from "./types";

/**
 * One row of a file turned into the creation request it will send, checked with the same
 * schemas the platform (and the sandbox) applies. Pure and deterministic: the browser's
 * preview runs it in a worker and the server runs it again on every uploaded row, so both
 * always agree on what a row means.
 */
export function prepareRow(
  resource: ImportResource,
  columns: readonly string[],
  mapping: ColumnMapping,
  values: readonly string[],
  index: number,
  transforms: ColumnTransforms = {},
): PreparedRow {
  const issues: RowIssue[] = [];
  const cells = readCells(resource, columns, mapping, values, transforms, issues);
  const followUps: FollowUps = {};
  const input: Record<string, unknown> = {};

  for (const [key, { text: raw, transform }] of cells.fields) {
    const field = findField(resource, key);
    if (!field) continue;
    const value = readValue(field, raw, issues, transform);
    if (value === undefined) continue;
    addressWarning(field, value, issues);
    if (key === "is_active") {
      if (value === false) followUps.deactivate = true;
    } else if (key === "frozen") {
      if (value === true) followUps.freeze = true;
    } else if (key !== "source_id") {
      input[key] = value;
    }
  }
  if (cells.metadata.size > 0) input.metadata = Object.fromEntries(cells.metadata);

  const sourceId = cells.fields.get("source_id")?.text;
  if (resource === "messages") return prepareMessage(input, { index, values, sourceId, issues });
  if (resource === "users") {
    // Empty means "no profile image" (interface 4.3), so a file without images still imports.
    input.profile_url ??= "";
  } else if (input.channel_url === undefined && sourceId === undefined) {
    issues.push({
      field: "channel_url",
      severity: "error",
      code: 400105,
      message:
        "Give the channel a channel URL or a source id: without either, the plan cannot name it, and a retried request could create it twice.",
    });
  }
  if (resource === "group_channels") {
    issues.push(...memberWarnings(input));
    splitMembers(input, followUps, issues);
  }

  validate(resource, input, issues);

  const hasError = issues.some((issue) => issue.severity === "error");
  const keyField = resource === "users" ? "user_id" : "channel_url";
  const key = typeof input[keyField] === "string" ? (input[keyField] as string) : null;
  const row: PreparedRow = {
    index,
    values: [...values],
    body: hasError ? null : input,
    key,
    followUps,
    issues,
  };
  if (isChannelResource(resource) && sourceId !== undefined) row.sourceId = sourceId;
  if (hasError && isChannelResource(resource)) keepLookup(row, input, memberFields);
  return row;
}

const memberFields = ["user_ids", "operator_ids", "users", "strict"];

/**
 * Keeps on a row that cannot be sent the `fields` the preview looks up, those read without an
 * error of their own, so that a missing user shows beside the row's other errors.
 */
function keepLookup(row: PreparedRow, input: Record<string, unknown>, fields: readonly string[]) {
  const refused = new Set(
    row.issues.filter((issue) => issue.severity === "error").map((issue) => issue.field),
  );
  const kept = fields.filter((field) => input[field] !== undefined && !refused.has(field));
  if (kept.length > 0) row.lookup = Object.fromEntries(kept.map((field) => [field, input[field]]));
}

const messageSchemas = {
  MESG: migratedTextMessageSchema,
  FILE: migratedFileMessageSchema,
  ADMM: migratedAdminMessageSchema,
} as const;

/**
 * A message row: its channel is the row's key (a channel URL, or a channel's source id the
 * plan turns into one), its body one item of a migration request's `messages`, with a dedup
 * id the file's or derived from it, so that no retry or rerun stores it twice.
 */
function prepareMessage(
  input: Record<string, unknown>,
  row: {
    index: number;
    values: readonly string[];
    sourceId: string | undefined;
    issues: RowIssue[];
  },
): PreparedRow {
  const { issues } = row;
  const channel = typeof input.channel_url === "string" ? input.channel_url : null;
  delete input.channel_url;
  const parent = typeof input.parent_id === "string" ? input.parent_id : undefined;
  let reactions = input.reactions as MessageReaction[] | undefined;
  if (parent !== undefined && parent === row.sourceId) {
    issues.push({
      field: "parent_id",
      severity: "error",
      code: 400111,
      message: "A message cannot reply to itself: its thread root is its own source id.",
    });
  }
  if (channel === null) {
    issues.push({
      field: "channel_url",
      severity: "error",
      code: 400105,
      message:
        "Channel is required: name the channel URL, or the source id of a channel imported here.",
    });
  }
  const type =
    (input.message_type as MessageType | undefined) ??
    (typeof input.url === "string" ? "FILE" : "MESG");
  input.message_type = type;
  if (type === "ADMM" && input.user_id !== undefined) {
    issues.push({
      field: "user_id",
      severity: "warning",
      message: "Admin messages have no sender: the sender is left out.",
    });
  }
  if (type === "ADMM" && reactions !== undefined) {
    issues.push({
      field: "reactions",
      severity: "warning",
      message: "Admin messages take no reactions on the platform: the reactions are left out.",
    });
    reactions = undefined;
  }
  // Only the fields of the message's own shape are sent.
  const shape = messageSchemas[type].shape as Record<string, unknown>;
  for (const key of Object.keys(input)) if (!(key in shape)) delete input[key];
  if (input.dedup_id === undefined && channel !== null && typeof input.timestamp === "number") {
    input.dedup_id = deriveDedupId({
      channel,
      sourceId: row.sourceId,
      content: [type, input.user_id ?? "", input.message ?? "", input.url ?? "", input.timestamp],
    });
  }
  // How the replies stage finds the message on the platform, whose migration answers no ids
  // (docs/imports-jobs.md, "Replies and reactions").
  if (typeof input.dedup_id === "string") input.sorted_metaarray = importDedupMeta(input.dedup_id);
  validate("messages", input, issues);
  // A reply goes through the send API: its time is `created_at`, and it carries no
  // `timestamp`, so the migration never sends it.
  if (parent !== undefined) {
    input.created_at = input.timestamp;
    delete input.timestamp;
  }
  const hasError = issues.some((issue) => issue.severity === "error");
  const prepared: PreparedRow = {
    index: row.index,
    values: [...row.values],
    body: hasError || channel === null ? null : input,
    key: channel,
    followUps: {},
    issues,
  };
  if (row.sourceId !== undefined) prepared.sourceId = row.sourceId;
  if (parent !== undefined) prepared.parentSourceId = parent;
  if (reactions !== undefined) prepared.reactions = reactions;
  if (prepared.body === null) keepLookup(prepared, input, ["user_id"]);
  return prepared;
}

/** The `sorted_metaarray` item every imported message carries: its dedup id. */
export function importDedupMeta(dedupId: string): Array<{ key: string; value: string[] }> {
  return [{ key: IMPORT_DEDUP_KEY, value: [dedupId] }];
}

const MESSAGE_TYPE_WORDS: Record<string, MessageType> = {
  mesg: "MESG",
  text: "MESG",
  message: "MESG",
  msg: "MESG",
  user: "MESG",
  usermessage: "MESG",
  chat: "MESG",
  file: "FILE",
  filemessage: "FILE",
  image: "FILE",
  photo: "FILE",
  video: "FILE",
  audio: "FILE",
  attachment: "FILE",
  media: "FILE",
  admm: "ADMM",
  admin: "ADMM",
  adminmessage: "ADMM",
  system: "ADMM",
  notice: "ADMM",
};

/** MESG, FILE or ADMM, from the platform's names or the words old systems use. */
export function readMessageType(raw: string): MessageType | undefined {
  const word = raw.toLowerCase().replace(/[\s_-]+/g, "");
  // Own words only: "constructor" is not a message type.
  return Object.hasOwn(MESSAGE_TYPE_WORDS, word) ? MESSAGE_TYPE_WORDS[word] : undefined;
}

/** How true/false cells are read: true/false, yes/no, y/n, 1/0 in any case; null for anything else. */
export function readBoolean(raw: string): boolean | null {
  const word = raw.trim().toLowerCase();
  return TRUE_WORDS.has(word) ? true : FALSE_WORDS.has(word) ? false : null;
}

type Cells = {
  fields: Map<string, { text: string; transform: ColumnTransform | undefined }>;
  metadata: Map<string, string>;
};

/**
 * The non-empty, trimmed cells by field, after their column's find and replace; the first
 * column wins when two map to one field.
 */
function readCells(
  resource: ImportResource,
  columns: readonly string[],
  mapping: ColumnMapping,
  values: readonly string[],
  transforms: ColumnTransforms,
  issues: RowIssue[],
): Cells {
  const fields: Cells["fields"] = new Map();
  const metadata = new Map<string, string>();
  for (let column = 0; column < columns.length; column++) {
    const target = mapping[columns[column]!];
    if (!target) continue;
    const transform = Object.hasOwn(transforms, columns[column]!)
      ? transforms[columns[column]!]
      : undefined;
    const value = transformText(transform, (values[column] ?? "").trim());
    if (value === "") continue;
    if (isMetadataTarget(target)) {
      if (resource !== "users") {
        issues.push({
          field: target,
          severity: "error",
          message: "Only users carry metadata; map this column to a channel field or ignore it.",
        });
      } else if (!metadata.has(metadataKeyOf(target))) {
        metadata.set(metadataKeyOf(target), value);
      }
    } else if (!fields.has(target)) {
      fields.set(target, { text: value, transform });
    }
  }
  return { fields, metadata };
}

const TRUE_WORDS = new Set(["true", "yes", "y", "1"]);
const FALSE_WORDS = new Set(["false", "no", "n", "0"]);

function readValue(
  field: ImportField,
  raw: string,
  issues: RowIssue[],
  transform: ColumnTransform | undefined,
): unknown {
  if (field.kind === "text") return raw;
  if (field.kind === "id-list") return splitIds(raw);
  if (field.kind === "integer") {
    if (/^\d+$/.test(raw) && Number.isSafeInteger(Number(raw))) return Number(raw);
    issues.push({
      field: field.key,
      severity: "error",
      code: 400100,
      message: `${field.label} must be a whole number, not "${clip(raw)}".`,
    });
    return undefined;
  }
  if (field.kind === "timestamp") {
    const parsed = parseTimestamp(raw, transform?.unit);
    if ("ms" in parsed) return parsed.ms;
    issues.push({
      field: field.key,
      severity: "error",
      code: 400100,
      message: `${field.label}: ${parsed.error}`,
    });
    return undefined;
  }
  if (field.kind === "reactions") {
    const read = readReactions(raw);
    if ("reactions" in read) return read.reactions.length > 0 ? read.reactions : undefined;
    issues.push({ field: field.key, severity: "error", code: 400100, message: read.error });
    return undefined;
  }
  if (field.kind === "message-type") {
    const type = readMessageType(raw);
    if (type) return type;
    issues.push({
      field: field.key,
      severity: "error",
      code: 400100,
      message: `${field.label} must be MESG, FILE or ADMM (text, file and admin work too), not "${clip(raw)}".`,
    });
    return undefined;
  }
  // An inverted column says the opposite: Slack's `deleted=true` is `is_active=false`.
  const value = readBoolean(raw);
  if (value !== null) return transform?.invert ? !value : value;
  issues.push({
    field: field.key,
    severity: "error",
    code: 400100,
    message: `${field.label} must be true or false (yes/no and 1/0 work too), not "${clip(raw)}".`,
  });
  return undefined;
}

/**
 * The platform stores any text as an image or file address, so these are warnings: the row is
 * sent, but an app cannot load "htp://broken" or "C:\photos\ann.png".
 */
function addressWarning(field: ImportField, value: unknown, issues: RowIssue[]): void {
  if (field.shape !== "url" && field.shape !== "url-list") return;
  const addresses = typeof value === "string" ? [value] : Array.isArray(value) ? value : [];
  const wrong = addresses.filter((address): address is string => !isWebAddress(String(address)));
  if (wrong.length === 0) return;
  issues.push({
    field: field.key,
    severity: "warning",
    message: `${field.label}: ${listOf(wrong)} ${wrong.length === 1 ? "is not a web address" : "are not web addresses"} (http:// or https://). The platform stores ${wrong.length === 1 ? "it" : "them"} as written, but apps cannot load ${wrong.length === 1 ? "it" : "them"}.`,
  });
}

/** `a;b|c` -> ["a", "b", "c"]: lists in one cell are separated by `;` or `|`. */
export function splitIds(raw: string): string[] {
  return raw
    .split(/[;|]/)
    .map((id) => id.trim())
    .filter((id) => id !== "");
}

/**
 * A creation adds at most 100 members: a larger channel is created with its first 100
 * (operators first, so they are members from the start) and the rest are invited after it,
 * up to the channel's cap (2,000 for a supergroup, 100 otherwise); past the cap, an error.
 */
function splitMembers(
  input: Record<string, unknown>,
  followUps: FollowUps,
  issues: RowIssue[],
): void {
  const listed = input.user_ids;
  if (!Array.isArray(listed) || listed.length <= USERS_PER_REQUEST_MAX) return;
  const members = [...new Set(listed as string[])];
  if (members.length <= USERS_PER_REQUEST_MAX) {
    input.user_ids = members;
    return;
  }
  const capacity = groupMemberCapacity({ is_super: input.is_super === true });
  if (members.length > capacity) {
    issues.push({
      field: "user_ids",
      severity: "error",
      code: 400111,
      message: `${members.length.toLocaleString("en-US")} member ids, but ${
        input.is_super === true ? "a supergroup" : "a group channel"
      } holds at most ${capacity.toLocaleString("en-US")}${input.is_super === true ? "" : " (set Supergroup to true for up to 2,000)"}.`,
    });
    return;
  }
  const operators = new Set(
    Array.isArray(input.operator_ids) ? (input.operator_ids as string[]) : [],
  );
  const ordered = [
    ...members.filter((id) => operators.has(id)),
    ...members.filter((id) => !operators.has(id)),
  ];
  input.user_ids = ordered.slice(0, USERS_PER_REQUEST_MAX);
  followUps.invite = ordered.slice(USERS_PER_REQUEST_MAX);
}

function memberWarnings(input: Record<string, unknown>): RowIssue[] {
  const warnings: RowIssue[] = [];
  const members = (input.user_ids as string[] | undefined) ?? [];
  const memberSet = new Set(members);
  if (memberSet.size < members.length) {
    warnings.push({
      field: "user_ids",
      severity: "warning",
      message: `Listed more than once: ${listOf(repeated(members))}. Each member is added once.`,
    });
  }
  const operators = (input.operator_ids as string[] | undefined) ?? [];
  const notMembers = operators.filter((id) => !memberSet.has(id));
  if (notMembers.length > 0) {
    warnings.push({
      field: "operator_ids",
      severity: "warning",
      message: `Operators not among the members: ${listOf(notMembers)}. List operators among the member ids too, or they will not be members.`,
    });
  }
  const inviter = input.inviter_id;
  if (typeof inviter === "string" && !memberSet.has(inviter)) {
    warnings.push({
      field: "inviter_id",
      severity: "warning",
      message: `The inviter "${clip(inviter)}" is not among the member ids, so will not be a member.`,
    });
  }
  return warnings;
}

const schemas = {
  users: createUserSchema,
  open_channels: openChannelCreateSchema,
  group_channels: groupChannelCreateSchema,
  messages: migratedMessageSchema,
} satisfies Record<ImportResource, z.ZodType>;

/**
 * Checks the body with the shared schema and reports every issue, not only the first:
 * zod skips rules across fields (is_super with is_distinct) once a field fails, so the
 * failing fields are taken out and the rest checked again.
 */
function validate(
  resource: ImportResource,
  input: Record<string, unknown>,
  issues: RowIssue[],
): void {
  const schema = schemas[resource];
  const reported = new Set(
    issues.filter((issue) => issue.severity === "error").map((issue) => issue.field),
  );
  let body = input;
  for (let pass = 0; pass < 2; pass++) {
    const result = schema.safeParse(body);
    if (result.success) return;
    const failed = new Set<string>();
    for (const zodIssue of result.error.issues) {
      const issue = describe(resource, zodIssue, body);
      const topField = issue.field.split(".")[0]!;
      failed.add(topField);
      // A field left out on the second pass is reported as missing; it was reported already.
      if (reported.has(issue.field) || reported.has(topField)) continue;
      reported.add(issue.field);
      issues.push(issue);
    }
    body = Object.fromEntries(Object.entries(body).filter(([key]) => !failed.has(key)));
    // Group channels check nothing else while their members are missing.
    if (failed.has("user_ids")) body.user_ids = [];
  }
}

function describe(
  resource: ImportResource,
  zodIssue: z.core.$ZodIssue,
  input: Record<string, unknown>,
): RowIssue {
  const platform = toPlatformIssue(zodIssue, input);
  const [top, second] = zodIssue.path.map(String);
  const field =
    top === "metadata" && second !== undefined
      ? `metadata.${second}`
      : top === "users"
        ? "user_ids"
        : (top ?? "");
  const label = labelOf(resource, field);
  const value = top === undefined ? undefined : input[top];
  let message: string;
  if (platform.code === 400105) {
    message =
      field === "user_ids"
        ? "Member ids are required: a group channel is created with its members."
        : `${label} is required.`;
  } else if (
    zodIssue.code === "too_big" &&
    zodIssue.origin === "string" &&
    typeof value === "string"
  ) {
    message = `${label} is ${value.length} characters long; at most ${String(zodIssue.maximum)} are allowed.`;
  } else if (field === "user_ids" && Array.isArray(value)) {
    const capacity = groupMemberCapacity({ is_super: input.is_super === true });
    message = `${value.length} member ids, but at most ${USERS_PER_REQUEST_MAX} can be added when a channel is created${
      capacity > USERS_PER_REQUEST_MAX
        ? ` (a supergroup holds up to ${capacity.toLocaleString("en-US")} members)`
        : ""
    }.`;
  } else if (zodIssue.code === "too_big" && zodIssue.origin === "array" && Array.isArray(value)) {
    message = `${label}: ${value.length} ids, but at most ${String(zodIssue.maximum)} are allowed.`;
  } else if (field === "is_super" && zodIssue.code === "custom") {
    message = "A supergroup cannot be distinct: set Distinct or Supergroup to false.";
  } else if (field === "access_code" && zodIssue.code === "custom") {
    message =
      "An access code is allowed only on a public channel: set Public to true or leave the access code empty.";
  } else if (
    field === "channel_url" &&
    typeof value === "string" &&
    (value.length < CHANNEL_URL_MIN || value.length > CHANNEL_URL_MAX)
  ) {
    message = `Channel URL is ${value.length} characters long; it must be ${CHANNEL_URL_MIN} to ${CHANNEL_URL_MAX}.`;
  } else {
    message = plainWords(resource, platform.message);
  }
  return { field, severity: "error", code: platform.code, message };
}

function labelOf(resource: ImportResource, field: string): string {
  if (isMetadataTarget(field)) return `Metadata key "${metadataKeyOf(field)}"`;
  if (field === "metadata") return "Metadata";
  return findField(resource, field)?.label ?? (field || "The row");
}

/** `"is_super" requires "is_distinct" to be false.` -> `Supergroup requires Distinct to be false.` */
function plainWords(resource: ImportResource, message: string): string {
  let text = message;
  for (const field of importFields[resource]) text = text.replaceAll(`"${field.key}"`, field.label);
  text = text.replaceAll('"metadata"', "Metadata").replaceAll('"users"', "Member ids");
  return text.charAt(0).toUpperCase() + text.slice(1);
}

function repeated(ids: readonly string[]): string[] {
  const seen = new Set<string>();
  const twice = new Set<string>();
  for (const id of ids) (seen.has(id) ? twice : seen).add(id);
  return [...twice];
}

function listOf(ids: readonly string[]): string {
  const shown = ids.slice(0, 3).map((id) => `"${clip(id)}"`);
  const more = ids.length > 3 ? ` and ${ids.length - 3} more` : "";
  return `${shown.join(", ")}${more}`;
}

function clip(text: string): string {
  return text.length > 40 ? `${text.slice(0, 40)}…` : text;
}
