import { MAX_IMPORT_ROWS } from "../types";

/**
 * Turning parsed records into columns and rows: header names made unique, JSON values made
 * cells, the header row guessed, and ragged rows found. Pure, so the worker and tests share it.
 */

/** Rows read before the header is chosen may hold a title or notes; the header is among these. */
export const HEADER_SEARCH_ROWS = 20;

/** Records a file may hold: the rows, a header and what may stand above it. */
export const MAX_RECORDS = MAX_IMPORT_ROWS + HEADER_SEARCH_ROWS;

/** A blank line of the file (the readers make it `[]`): it keeps its row number but is never imported. */
export function isBlankRecord(record: readonly string[]): boolean {
  return record.length === 0;
}

/** Headers as column names: blanks named by position, repeats numbered, so a mapping can key on them. */
export function uniqueHeaders(cells: readonly string[]): string[] {
  const seen = new Map<string, number>();
  return cells.map((cell, position) => {
    const base = cell.replace(/^\uFEFF/, "").trim() || `Column ${position + 1}`;
    const count = (seen.get(base) ?? 0) + 1;
    seen.set(base, count);
    return count === 1 ? base : `${base} (${count})`;
  });
}

/**
 * The header among the opening records: the first row as wide as most of them that names most
 * of its columns. A title line above the header is skipped whether it is shorter (a CSV written
 * by hand) or as wide as the table with empty cells (a workbook, or a CSV Excel padded with
 * commas): a title or a note fills a cell or two, a header nearly all of them.
 */
export function suggestHeaderRow(records: readonly (readonly string[])[]): number {
  const sample = records.slice(0, HEADER_SEARCH_ROWS);
  const counts = new Map<number, number>();
  for (const record of sample)
    if (!isBlankRecord(record)) counts.set(record.length, (counts.get(record.length) ?? 0) + 1);
  let widest = 0;
  let mostOften = 0;
  for (const [width, count] of counts) {
    if (count > mostOften || (count === mostOften && width > widest)) {
      widest = width;
      mostOften = count;
    }
  }
  const filled = sample.map((record) =>
    record.length === widest ? record.filter((cell) => cell.trim() !== "").length : 0,
  );
  const mostFilled = Math.max(0, ...filled);
  const row = filled.findIndex((count) => count > 0 && count * 2 > mostFilled);
  return Math.max(0, row);
}

/** Data rows (after the header) whose cell count differs from the header's, as the rows a spreadsheet shows (header included). */
export function raggedRows(
  records: readonly (readonly string[])[],
  headerRow: number,
  limit = 10,
): { rows: number[]; total: number; width: number } {
  const width = records[headerRow]?.length ?? 0;
  const rows: number[] = [];
  let total = 0;
  for (let at = headerRow + 1; at < records.length; at++) {
    if (records[at]!.length === width || isBlankRecord(records[at]!)) continue;
    total++;
    if (rows.length < limit) rows.push(at + 1);
  }
  return { rows, total, width };
}

export function raggedMessage(ragged: { rows: number[]; total: number; width: number }): string {
  const more =
    ragged.total > ragged.rows.length
      ? ` and ${(ragged.total - ragged.rows.length).toLocaleString("en-US")} more`
      : "";
  return `${ragged.total === 1 ? "Row" : "Rows"} ${ragged.rows.join(", ")}${more} ${ragged.total === 1 ? "has" : "have"} a different number of cells than the header (${ragged.width}). Check the quotes and separators on ${ragged.total === 1 ? "that row" : "those rows"}, or choose another header row.`;
}

/**
 * Finds where a quote that is never closed starts, reading the text piece by piece the way a
 * CSV reader does (a quote opens a field only at its start; `""` inside is a quote), so the
 * message can name the row a spreadsheet shows (blank lines are rows there too) and the line.
 */
export class UnclosedQuoteFinder {
  private inQuotes = false;
  private fieldStart = true;
  private line = 1;
  private row = 1;
  private pendingQuote = false;
  private pendingCr = false;
  private opened = { row: 0, line: 0 };

  constructor(private readonly delimiter: string) {}

  feed(text: string): void {
    for (let at = 0; at < text.length; at++) {
      const char = text[at]!;
      if (this.pendingCr) {
        this.pendingCr = false;
        if (char === "\n") continue;
      }
      if (this.inQuotes) {
        if (this.pendingQuote) {
          this.pendingQuote = false;
          if (char === '"') continue; // "" is a quote inside the field
          this.inQuotes = false; // the quote before closed the field; read this char outside
        } else {
          if (char === '"') this.pendingQuote = true;
          else if (char === "\n") this.line++;
          else if (char === "\r") {
            this.line++;
            this.pendingCr = true;
          }
          continue;
        }
      }
      if (char === "\n" || char === "\r") {
        this.line++;
        this.row++;
        this.fieldStart = true;
        this.pendingCr = char === "\r";
      } else if (char === this.delimiter) {
        this.fieldStart = true;
      } else if (char === '"' && this.fieldStart) {
        this.inQuotes = true;
        this.opened = { row: this.row, line: this.line };
      } else {
        this.fieldStart = false;
      }
    }
  }

  /** Where the quote still open at the end starts, or null when every quote was closed. */
  finish(): { row: number; line: number } | null {
    return this.inQuotes && !this.pendingQuote ? this.opened : null;
  }
}

export function unclosedQuoteMessage(where: { row: number; line: number }): string {
  return `Row ${where.row.toLocaleString("en-US")} (line ${where.line.toLocaleString("en-US")} of the file) opens a quote that is never closed, so everything after it would be read as one cell. Close the quote (or double it: "") and choose the file again.`;
}

/**
 * A JSON value as a cell: lists of plain values joined with `;` (as id lists are written), null
 * as empty. A list holding objects stays a JSON list, as the fields that take one read it
 * (an NDJSON message's `reactions`, `[{"key":"thumbsup","user_ids":["alice"]}]`); joined, it
 * read as the text form and its reactions were lost.
 */
export function jsonCell(value: unknown): string {
  if (value === null || value === undefined) return "";
  if (typeof value === "string") return value;
  if (Array.isArray(value))
    return value.some((item) => typeof item === "object" && item !== null)
      ? JSON.stringify(value)
      : value.join(";");
  if (typeof value === "object") return JSON.stringify(value);
  return String(value);
}

/**
 * Collects the columns of JSON objects in first-seen order; one level of nesting becomes
 * dotted columns (`{"metadata": {"team": "x"}}` -> `metadata.team`).
 */
export class JsonColumns {
  readonly columns: string[] = [];
  private readonly positions = new Map<string, number>();

  /** The object's cells in column order (later objects may add columns; earlier rows are padded). */
  cells(object: Record<string, unknown>): string[] {
    const cells: string[] = [];
    for (const [key, value] of Object.entries(object)) {
      if (value !== null && typeof value === "object" && !Array.isArray(value)) {
        for (const [inner, innerValue] of Object.entries(value as Record<string, unknown>))
          this.put(cells, `${key}.${inner}`, jsonCell(innerValue));
      } else {
        this.put(cells, key, jsonCell(value));
      }
    }
    return cells;
  }

  private put(cells: string[], column: string, value: string): void {
    let position = this.positions.get(column);
    if (position === undefined) {
      position = this.columns.length;
      this.columns.push(column);
      this.positions.set(column, position);
    }
    while (cells.length < position) cells.push("");
    cells[position] = value;
  }
}

export function isPlainObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === "object" && !Array.isArray(value);
}
