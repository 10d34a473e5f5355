import type { MessageReaction } from "@/lib/schemas/import-jobs";
import { REACTION_KEY_MAX } from "@/lib/schemas/messages";

/**
 * A messages row's `reactions` cell: who reacted with what. A CSV cell reads
 * `thumbsup:alice;bob|heart:carol` (reactions separated by `|`, each a key, `:`, and the user
 * ids separated by `;` or `,`); an NDJSON record (or any cell starting with `[`) carries the
 * JSON array `[{"key":"thumbsup","user_ids":["alice","bob"]}]`. Pure, so the browser's preview
 * and the server read a cell the same way.
 */

/** One reaction key and the users who reacted with it (lib/schemas/import-jobs.ts). */
export type { MessageReaction };

export type ReactionsRead = { reactions: MessageReaction[] } | { error: string };

/** Reads a reactions cell; keys and users given twice are kept once, in the order first seen. */
export function readReactions(raw: string): ReactionsRead {
  const text = raw.trim();
  if (text === "") return { reactions: [] };
  const listed = text.startsWith("[") ? fromJson(text) : fromText(text);
  if ("error" in listed) return listed;
  const byKey = new Map<string, Set<string>>();
  for (const { key, user_ids } of listed.reactions) {
    if (key.length > REACTION_KEY_MAX) {
      return {
        error: `The reaction key "${clip(key)}" is ${key.length} characters long; the platform takes at most ${REACTION_KEY_MAX}.`,
      };
    }
    const users = byKey.get(key) ?? new Set<string>();
    for (const id of user_ids) users.add(id);
    byKey.set(key, users);
  }
  return { reactions: [...byKey].map(([key, users]) => ({ key, user_ids: [...users] })) };
}

/** How many reactions (one user's one key) a list holds. */
export function reactionCount(reactions: readonly MessageReaction[] | null | undefined): number {
  return (reactions ?? []).reduce((sum, reaction) => sum + reaction.user_ids.length, 0);
}

/** Every user id the reactions name, once each. */
export function reactingUsers(reactions: readonly MessageReaction[] | null | undefined): string[] {
  return [...new Set((reactions ?? []).flatMap((reaction) => reaction.user_ids))];
}

const FORMAT =
  'write reactions as thumbsup:alice;bob|heart:carol, or as JSON [{"key":"thumbsup","user_ids":["alice"]}]';

function fromText(text: string): ReactionsRead {
  const reactions: MessageReaction[] = [];
  for (const part of text.split("|")) {
    const item = part.trim();
    if (item === "") continue;
    const colon = item.lastIndexOf(":");
    if (colon < 0) return { error: `"${clip(item)}" names no users: ${FORMAT}.` };
    const key = item.slice(0, colon).trim();
    const users = item
      .slice(colon + 1)
      .split(/[;,]/)
      .map((id) => id.trim())
      .filter((id) => id !== "");
    if (key === "") return { error: `"${clip(item)}" has no reaction key: ${FORMAT}.` };
    if (users.length === 0) return { error: `"${clip(item)}" names no users: ${FORMAT}.` };
    reactions.push({ key, user_ids: users });
  }
  return { reactions };
}

function fromJson(text: string): ReactionsRead {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return { error: `The reactions are not valid JSON: ${FORMAT}.` };
  }
  if (!Array.isArray(parsed)) return { error: `The reactions must be a list: ${FORMAT}.` };
  const reactions: MessageReaction[] = [];
  for (const item of parsed as unknown[]) {
    const { key, user_ids: users } = (item ?? {}) as { key?: unknown; user_ids?: unknown };
    if (typeof key !== "string" || key.trim() === "")
      return { error: `Each reaction needs a "key" of text: ${FORMAT}.` };
    if (
      !Array.isArray(users) ||
      users.length === 0 ||
      !users.every((id) => typeof id === "string" && id.trim() !== "")
    ) {
      return {
        error: `The reaction "${clip(key)}" needs "user_ids", a list of user ids: ${FORMAT}.`,
      };
    }
    reactions.push({ key: key.trim(), user_ids: (users as string[]).map((id) => id.trim()) });
  }
  return { reactions };
}

function clip(text: string): string {
  return text.length > 40 ? `${text.slice(0, 40)}…` : text;
}
