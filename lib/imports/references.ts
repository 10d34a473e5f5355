import { z } from "zod";
import { reactingUsers } from "./reactions";
import type { FollowUps, ImportResource, JobOptions, PreparedRow, RowIssue } from "./types";

/**
 * What a row refers to that must exist before it is sent: a message's channel and sender, a
 * channel's members and operators. The preview asks the server which of them are missing (on
 * the platform and in this console's imports) and marks the cells; the plan asks again.
 */

/** Values per look-up request: a file may name millions of rows but far fewer distinct values. */
export const REFERENCE_BATCH = 1_000;
/** Distinct values of each kind the preview looks up; the plan checks any beyond them. */
export const REFERENCE_CHECK_MAX = 20_000;

/** One look-up request: up to a batch of channel URLs (or source ids) and of user ids. */
export const referenceLookupSchema = z.object({
  channels: z
    .array(z.string().min(1).max(400))
    .max(REFERENCE_BATCH, `At most ${REFERENCE_BATCH} channels per request.`)
    .default([]),
  users: z
    .array(z.string().min(1).max(400))
    .max(REFERENCE_BATCH, `At most ${REFERENCE_BATCH} users per request.`)
    .default([]),
});
export type ReferenceLookup = z.output<typeof referenceLookupSchema>;

/** The answer: which of the asked values exist nowhere (neither on the platform nor in an import). */
export type MissingReferences = { channels: string[]; users: string[] };

/** The user ids a channel's creation body refers to (members and operators). */
export function referencedUserIds(
  body: Record<string, unknown> | null,
  followUps?: FollowUps | null,
): string[] {
  if (!body) return [];
  const ids = new Set<string>(followUps?.invite ?? []);
  for (const key of ["user_ids", "operator_ids"]) {
    const list = body[key];
    if (Array.isArray(list)) for (const id of list) if (typeof id === "string") ids.add(id);
  }
  if (Array.isArray(body.users)) {
    for (const user of body.users) {
      const id = (user as { user_id?: unknown })?.user_id;
      if (typeof id === "string") ids.add(id);
    }
  }
  return [...ids];
}

/** A row's references, kept by the preview for each row that has any. */
export type RowReferences = {
  channel?: string;
  /** Each user id with the field that names it (the column its issue sits under). */
  users: Array<{ id: string; field: string }>;
  /** A strict channel is refused whole when a member is missing; any other leaves them out. */
  strict?: boolean;
};

export function rowReferences(
  resource: ImportResource,
  row: Pick<PreparedRow, "key" | "body" | "followUps" | "lookup" | "reactions">,
): RowReferences | undefined {
  if (resource === "users") return undefined;
  // Looked up even when another cell keeps the row from being sent.
  const body = row.body ?? row.lookup;
  if (resource === "messages") {
    const sender = body?.user_id;
    const users = typeof sender === "string" ? [{ id: sender, field: "user_id" }] : [];
    for (const id of reactingUsers(row.reactions)) users.push({ id, field: "reactions" });
    if (row.key === null && users.length === 0) return undefined;
    return { ...(row.key !== null ? { channel: row.key } : {}), users };
  }
  if (!body) return undefined;
  const operators = new Set(
    Array.isArray(body.operator_ids) ? (body.operator_ids as string[]) : [],
  );
  const users = referencedUserIds(body, row.followUps).map((id) => ({
    id,
    field: operators.has(id) ? "operator_ids" : "user_ids",
  }));
  if (users.length === 0) return undefined;
  return { users, ...(body.strict === true ? { strict: true } : {}) };
}

/** What the preview knows of each value it asked about: true when it exists, false when missing. */
export type KnownReferences = {
  channels: ReadonlyMap<string, boolean>;
  users: ReadonlyMap<string, boolean>;
};

/**
 * The issues of one row's references that were looked up and found missing; nothing for values
 * not looked up. A message's missing sender or reacting user is an error, unless the import
 * creates unknown senders (`createUnknownSenders`, as the plan then does): a warning that says so.
 */
export function referenceIssues(
  resource: ImportResource,
  references: RowReferences | undefined,
  known: KnownReferences,
  options: JobOptions = {},
): RowIssue[] {
  if (!references) return [];
  const issues: RowIssue[] = [];
  if (references.channel !== undefined && known.channels.get(references.channel) === false) {
    issues.push({
      field: "channel_url",
      severity: "error",
      code: 400201,
      message: `No channel "${references.channel}" on the platform or in a channel import of this console: import the channels first, or fix the channel.`,
    });
  }
  const missing = references.users.filter((user) => known.users.get(user.id) === false);
  if (resource === "messages") {
    const created = options.createUnknownSenders === true;
    for (const user of missing.filter((user) => user.field === "user_id")) {
      const nowhere = `No user "${user.id}" on the platform or in a users import of this console`;
      issues.push(
        created
          ? {
              field: user.field,
              severity: "warning",
              message: `${nowhere}: created as a deactivated user (nickname = the id), so the message is kept. It is created before the messages and deactivated in the migration's last stage.`,
            }
          : {
              field: user.field,
              severity: "error",
              code: 400201,
              message: `${nowhere}: import the users first, fix the sender, or create unknown senders as deactivated users.`,
            },
      );
    }
    const reactors = missing.filter((user) => user.field === "reactions").map((user) => user.id);
    if (reactors.length > 0) {
      const who = `${reactors.length === 1 ? "Reacting user" : `${reactors.length} reacting users,`} ${quoteSome(reactors)}, on neither the platform nor a users import of this console`;
      issues.push(
        created
          ? {
              field: "reactions",
              severity: "warning",
              message: `${who}: created as ${reactors.length === 1 ? "a deactivated user" : "deactivated users"} (nickname = the id), so the reactions are kept.`,
            }
          : {
              field: "reactions",
              severity: "error",
              code: 400201,
              message: `${who}: the platform would refuse the reaction. Import the users first, or fix the reactions.`,
            },
      );
    }
    return issues;
  }
  for (const field of ["user_ids", "operator_ids"]) {
    const ids = missing.filter((user) => user.field === field).map((user) => user.id);
    if (ids.length === 0) continue;
    const who = `${ids.length === 1 ? "User" : "Users"} ${quoteSome(ids)}`;
    issues.push(
      references.strict
        ? {
            field,
            severity: "error",
            code: 400111,
            message: `${who} on neither the platform nor a users import of this console, and the channel is strict: the platform would refuse it.`,
          }
        : {
            field,
            severity: "warning",
            message: `${who} on neither the platform nor a users import of this console: the channel is created without them.`,
          },
    );
  }
  return issues;
}

/** The first three ids quoted, and how many more: `"a", "b", "c" and 4 more`. */
export function quoteSome(ids: readonly string[]): string {
  const shown = ids
    .slice(0, 3)
    .map((id) => `"${id}"`)
    .join(", ");
  return ids.length > 3 ? `${shown} and ${ids.length - 3} more` : shown;
}
