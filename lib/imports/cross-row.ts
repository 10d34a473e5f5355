import { quoteSome } from "./references";
import type { ImportResource, PreparedRow, RowIssue } from "./types";

/**
 * Rules that need more than one row: a user_id, channel_url or source id given twice in one
 * file (the later rows are errors naming the first), and channel members or operators that
 * are not among the users this migration imports (a warning: the plan asks the platform).
 */

export type CrossRowOptions = {
  /** The row a spreadsheet shows for row index 0 (header row included); messages name rows by it. 1 when absent. */
  firstRow?: number;
  /**
   * The user ids this migration imports (e.g. the rows of its users imports). When given,
   * channel members and operators outside it are warned about; when absent, nothing is said
   * about members, since only the plan can ask the platform who exists.
   */
  importedUserIds?: ReadonlySet<string>;
};

/** The cross-row issues of every row that has any, by row index. Excluded rows take no part. */
export function crossRowIssues(
  resource: ImportResource,
  rows: readonly PreparedRow[],
  options: CrossRowOptions = {},
): Map<number, RowIssue[]> {
  const index = new CrossRowIndex(resource, options);
  for (const row of rows) index.add(identityOf(row));
  const issues = new Map<number, RowIssue[]>();
  for (const row of rows) {
    const rowIssues = index.issuesFor(row);
    if (rowIssues.length > 0) issues.set(row.index, rowIssues);
  }
  return issues;
}

type Identity = {
  index: number;
  key: string | null;
  sourceId?: string;
  excluded?: boolean;
  dedupId?: string;
  /** A reply's thread root (messages). */
  parentSourceId?: string;
};

/** A prepared row as the index sees it. */
export function identityOf(row: PreparedRow & { dedupId?: string }): Identity {
  const dedupId = row.dedupId ?? row.body?.dedup_id;
  return typeof dedupId === "string" ? { ...row, dedupId } : row;
}

/**
 * The incremental form, for the preview: rows are added once, and when a cell is fixed or a
 * row excluded, `remove` + `add` return the rows whose cross-row issues may have changed.
 */
export class CrossRowIndex {
  private readonly keys = new RowsByValue();
  private readonly sourceIds = new RowsByValue();
  /** Messages: replies by their root's source id, and each message's channel and root. */
  private readonly replies = new RowsByValue();
  private readonly messages = new Map<number, { key: string | null; parentSourceId?: string }>();

  constructor(
    private readonly resource: ImportResource,
    private readonly options: CrossRowOptions = {},
  ) {}

  /** Registers a row; returns the indexes of the other rows that share its key or source id. */
  add(row: Identity): number[] {
    if (row.excluded) return [];
    return [
      ...this.keys.add(this.identity(row), row.index),
      ...this.sourceIds.add(row.sourceId, row.index),
      ...this.addThread(row),
    ];
  }

  /** Forgets a row; returns the indexes of the rows that shared its key or source id. */
  remove(row: Identity): number[] {
    if (row.excluded) return [];
    if (this.resource === "messages") {
      this.messages.delete(row.index);
      this.replies.remove(row.parentSourceId, row.index);
    }
    return [
      ...this.keys.remove(this.identity(row), row.index),
      ...this.sourceIds.remove(row.sourceId, row.index),
      ...this.repliesTo(row.sourceId),
    ];
  }

  /** A message's thread: its replies' issues depend on its channel and its own root. */
  private addThread(row: Identity): number[] {
    if (this.resource !== "messages") return [];
    this.messages.set(row.index, { key: row.key, parentSourceId: row.parentSourceId });
    this.replies.add(row.parentSourceId, row.index);
    return this.repliesTo(row.sourceId);
  }

  private repliesTo(sourceId: string | undefined): number[] {
    return sourceId === undefined ? [] : this.replies.all(sourceId);
  }

  /**
   * A reply's root: in this file and its channel, or a warning that the plan looks further;
   * a reply to a reply goes to the top root, and is counted as a warning.
   */
  private threadIssues(row: Identity): RowIssue[] {
    const parent = row.parentSourceId;
    if (parent === undefined) return [];
    const firstRow = this.options.firstRow ?? 1;
    const rootIndex = this.sourceIds.first(parent);
    // Replying to itself is the row's own error (`../prepare.ts`).
    if (rootIndex === row.index) return [];
    if (rootIndex === undefined) {
      return [
        {
          field: "parent_id",
          severity: "warning",
          message: `Thread root "${parent}" is not a source id of this file: the plan looks for it among this channel's messages imported before, and refuses the reply if it is in neither.`,
        },
      ];
    }
    // Up the chain of replies to the top root; a loop has none.
    let top = rootIndex;
    const seen = new Set([row.index, top]);
    for (;;) {
      const above = this.messages.get(top)?.parentSourceId;
      if (above === undefined) break;
      const next = this.sourceIds.first(above);
      if (next === undefined) break;
      if (seen.has(next)) {
        return [
          {
            field: "parent_id",
            severity: "error",
            code: 400111,
            message: `Thread root "${parent}" (row ${rootIndex + firstRow}) leads back to this message through its own roots: a thread needs a root that replies to nothing.`,
          },
        ];
      }
      seen.add(next);
      top = next;
    }
    const rootKey = this.messages.get(top)?.key ?? null;
    if (rootKey !== null && row.key !== null && rootKey !== row.key) {
      return [
        {
          field: "parent_id",
          severity: "error",
          code: 400111,
          message: `Thread root "${parent}" (row ${top + firstRow}) is in channel "${rootKey}", not "${row.key}": a reply stays in its root's channel.`,
        },
      ];
    }
    if (top === rootIndex) return [];
    return [
      {
        field: "parent_id",
        severity: "warning",
        message: `Replies to a reply (row ${rootIndex + firstRow}): the platform's threads are one level deep, so it is attached to the thread's root, row ${top + firstRow}.`,
      },
    ];
  }

