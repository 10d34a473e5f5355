import { neutraliseCell } from "@/lib/imports/failures-csv";

/**
 * RFC 4180 text: fields with a comma, quote, CR or LF are quoted, quotes doubled; CRLF line ends.
 * A cell a spreadsheet would run as a formula is neutralised first (see lib/imports/failures-csv.ts).
 */
export function csvField(value: string): string {
  const cell = neutraliseCell(value);
  return /[",\r\n]/.test(cell) ? `"${cell.replaceAll('"', '""')}"` : cell;
}

export function csvLine(fields: readonly string[]): string {
  return `${fields.map(csvField).join(",")}\r\n`;
}
