import { IMPORT_DEDUP_KEY, type MessageResource } from "@/lib/schemas/messages";
import type { VerificationFindingKind } from "@/lib/imports/types";

/**
 * Verify's comparisons, pure: what a row of the import says the target holds, against what the
 * target answered. Each difference is a finding with its row and a reason in words.
 */

export type Finding = {
  kind: VerificationFindingKind;
  /** The row of the import; null for something on the target no row accounts for. */
  rowIndex: number | null;
  key: string;
  field: string | null;
  reason: string;
};

/** The outcome of comparing one unit (a page of users, a channel, a channel's messages). */
export type Comparison = { matched: number; findings: Finding[] };

const shown = (value: unknown) => JSON.stringify(value ?? null);

function different(
  rowIndex: number,
  key: string,
  field: string,
  expected: unknown,
  actual: unknown,
): Finding {
  return {
    kind: "different",
    rowIndex,
    key,
    field,
    reason: `${field}: imported ${shown(expected)}, the target has ${shown(actual)}.`,
  };
}

function missing(rowIndex: number, key: string, reason: string): Finding {
  return { kind: "missing", rowIndex, key, field: null, reason };
}

/** One finding per field whose expected value (when the import has one) differs from the actual. */
function fieldFindings(
  rowIndex: number,
  key: string,
  pairs: Array<[field: string, expected: unknown, actual: unknown]>,
): Finding[] {
  const findings: Finding[] = [];
  for (const [field, expected, actual] of pairs) {
    if (expected === undefined) continue;
    if (shown(expected) !== shown(actual))
      findings.push(different(rowIndex, key, field, expected, actual));
  }
  return findings;
}

// ---------------------------------------------------------------------------
// Users
// ---------------------------------------------------------------------------

/** What a users row put on the target; `existenceOnly` for a user that was there before (never overwritten). */
export type ExpectedUser = {
  rowIndex: number;
  userId: string;
  existenceOnly: boolean;
  nickname?: string;
  profileUrl?: string;
  metadata?: Record<string, string>;
  isActive?: boolean;
};

export type ActualUser = {
  user_id: string;
  nickname: string;
  profile_url: string;
  is_active: boolean;
  metadata: Record<string, string>;
};

export function compareUser(expected: ExpectedUser, actual: ActualUser | undefined): Finding[] {
  const key = expected.userId;
  if (!actual) return [missing(expected.rowIndex, key, `User "${key}" is not on the target.`)];
  if (expected.existenceOnly) return [];
  const findings = fieldFindings(expected.rowIndex, key, [
    ["nickname", expected.nickname, actual.nickname],
    ["profile_url", expected.profileUrl, actual.profile_url],
    ["is_active", expected.isActive, actual.is_active],
  ]);
  for (const [name, value] of Object.entries(expected.metadata ?? {})) {
    if (actual.metadata[name] !== value)
      findings.push(
        different(expected.rowIndex, key, `metadata.${name}`, value, actual.metadata[name]),
      );
  }
  return findings;
}

// ---------------------------------------------------------------------------
// Channels
// ---------------------------------------------------------------------------

export type ExpectedChannel = {
  rowIndex: number;
  channelUrl: string;
  existenceOnly: boolean;
  /** The channel's own fields as imported (name, cover_url, custom_type, data, freeze). */
  fields: Record<string, unknown>;
  /** Group channels: every member the import added; undefined for an open channel. */
  members?: string[];
};

export type ActualChannel = { fields: Record<string, unknown>; members?: string[] };

export function compareChannel(
  expected: ExpectedChannel,
  actual: ActualChannel | undefined,
): Finding[] {
  const key = expected.channelUrl;
  if (!actual) return [missing(expected.rowIndex, key, `Channel "${key}" is not on the target.`)];
  if (expected.existenceOnly) return [];
  const findings = fieldFindings(
    expected.rowIndex,
    key,
    Object.entries(expected.fields).map(([field, value]) => [field, value, actual.fields[field]]),
  );
  if (expected.members && actual.members) {
    const held = new Set(actual.members);
    const absent = expected.members.filter((id) => !held.has(id));
    if (absent.length > 0) {
      findings.push({
        kind: "different",
        rowIndex: expected.rowIndex,
        key,
        field: "members",
        reason: `members: ${listed(absent)} ${absent.length === 1 ? "is not a member" : "are not members"} on the target.`,
      });
    }
  }
  return findings;
}

