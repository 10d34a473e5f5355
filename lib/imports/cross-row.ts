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
    ];
  }

  /** Forgets a row; returns the indexes of the rows that shared its key or source id. */
  remove(row: Identity): number[] {
    if (row.excluded) return [];
    return [
      ...this.keys.remove(this.identity(row), row.index),
      ...this.sourceIds.remove(row.sourceId, row.index),
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
