/**
 * The failures CSV (`GET /imports/{id}/failures`) is made to be opened in a spreadsheet, fixed
 * and imported again. A spreadsheet runs a cell that begins with `=`, `+`, `-`, `@`, a tab or a
 * carriage return as a formula (CSV injection, OWASP), and its values come from an uploaded
 * file and the platform's answers. So such a cell is written with an apostrophe in front, which
 * every spreadsheet shows as text; so is a cell that already begins with one, which makes the
 * scheme exact to undo. The import wizard takes the apostrophe off again, only in a file whose
 * header ends with the failures CSV's own columns (`reason`, then `row` or `row in file`).
 */

export const reasonColumn = "reason";

/** The row number's column: `row`, or `row in file` when the file has a column `row` already. */
export function rowNumberColumn(columns: readonly string[]): string {
  return columns.includes("row") ? "row in file" : "row";
}

/** A cell a spreadsheet would run, or one beginning with the apostrophe this adds. */
const needsApostrophe = /^[=+\-@\t\r']/;

export function neutraliseCell(value: string): string {
  return needsApostrophe.test(value) ? `'${value}` : value;
}

/** Whether a header row is a failures CSV's (its last two columns are the ones it adds). */
export function isFailuresCsvHeader(header: readonly string[]): boolean {
  const [reason, row] = header.slice(-2);
  return reason === reasonColumn && (row === "row" || row === "row in file") && header.length >= 3;
}

/**
 * Undoes neutraliseCell in place in the records of a failures CSV (recognised by its header, the
 * first record); other files are left as they are.
 */
export function restoreNeutralisedCells(records: string[][]): string[][] {
  if (!records[0] || !isFailuresCsvHeader(records[0])) return records;
  for (const record of records) {
    for (let i = 0; i < record.length; i++) {
      const cell = record[i]!;
      if (cell.startsWith("'") && needsApostrophe.test(cell.slice(1))) record[i] = cell.slice(1);
    }
  }
  return records;
}