function listed(ids: string[]): string {
  const names = ids.slice(0, 10).map((id) => `"${id}"`);
  return ids.length > 10 ? `${names.join(", ")} and ${ids.length - 10} more` : names.join(", ");
}

// ---------------------------------------------------------------------------
// Messages
// ---------------------------------------------------------------------------

export type Reaction = { key: string; user_ids: string[] };

/** What a messages row put in its channel. */
export type ExpectedMessage = {
  rowIndex: number;
  dedupId?: string;
  type: string;
  /** Absent for an admin message. */
  sender?: string;
  text?: string;
  timestamp: number;
  customType: string;
  data?: string;
  mentions: string[];
  file?: { url: string; name?: string; type?: string; size?: number };
  /**
   * The root it replies to (the root row's dedup id, time and sender); null: no reply.
   * Undefined when the import says nothing of threads: not compared.
   */
  parent?: { dedupId?: string; timestamp: number; sender?: string } | null;
  /** Undefined when the import says nothing of reactions: not compared. */
  reactions?: Reaction[];
};

/** The dedup id a listed message carries in `sorted_metaarray`, if any. */
export function importDedupId(message: MessageResource): string | undefined {
  return message.sorted_metaarray?.find((item) => item.key === IMPORT_DEDUP_KEY)?.value[0];
}

const timeAndSender = (timestamp: number, sender: string | undefined) =>
  `${timestamp}\u0000${sender ?? ""}`;

/**
 * Matches rows to listed messages: by the dedup id the message carries, else (a message sent
 * without the mark) by time and sender. Each listed message answers for one row at most.
 */
export function matchMessages(
  expected: readonly ExpectedMessage[],
  listed: readonly MessageResource[],
): {
  pairs: Array<[ExpectedMessage, MessageResource]>;
  unmatchedRows: ExpectedMessage[];
  unmatchedMessages: MessageResource[];
} {
  const byDedup = new Map<string, MessageResource[]>();
  const byTime = new Map<string, MessageResource[]>();
  for (const message of listed) {
    const dedup = importDedupId(message);
    if (dedup !== undefined) push(byDedup, dedup, message);
    push(byTime, timeAndSender(message.created_at, message.user?.user_id), message);
  }
  const used = new Set<number>();
  const take = (candidates: MessageResource[] | undefined) => {
    const found = candidates?.find((message) => !used.has(message.message_id));
    if (found) used.add(found.message_id);
    return found;
  };
  const pairs: Array<[ExpectedMessage, MessageResource]> = [];
  const unmatchedRows: ExpectedMessage[] = [];
  const later: ExpectedMessage[] = [];
  for (const row of expected) {
    const found = row.dedupId === undefined ? undefined : take(byDedup.get(row.dedupId));
    if (found) pairs.push([row, found]);
    else later.push(row);
  }
  // Rows left are matched by time and sender only to messages without a mark of their own.
  for (const row of later) {
    const candidates = byTime
      .get(timeAndSender(row.timestamp, row.sender))
      ?.filter((message) => importDedupId(message) === undefined);
    const found = take(candidates);
    if (found) pairs.push([row, found]);
    else unmatchedRows.push(row);
  }
  const unmatchedMessages = listed.filter((message) => !used.has(message.message_id));
  return { pairs, unmatchedRows, unmatchedMessages };
}

function push<K, V>(map: Map<K, V[]>, key: K, value: V) {
  const list = map.get(key);
  if (list) list.push(value);
  else map.set(key, [value]);
}

/** A message's key in the report: its channel and time, then its dedup id when it has one. */
export function messageKey(channelUrl: string, timestamp: number, dedupId?: string): string {
  return `${channelUrl} @ ${new Date(timestamp).toISOString()}${dedupId ? ` (${dedupId})` : ""}`;
}

