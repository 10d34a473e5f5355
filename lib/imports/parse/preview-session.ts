import { VALUE_SAMPLE_SIZE } from "../column-values";
import { CrossRowIndex, type CrossRowOptions } from "../cross-row";
import type { ColumnMapping } from "../fields";
import { prepareRow } from "../prepare";
import type { ColumnTransforms } from "../transforms";
import {
  referenceIssues,
  rowReferences,
  type MissingReferences,
  type ReferenceLookup,
  type RowReferences,
} from "../references";
import {
  importLimits,
  MAX_CHUNK_BYTES,
  type ImportResource,
  type JobOptions,
  type RowIssue,
} from "../types";
import type {
  ColumnProfile,
  HeaderChoice,
  PreviewCounts,
  RowFilter,
  SavedFixes,
  UploadRow,
  ViewRow,
} from "./protocol";
import { isBlankRecord, raggedMessage, raggedRows, uniqueHeaders } from "./records";
import { FileProblem } from "./read-file";
import { formatBytes } from "./sniff";

const ERROR = 1;
const WARNING = 2;
const EXCLUDED = 4;

/**
 * The rows of one file and what the preview knows about them, kept in the worker in compact
 * form: cells as read, one flag byte per row, issues only for rows that have any.
 *
 * A row's index is its place under the header, blank lines counted, so its row number is
 * always `firstRow + index`. Blank lines have an index but are no row: they are never
 * shown, counted, validated or uploaded.
 */
export class PreviewSession {
  private headerRow = 0;
  private columns: string[] = [];
  private mapping: ColumnMapping = {};
  private transforms: ColumnTransforms = {};
  /** The import's options that change what a row's references mean (unknown senders created). */
  private options: JobOptions = {};
  private flags = new Uint8Array(0);
  private ownIssues: (RowIssue[] | undefined)[] = [];
  private crossIssues: (RowIssue[] | undefined)[] = [];
  private keys: (string | null)[] = [];
  private sourceIds: (string | undefined)[] = [];
  private parentSourceIds: (string | undefined)[] = [];
  /** Messages only: each row's dedup id, unique per channel. */
  private dedupIds: (string | undefined)[] = [];
  private cross: CrossRowIndex;
  /** Channels and users each row names, for the look-up against what exists. */
  private references: (RowReferences | undefined)[] = [];
  /** What the server said of each value asked about (true: exists); kept while the file is. */
  private readonly known = {
    channels: new Map<string, boolean>(),
    users: new Map<string, boolean>(),
  };
  private filtered = new Map<RowFilter, Int32Array>();
  /** The indexes of the rows under the header, blank lines left out. */
  private indexes = new Int32Array(0);

  constructor(
    private readonly resource: ImportResource,
    private readonly records: string[][],
    private readonly crossOptions: CrossRowOptions = {},
    /** False for JSON and NDJSON, whose first record is the column names the reader made up, not a line of the file. */
    private readonly headerInFile = true,
  ) {
    this.cross = new CrossRowIndex(resource, crossOptions);
    this.findRows();
  }

  private findRows(): void {
    const indexes: number[] = [];
    for (let index = 0; index < this.records.length - this.headerRow - 1; index++)
      if (!isBlankRecord(this.values(index))) indexes.push(index);
    this.indexes = Int32Array.from(indexes);
    this.filtered.clear();
  }

  get rowCount(): number {
    return this.indexes.length;
  }

  /** The row a spreadsheet shows for the first data row, header row included (JSON: its first item). */
  get firstRow(): number {
    return this.headerInFile ? this.headerRow + 2 : 1;
  }

  chooseHeader(headerRow: number): HeaderChoice {
    if (headerRow < 0 || headerRow >= this.records.length)
      throw new FileProblem("That header row is not in the file.");
    if (isBlankRecord(this.records[headerRow]!))
      throw new FileProblem("That row is blank; choose the row that names the columns.");
    this.headerRow = headerRow;
    this.findRows();
    const ragged = raggedRows(this.records, headerRow);
    if (ragged.total > 0) throw new FileProblem(raggedMessage(ragged));
    if (this.rowCount === 0) throw new FileProblem("The file has a header but no rows under it.");
    const maxRows = importLimits(this.resource).rows;
    if (this.rowCount > maxRows)
      throw new FileProblem(
        `The file has ${this.rowCount.toLocaleString("en-US")} rows; the console imports at most ${maxRows.toLocaleString("en-US")} at a time. Split it into parts.`,
      );
    this.columns = uniqueHeaders(this.records[headerRow]!);
    return {
      columns: this.columns,
      rows: this.rowCount,
      profiles: this.profiles(),
      firstRow: this.firstRow,
    };
  }

