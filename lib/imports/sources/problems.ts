import type { EntryError } from "./entries";
import {
  describeLocation,
  type ProblemCode,
  type ProblemRecord,
  type SourceLocation,
} from "./types";

export function problem(
  code: ProblemCode,
  message: string,
  source: SourceLocation,
  skipped = 0,
): ProblemRecord {
  return { type: "problem", code, message, skipped, source };
}

/** An item that lacks what it needs (`why`: "has no \"ts\""), left out. */
export function unreadableItem(source: SourceLocation, why: string, skipped = 1): ProblemRecord {
  return problem(
    "unreadable-item",
    `${describeLocation(source)} ${why}: it is left out.`,
    source,
    skipped,
  );
}

/** A second item with an id already read (`what`: "person U02BOB"), left out. */
export function repeatedId(source: SourceLocation, what: string, skipped = 1): ProblemRecord {
  return problem(
    "duplicate-id",
    `${describeLocation(source)} repeats ${what}, which was already read: the repeat is left out.`,
    source,
    skipped,
  );
}

/** A file that stopped being readable: what was read before stays, `what` from there on is left out. */
export function unreadableFile(error: EntryError, path: string, what: string): ProblemRecord {
  const from = error.item ? `${what} from item ${error.item} on are` : `${what} are`;
  return problem(
    "unreadable-file",
    `${error.message} ${from.charAt(0).toUpperCase()}${from.slice(1)} left out; the rest of the export is read.`,
    { path, ...(error.item ? { item: error.item } : {}) },
  );
}