/**
 * Field by field: sender, text, time, type, custom type, data, mentions, file, and parent and
 * reactions when the row has them. `parentOf` finds a listed reply's root (by message id)
 * among the channel's messages that were read.
 */
export function compareMessage(
  channelUrl: string,
  expected: ExpectedMessage,
  actual: MessageResource,
  parentOf: (messageId: number) => MessageResource | undefined = () => undefined,
): Finding[] {
  const key = messageKey(channelUrl, expected.timestamp, expected.dedupId);
  const sorted = (ids: string[]) => [...ids].sort();
  const findings = fieldFindings(expected.rowIndex, key, [
    ["type", expected.type, actual.type],
    ["sender", expected.sender, actual.user?.user_id],
    ["text", expected.text, actual.message],
    ["time", expected.timestamp, actual.created_at],
    ["custom_type", expected.customType, actual.custom_type],
    ["data", expected.data, actual.data],
    ["mentions", sorted(expected.mentions), sorted(actual.mentioned_users.map((u) => u.user_id))],
  ]);
  if (expected.file) {
    const file = actual.file;
    findings.push(
      ...fieldFindings(expected.rowIndex, key, [
        ["file.url", expected.file.url, file?.url],
        ["file.name", expected.file.name || undefined, file?.name],
        ["file.type", expected.file.type || undefined, file?.type],
        ["file.size", expected.file.size || undefined, file?.size],
      ]),
    );
  }
  if (expected.parent !== undefined) {
    const finding = compareParent(expected, actual, parentOf, key);
    if (finding) findings.push(finding);
  }
  if (expected.reactions !== undefined) {
    const finding = compareReactions(expected.rowIndex, key, expected.reactions, actual.reactions);
    if (finding) findings.push(finding);
  }
  return findings;
}

function compareParent(
  expected: ExpectedMessage,
  actual: MessageResource,
  parentOf: (messageId: number) => MessageResource | undefined,
  key: string,
): Finding | null {
  const want = expected.parent!;
  const parentId = actual.parent_message_id ?? 0;
  const finding = (reason: string): Finding => ({
    kind: "different",
    rowIndex: expected.rowIndex,
    key,
    field: "parent",
    reason: `parent: ${reason}`,
  });
  if (want === null)
    return parentId === 0
      ? null
      : finding(`not a reply in the import, a reply to message ${parentId} on the target.`);
  if (parentId === 0) return finding("a reply in the import, not a reply on the target.");
  const root = parentOf(parentId);
  if (root) {
    const rootDedup = importDedupId(root);
    const same =
      want.dedupId !== undefined && rootDedup !== undefined
        ? rootDedup === want.dedupId
        : root.created_at === want.timestamp && root.user?.user_id === want.sender;
    return same
      ? null
      : finding(
          `replies on the target to message ${parentId}, which is not its root in the import.`,
        );
  }
  // A root that was not read (a sample): told by the time and sender the reply shows of it.
  const info = actual.parent_message_info;
  if (!info) return null;
  return info.ts === want.timestamp && info.user?.user_id === want.sender
    ? null
    : finding(
        `replies on the target to a message of ${new Date(info.ts).toISOString()}, not to its root.`,
      );
}

/** Reactions as sets: each key with the same people, nothing more, nothing less. */
export function compareReactions(
  rowIndex: number,
  key: string,
  expected: readonly Reaction[],
  actual: MessageResource["reactions"],
): Finding | null {
  const want = reactionSets(expected);
  const have = reactionSets(actual ?? []);
  const gaps: string[] = [];
  for (const [reaction, people] of want) {
    const held = have.get(reaction) ?? new Set<string>();
    const absent = [...people].filter((id) => !held.has(id));
    if (absent.length > 0) gaps.push(`"${reaction}" by ${listed(absent)} is missing`);
  }
  for (const [reaction, people] of have) {
    const imported = want.get(reaction) ?? new Set<string>();
    const more = [...people].filter((id) => !imported.has(id));
    if (more.length > 0) gaps.push(`"${reaction}" by ${listed(more)} was not imported`);
  }
  if (gaps.length === 0) return null;
  return {
    kind: "different",
    rowIndex,
    key,
    field: "reactions",
    reason: `reactions: ${gaps.join("; ")}.`,
  };
}