  /** Each column's fill rate and first non-empty values, for the mapping step. */
  private profiles(): ColumnProfile[] {
    const profiles = this.columns.map(() => ({ filled: 0, sample: [] as string[] }));
    for (const index of this.indexes) {
      const values = this.values(index);
      for (let column = 0; column < profiles.length; column++) {
        const value = values[column]?.trim() ?? "";
        if (value === "") continue;
        const profile = profiles[column]!;
        profile.filled++;
        if (profile.sample.length < VALUE_SAMPLE_SIZE) profile.sample.push(value);
      }
    }
    return profiles;
  }

  private values(index: number): string[] {
    return this.records[this.headerRow + 1 + index]!;
  }

  /** Validates every row; `onProgress` is called between batches. */
  validate(
    mapping: ColumnMapping,
    onProgress: (done: number, total: number) => void = () => {},
    transforms: ColumnTransforms = {},
    options: JobOptions = this.options,
  ): PreviewCounts {
    this.options = options;
    const total = this.indexes.length === 0 ? 0 : this.indexes[this.indexes.length - 1]! + 1;
    this.mapping = mapping;
    this.transforms = transforms;
    this.flags = new Uint8Array(total);
    this.ownIssues = new Array(total);
    this.crossIssues = new Array(total);
    this.keys = new Array(total);
    this.sourceIds = new Array(total);
    this.parentSourceIds = new Array(total);
    this.dedupIds = new Array(total);
    this.references = new Array(total);
    this.cross = new CrossRowIndex(this.resource, {
      ...this.crossOptions,
      firstRow: this.firstRow,
    });
    this.filtered.clear();
    const batch = 5000;
    const rows = this.indexes.length;
    for (let at = 0; at < rows; at++) {
      const index = this.indexes[at]!;
      this.prepare(index);
      this.cross.add(this.identity(index));
      if (at % batch === batch - 1) onProgress(at + 1, rows);
    }
    for (const index of this.indexes) this.refreshCross(index);
    onProgress(rows, rows);
    return this.counts();
  }

  private prepare(index: number): void {
    const row = prepareRow(
      this.resource,
      this.columns,
      this.mapping,
      this.values(index),
      index,
      this.transforms,
    );
    this.ownIssues[index] = row.issues.length > 0 ? row.issues : undefined;
    this.keys[index] = row.key;
    this.sourceIds[index] = row.sourceId;
    this.parentSourceIds[index] = row.parentSourceId;
    const dedupId = row.body?.dedup_id;
    this.dedupIds[index] = typeof dedupId === "string" ? dedupId : undefined;
    this.references[index] = rowReferences(this.resource, row);
    if (this.crossOptions.importedUserIds) this.crossBodies.set(index, row.body);
  }

  // Member checks need the body; kept only when there is a list of imported users to check against.
  private readonly crossBodies = new Map<number, Record<string, unknown> | null>();

  private refreshCross(index: number): void {
    const excluded = (this.flags[index]! & EXCLUDED) !== 0;
    const issues = this.cross.issuesFor({
      index,
      values: [],
      key: this.keys[index]!,
      sourceId: this.sourceIds[index],
      dedupId: this.dedupIds[index],
      parentSourceId: this.parentSourceIds[index],
      body: this.crossBodies.get(index) ?? null,
      followUps: {},
      issues: [],
      excluded,
    });
    if (!excluded)
      issues.push(
        ...referenceIssues(this.resource, this.references[index], this.known, this.options),
      );
    this.crossIssues[index] = issues.length > 0 ? issues : undefined;
    let flags = excluded ? EXCLUDED : 0;
    for (const issue of [...(this.ownIssues[index] ?? []), ...issues])
      flags |= issue.severity === "error" ? ERROR : WARNING;
    this.flags[index] = flags;
  }

  private identity(index: number) {
    return {
      index,
      key: this.keys[index]!,
      sourceId: this.sourceIds[index],
      dedupId: this.dedupIds[index],
      parentSourceId: this.parentSourceIds[index],
      excluded: (this.flags[index]! & EXCLUDED) !== 0,
    };
  }

  /** Fixes one cell; the row and every row sharing its old or new key are checked again. */
  edit(index: number, column: number, value: string): { counts: PreviewCounts; row: ViewRow } {
    this.assertRow(index);
    if (column < 0 || column >= this.columns.length)
      throw new FileProblem("That column is not in the file.");
    const before = this.cross.remove(this.identity(index));
    this.values(index)[column] = value;
    this.prepare(index);
    const after = this.cross.add(this.identity(index));
    for (const other of new Set([index, ...before, ...after])) this.refreshCross(other);
    this.filtered.clear();
    return { counts: this.counts(), row: this.viewRow(index) };
  }

