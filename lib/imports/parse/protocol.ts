import type { ColumnMapping } from "../fields";
import type { ColumnTransforms } from "../transforms";
import type { MissingReferences, ReferenceLookup } from "../references";
import type { ImportResource, JobOptions, RowIssue } from "../types";
import type { FileFormat } from "./sniff";

/**
 * Messages between the wizard and the preview worker. The rows live in the worker; the page
 * asks for the window it shows, so a million rows never become a million React objects.
 */

export type RowFilter = "all" | "errors" | "warnings" | "excluded";

export type PreviewCounts = {
  rows: number;
  /** Included rows without errors: what the plan will send. */
  valid: number;
  /** Included rows with at least one error. */
  errors: number;
  /** Included rows with at least one warning. */
  warnings: number;
  excluded: number;
};

export type LoadedFile = {
  format: FileFormat;
  /** The opening records, for choosing the header row (CSV and TSV). */
  sample: string[][];
  /** Records read in all, header and anything above it included. */
  records: number;
  suggestedHeaderRow: number;
  /** JSON and NDJSON name their columns in each object: there is no header row to choose. */
  headerFixed: boolean;
  /** A workbook's sheets, and the one read. */
  sheets?: string[];
  sheet?: string;
};

/**
 * What a column holds: how many rows have a value, and its first non-empty values (at most
 * VALUE_SAMPLE_SIZE), which the mapping step shows and reads to match and warn by values.
 */
export type ColumnProfile = { filled: number; sample: string[] };

/** `firstRow`: the row a spreadsheet shows for the first data row (header row included). */
export type HeaderChoice = {
  columns: string[];
  rows: number;
  profiles: ColumnProfile[];
  firstRow: number;
};

/** Fixes to replay on a freshly read file: [row index, column, value] and [row index, excluded]. */
export type SavedFixes = {
  edits: Array<[number, number, string]>;
  excluded: Array<[number, boolean]>;
};

/** `rowNumber`: the row a spreadsheet shows for this record, the number used everywhere. */
export type ViewRow = {
  index: number;
  rowNumber: number;
  values: string[];
  issues: RowIssue[];
  excluded: boolean;
};

export type UploadRow = { index: number; values: string[]; excluded?: boolean };

export type PreviewRequest =
  | { type: "load"; file: File; resource: ImportResource; sheet?: string | null }
  | { type: "header"; headerRow: number }
  | {
      type: "validate";
      mapping: ColumnMapping;
      transforms: ColumnTransforms;
      options?: JobOptions;
    }
  | { type: "rows"; filter: RowFilter; start: number; end: number }
  | { type: "edit"; index: number; column: number; value: string }
  | { type: "exclude"; index: number; excluded: boolean }
  | { type: "upload-rows"; start: number; size: number; maxBytes: number }
  | { type: "apply-fixes"; fixes: SavedFixes }
  | { type: "exclude-errors" }
  | { type: "replace"; column: number; find: string; replacement: string; wholeCell: boolean }
  | { type: "unchecked-references"; limit: number }
  | { type: "references-checked"; asked: ReferenceLookup; missing: MissingReferences }
  | { type: "options"; options: JobOptions };

export type PreviewResults = {
  load: LoadedFile;
  header: HeaderChoice;
  validate: PreviewCounts;
  rows: { total: number; rows: ViewRow[] };
  edit: { counts: PreviewCounts; row: ViewRow };
  exclude: { counts: PreviewCounts };
  "upload-rows": { rows: UploadRow[] };
  "apply-fixes": PreviewCounts;
  "exclude-errors": { counts: PreviewCounts; rows: number[] };
  replace: { counts: PreviewCounts; edits: Array<[number, number, string]> };
  "unchecked-references": ReferenceLookup & { more: { channels: number; users: number } };
  "references-checked": PreviewCounts;
  options: PreviewCounts;
};

export type PreviewProgress = {
  phase: "checking" | "reading" | "validating";
  done: number;
  total: number;
};

export type WorkerInbound = { id: number; request: PreviewRequest };

export type WorkerOutbound =
  | { kind: "result"; id: number; ok: true; result: unknown }
  | { kind: "result"; id: number; ok: false; message: string }
  | { kind: "progress"; progress: PreviewProgress };