function reactionSets(reactions: readonly Reaction[]): Map<string, Set<string>> {
  const sets = new Map<string, Set<string>>();
  for (const { key, user_ids } of reactions) {
    if (user_ids.length === 0) continue;
    const people = sets.get(key) ?? new Set<string>();
    for (const id of user_ids) people.add(id);
    sets.set(key, people);
  }
  return sets;
}

/**
 * A channel's messages, every one read (the sandbox): rows matched and compared, rows with no
 * message (missing), and messages within the import's time span of the channel that no row
 * accounts for (extra: a duplicate, or one sent by something else).
 */
export function compareChannelMessages(
  channelUrl: string,
  expected: readonly ExpectedMessage[],
  listed: readonly MessageResource[],
): Comparison {
  const { pairs, unmatchedRows, unmatchedMessages } = matchMessages(expected, listed);
  const byId = new Map(listed.map((message) => [message.message_id, message]));
  const parentOf = (id: number) => byId.get(id);
  const findings: Finding[] = [];
  let matched = 0;
  for (const [row, message] of pairs) {
    const differences = compareMessage(channelUrl, row, message, parentOf);
    if (differences.length === 0) matched++;
    findings.push(...differences);
  }
  for (const row of unmatchedRows) {
    findings.push(
      missing(
        row.rowIndex,
        messageKey(channelUrl, row.timestamp, row.dedupId),
        `The message of ${new Date(row.timestamp).toISOString()}${row.sender ? ` by "${row.sender}"` : ""} is not in channel "${channelUrl}".`,
      ),
    );
  }
  if (expected.length > 0) {
    const first = Math.min(...expected.map((row) => row.timestamp));
    const last = Math.max(...expected.map((row) => row.timestamp));
    for (const message of unmatchedMessages) {
      if (message.created_at < first || message.created_at > last) continue;
      findings.push({
        kind: "extra",
        rowIndex: null,
        key: messageKey(channelUrl, message.created_at, importDedupId(message)),
        field: null,
        reason: `Message ${message.message_id}${message.user ? ` by "${message.user.user_id}"` : ""} is in channel "${channelUrl}", but no row of the import accounts for it.`,
      });
    }
  }
  findings.sort((a, b) => (a.rowIndex ?? Infinity) - (b.rowIndex ?? Infinity));
  return { matched, findings };
}

// ---------------------------------------------------------------------------
// Reading a row's threads and reactions
// ---------------------------------------------------------------------------

/**
 * A reactions cell: `thumbsup:alice;bob|heart:carol` (CSV), or the JSON array
 * `[{"key":"thumbsup","user_ids":["alice"]}]` (NDJSON). Null when it is neither.
 */
export function parseReactions(cell: string): Reaction[] | null {
  const text = cell.trim();
  if (text === "") return [];
  if (text.startsWith("[")) {
    try {
      const value: unknown = JSON.parse(text);
      if (!Array.isArray(value)) return null;
      const reactions: Reaction[] = [];
      for (const item of value) {
        const { key, user_ids } = (item ?? {}) as { key?: unknown; user_ids?: unknown };
        if (typeof key !== "string" || !Array.isArray(user_ids)) return null;
        if (!user_ids.every((id) => typeof id === "string")) return null;
        reactions.push({ key, user_ids: user_ids as string[] });
      }
      return reactions;
    } catch {
      return null;
    }
  }
  const reactions: Reaction[] = [];
  for (const part of text.split("|")) {
    const colon = part.indexOf(":");
    if (colon <= 0) return null;
    const users = part
      .slice(colon + 1)
      .split(";")
      .map((id) => id.trim())
      .filter(Boolean);
    reactions.push({ key: part.slice(0, colon).trim(), user_ids: users });
  }
  return reactions;
}