  exclude(index: number, excluded: boolean): PreviewCounts {
    this.assertRow(index);
    const wasExcluded = (this.flags[index]! & EXCLUDED) !== 0;
    if (wasExcluded === excluded) return this.counts();
    const affected = this.cross.remove(this.identity(index));
    this.flags[index] = excluded ? this.flags[index]! | EXCLUDED : this.flags[index]! & ~EXCLUDED;
    affected.push(...this.cross.add(this.identity(index)));
    for (const other of new Set([index, ...affected])) this.refreshCross(other);
    this.filtered.clear();
    return this.counts();
  }

  /** Replays saved fixes on a freshly validated file: cells first, then exclusions. */
  applyFixes(fixes: SavedFixes): PreviewCounts {
    for (const [index, column, value] of fixes.edits) {
      if (this.isRow(index) && column >= 0 && column < this.columns.length)
        this.edit(index, column, value);
    }
    for (const [index, excluded] of fixes.excluded)
      if (this.isRow(index)) this.exclude(index, excluded);
    return this.counts();
  }

  /** Excludes every included row with an error; returns the rows it excluded. */
  excludeErrors(): { counts: PreviewCounts; rows: number[] } {
    const rows = Array.from(this.filterIndexes("errors"));
    for (const index of rows) this.exclude(index, true);
    return { counts: this.counts(), rows };
  }

  /**
   * Replaces `find` in one column of every row: the whole cell when `wholeCell`, else each
   * occurrence (case-sensitive). Returns the cells it changed, as fixes to save.
   */
  replace(
    column: number,
    find: string,
    replacement: string,
    wholeCell: boolean,
  ): { counts: PreviewCounts; edits: Array<[number, number, string]> } {
    if (column < 0 || column >= this.columns.length)
      throw new FileProblem("That column is not in the file.");
    if (find === "" && !wholeCell) throw new FileProblem("Type the text to find.");
    const edits: Array<[number, number, string]> = [];
    for (const index of this.indexes) {
      const value = this.values(index)[column] ?? "";
      const next = wholeCell
        ? value === find
          ? replacement
          : value
        : // A function, so that $$, $& or $' in the replacement are inserted as typed.
          value.replaceAll(find, () => replacement);
      if (next === value) continue;
      this.edit(index, column, next);
      edits.push([index, column, next]);
    }
    return { counts: this.counts(), edits };
  }

  /**
   * Up to `limit` channels and users of each kind the included rows name that have not been
   * looked up yet, and how many more there are beyond them.
   */
  uncheckedReferences(limit: number): ReferenceLookup & {
    more: { channels: number; users: number };
  } {
    const channels = new Set<string>();
    const users = new Set<string>();
    for (const index of this.indexes) {
      if (this.flags[index]! & EXCLUDED) continue;
      const references = this.references[index];
      if (!references) continue;
      if (references.channel !== undefined && !this.known.channels.has(references.channel))
        channels.add(references.channel);
      for (const user of references.users) if (!this.known.users.has(user.id)) users.add(user.id);
    }
    const first = (values: Set<string>) => [...values].slice(0, limit);
    return {
      channels: first(channels),
      users: first(users),
      more: {
        channels: Math.max(0, channels.size - limit),
        users: Math.max(0, users.size - limit),
      },
    };
  }

  /** Records the server's answer about `asked`; the rows naming a missing value get its error. */
  referencesChecked(asked: ReferenceLookup, missing: MissingReferences): PreviewCounts {
    const missingChannels = new Set(missing.channels);
    const missingUsers = new Set(missing.users);
    for (const value of asked.channels) this.known.channels.set(value, !missingChannels.has(value));
    for (const value of asked.users) this.known.users.set(value, !missingUsers.has(value));
    if (missingChannels.size === 0 && missingUsers.size === 0) return this.counts();
    for (const index of this.indexes) {
      const references = this.references[index];
      if (!references) continue;
      const names =
        (references.channel !== undefined && missingChannels.has(references.channel)) ||
        references.users.some((user) => missingUsers.has(user.id));
      if (names) this.refreshCross(index);
    }
    this.filtered.clear();
    return this.counts();
  }

  /**
   * Changes the import's options: the rows naming a user found missing are checked again (with
   * `createUnknownSenders`, such a sender is a warning rather than an error).
   */
  setOptions(options: JobOptions): PreviewCounts {
    this.options = options;
    for (const index of this.indexes) {
      const references = this.references[index];
      if (references?.users.some((user) => this.known.users.get(user.id) === false))
        this.refreshCross(index);
    }
    this.filtered.clear();
    return this.counts();
  }