  /** What must be unique: a user id, a channel URL, or a message's dedup id within its channel. */
  private identity(row: Identity): string | null {
    if (this.resource !== "messages") return row.key;
    return row.key === null || row.dedupId === undefined ? null : `${row.key}\u0000${row.dedupId}`;
  }

  issuesFor(row: PreparedRow & { dedupId?: string }): RowIssue[] {
    if (row.excluded) return [];
    const issues: RowIssue[] = [];
    if (this.resource === "messages") {
      issues.push(...this.threadIssues(row));
      const first = this.keys.firstOther(this.identity(identityOf(row)), row.index);
      if (first !== undefined) {
        issues.push({
          field: "dedup_id",
          severity: "error",
          message: `The same dedup id in the same channel as row ${first + (this.options.firstRow ?? 1)}: the platform would store only one of them.`,
        });
      }
      return issues;
    }
    const keyField = this.resource === "users" ? "user_id" : "channel_url";
    const keyLabel = this.resource === "users" ? "user id" : "channel URL";
    const firstWithKey = this.keys.firstOther(row.key, row.index);
    if (firstWithKey !== undefined) {
      issues.push({
        field: keyField,
        severity: "error",
        code: 400202,
        message: `The same ${keyLabel} as row ${firstWithKey + (this.options.firstRow ?? 1)}: each ${this.resource === "users" ? "user" : "channel"} is created once, so this row would fail.`,
      });
    }
    const firstWithSource = this.sourceIds.firstOther(row.sourceId, row.index);
    if (firstWithSource !== undefined && row.key === null) {
      issues.push({
        field: "source_id",
        severity: "error",
        message: `The same source id as row ${firstWithSource + (this.options.firstRow ?? 1)}: both would get the same channel URL.`,
      });
    }
    const known = this.options.importedUserIds;
    if (known && this.resource !== "users" && row.body) {
      for (const field of ["user_ids", "operator_ids"] as const) {
        const ids = row.body[field];
        if (!Array.isArray(ids)) continue;
        const missing = (ids as string[]).filter((id) => !known.has(id));
        if (missing.length === 0) continue;
        issues.push({
          field,
          severity: "warning",
          message: `${quoteSome(missing)} not in this import's users — the plan checks the platform.`,
        });
      }
    }
    return issues;
  }
}

/** Row indexes by a value they hold (a key, a source id), in row order; null holds nothing. */
class RowsByValue {
  private readonly rows = new Map<string, number[]>();

  /** The first row holding `value`, when it is not `index` itself. */
  firstOther(value: string | null | undefined, index: number): number | undefined {
    const indexes = value === null || value === undefined ? undefined : this.rows.get(value);
    if (!indexes || indexes.length < 2) return undefined;
    return indexes[0] === index ? undefined : indexes[0];
  }

  /** The first row holding `value`. */
  first(value: string): number | undefined {
    return this.rows.get(value)?.[0];
  }

  /** Every row holding `value`. */
  all(value: string): number[] {
    return [...(this.rows.get(value) ?? [])];
  }

  /** Registers row `index` under `value`; returns the other rows holding it. */
  add(value: string | null | undefined, index: number): number[] {
    if (value === null || value === undefined) return [];
    const indexes = this.rows.get(value) ?? [];
    this.rows.set(value, indexes);
    // Rows arrive in file order, so this is a push except when a fixed cell moves a row.
    let at = indexes.length;
    while (at > 0 && indexes[at - 1]! > index) at--;
    if (indexes[at - 1] !== index) indexes.splice(at, 0, index);
    return indexes.filter((other) => other !== index);
  }

  /** Forgets row `index` under `value`; returns the rows still holding it. */
  remove(value: string | null | undefined, index: number): number[] {
    if (value === null || value === undefined) return [];
    const indexes = this.rows.get(value) ?? [];
    const at = indexes.indexOf(index);
    if (at >= 0) indexes.splice(at, 1);
    if (indexes.length === 0) this.rows.delete(value);
    return [...indexes];
  }
}