  counts(): PreviewCounts {
    const counts: PreviewCounts = {
      rows: this.indexes.length,
      valid: 0,
      errors: 0,
      warnings: 0,
      excluded: 0,
    };
    for (const index of this.indexes) {
      const flags = this.flags[index]!;
      if (flags & EXCLUDED) {
        counts.excluded++;
        continue;
      }
      if (flags & ERROR) counts.errors++;
      else counts.valid++;
      if (flags & WARNING) counts.warnings++;
    }
    return counts;
  }

  /** The rows from `start` to `end` of those the filter shows (by place, not index). */
  rows(filter: RowFilter, start: number, end: number): { total: number; rows: ViewRow[] } {
    const indexes = filter === "all" ? this.indexes : this.filterIndexes(filter);
    const rows: ViewRow[] = [];
    for (let at = Math.max(0, start); at < Math.min(end, indexes.length); at++)
      rows.push(this.viewRow(indexes[at]!));
    return { total: indexes.length, rows };
  }

  private filterIndexes(filter: Exclude<RowFilter, "all">): Int32Array {
    const cached = this.filtered.get(filter);
    if (cached) return cached;
    const matches = (flags: number) =>
      filter === "excluded"
        ? (flags & EXCLUDED) !== 0
        : (flags & EXCLUDED) === 0 && (flags & (filter === "errors" ? ERROR : WARNING)) !== 0;
    const indexes = this.indexes.filter((index) => matches(this.flags[index]!));
    this.filtered.set(filter, indexes);
    return indexes;
  }

  viewRow(index: number): ViewRow {
    return {
      index,
      rowNumber: this.firstRow + index,
      values: this.values(index),
      issues: [...(this.ownIssues[index] ?? []), ...(this.crossIssues[index] ?? [])],
      excluded: (this.flags[index]! & EXCLUDED) !== 0,
    };
  }

  /**
   * Up to `size` rows from the `start`-th (blank lines are not rows), fewer when their cells
   * pass `maxBytes` as JSON (a server action's body is limited in bytes, a CJK character is
   * three and a quote is escaped). Each keeps its index. A row the server could take in no
   * chunk is refused with its number, so it can be shortened in the preview.
   */
  uploadRows(start: number, size: number, maxBytes = Infinity): UploadRow[] {
    const rows: UploadRow[] = [];
    let bytes = 0;
    for (const index of this.indexes.subarray(start, start + size)) {
      const row: UploadRow = { index, values: this.values(index) };
      if (this.flags[index]! & EXCLUDED) row.excluded = true;
      let rowBytes = 0;
      for (const value of row.values) rowBytes += jsonBytes(value) + 3;
      if (rowBytes > MAX_ROW_BYTES)
        throw new FileProblem(
          `Row ${(this.firstRow + index).toLocaleString("en-US")} holds ${formatBytes(rowBytes)} of text, more than the ${formatBytes(MAX_ROW_BYTES)} a row can be sent with. Shorten its longest cell in the preview, or in the file, and continue.`,
        );
      bytes += rowBytes;
      if (rows.length > 0 && bytes > maxBytes) break;
      rows.push(row);
    }
    return rows;
  }

  private assertRow(index: number): void {
    if (!this.isRow(index)) throw new FileProblem("That row is not in the file.");
  }

  /** A validated row of the file: not a blank line. */
  private isRow(index: number): boolean {
    return (
      Number.isInteger(index) &&
      index >= 0 &&
      index < this.flags.length &&
      !isBlankRecord(this.values(index))
    );
  }
}

/** The most one row may take: the server takes chunks of up to MAX_CHUNK_BYTES, with room for the index. */
const MAX_ROW_BYTES = MAX_CHUNK_BYTES - 1024;

/** The bytes a string takes in a chunk's JSON (UTF-8, quotes and backslashes escaped), without encoding it. */
function jsonBytes(text: string): number {
  let bytes = text.length;
  for (let at = 0; at < text.length; at++) {
    const code = text.charCodeAt(at);
    // 2 bytes up to U+07FF, 3 above; a surrogate pair (2 units) is 4.
    if (code >= 0x80) bytes += code < 0x800 || (code >= 0xd800 && code <= 0xdfff) ? 1 : 2;
    // \" and \\ are two bytes; a control character is at most six (\u001f).
    else if (code === 0x22 || code === 0x5c) bytes += 1;
    else if (code < 0x20) bytes += 5;
  }
  return bytes;
}
