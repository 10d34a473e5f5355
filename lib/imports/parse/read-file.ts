import Papa from "papaparse";
import readXlsxFile from "read-excel-file/universal";
import { MAX_IMPORT_BYTES, MAX_IMPORT_ROWS } from "../types";
import {
  HEADER_SEARCH_ROWS,
  isBlankRecord,
  isPlainObject,
  JsonColumns,
  UnclosedQuoteFinder,
  unclosedQuoteMessage,
} from "./records";
import { findUnstorableText } from "@/lib/schemas/text-values";
import { restoreNeutralisedCells } from "../failures-csv";
import { formatBytes, notUtf8Message, sniffFile, Utf8Checker, type FileFormat } from "./sniff";

/**
 * Reads a file into records (arrays of cells) in a worker, streaming: the bytes are checked
 * as UTF-8 slice by slice, CSV/TSV go through papaparse's chunked reader, NDJSON is split
 * into lines as it is decoded. Throws FileProblem with a message for the administrator.
 *
 * A blank line (or a row of only empty cells) stays in the records as `[]`: a spreadsheet
 * shows it as a row, so the rows after it keep their numbers, but it is never imported.
 * Blank lines at the end are dropped.
 */

export class FileProblem extends Error {}

export type Progress = (done: number, total: number, phase: "checking" | "reading") => void;

const SLICE_BYTES = 4 * 1024 * 1024;
/** The most bytes and rows one file may hold; messages allow more (`importLimits`). */
export type FileLimits = { bytes: number; rows: number };

const defaultLimits: FileLimits = { bytes: MAX_IMPORT_BYTES, rows: MAX_IMPORT_ROWS };

function tooManyRows(limits: FileLimits): string {
  return `The file has more than ${limits.rows.toLocaleString("en-US")} rows. Split it into files of at most ${limits.rows.toLocaleString("en-US")} rows and import them one after another.`;
}

export type ReadFile = {
  format: FileFormat;
  records: string[][];
  headerFixed: boolean;
  sheets?: string[];
  sheet?: string;
};

/** `sheet`: which sheet of a workbook to read; the first when null. */
export async function readRecords(
  file: Blob & { name: string },
  onProgress: Progress,
  limits: FileLimits = defaultLimits,
  sheet: string | null = null,
): Promise<ReadFile> {
  if (file.size > limits.bytes) {
    throw new FileProblem(
      `The file is ${formatBytes(file.size)}; the console imports files of up to ${formatBytes(limits.bytes)}. Split it and import the parts one after another.`,
    );
  }
  const head = new Uint8Array(await file.slice(0, 8192).arrayBuffer());
  const sniffed = sniffFile(file.name, file.size, head);
  if (!sniffed.ok) throw new FileProblem(sniffed.message);
  if (sniffed.format === "xlsx")
    return {
      format: "xlsx",
      headerFixed: false,
      ...(await readWorkbook(file, sheet, onProgress, limits)),
    };
  if (sniffed.format === "csv" || sniffed.format === "tsv") {
    await checkUtf8(file, onProgress);
    const records = await readDelimited(file, sniffed.format, onProgress, limits);
    // A failures CSV downloaded from the console, fixed and uploaded again.
    return {
      format: sniffed.format,
      records: restoreNeutralisedCells(records),
      headerFixed: false,
    };
  }
  const records =
    sniffed.format === "ndjson"
      ? await readNdjson(file, onProgress, limits)
      : await readJsonArray(file, onProgress, limits);
  return { format: sniffed.format, records, headerFixed: true };
}

async function* decodedSlices(
  file: Blob,
  onProgress: Progress,
  phase: "checking" | "reading",
): AsyncGenerator<string> {
  const checker = new Utf8Checker();
  for (let start = 0; start < file.size; start += SLICE_BYTES) {
    const end = Math.min(file.size, start + SLICE_BYTES);
    const text = checker.decode(
      new Uint8Array(await file.slice(start, end).arrayBuffer()),
      end === file.size,
    );
    if (text === null) throw new FileProblem(notUtf8Message(checker.failedAt, checker.failedLine));
    onProgress(end, file.size, phase);
    yield text;
  }
}

async function checkUtf8(file: Blob, onProgress: Progress): Promise<void> {
  let binary = false;
  for await (const text of decodedSlices(file, onProgress, "checking"))
    if (text.includes("\u0000")) binary = true;
  if (binary)
    throw new FileProblem("This is not a CSV, TSV or JSON file: it holds binary data, not text.");
}

async function readDelimited(
  file: Blob,
  format: "csv" | "tsv",
  onProgress: Progress,
  limits: FileLimits,
): Promise<string[][]> {
  const { records, quoteProblem, delimiter } = await parseDelimited(
    file,
    format,
    onProgress,
    limits,
  );
  // A quote never closed swallows the rest of the file into one cell (or, read in chunks, leaves
  // no rows at all) without the reader always saying so: in any of these cases, look for it.
  const last = records[records.length - 1];
  const suspicious =
    quoteProblem !== null ||
    last === undefined ||
    last.some((cell) => cell.includes("\n") || cell.includes("\r"));
  if (suspicious) {
    // Read the text once more to find where the open quote starts: row and line.
    const finder = new UnclosedQuoteFinder(delimiter);
    for await (const text of decodedSlices(file, () => {}, "reading"))
      finder.feed(text.replace(/^\uFEFF/, ""));
    const where = finder.finish();
    if (where) throw new FileProblem(unclosedQuoteMessage(where));
    if (quoteProblem)
      throw new FileProblem(
        `Row ${quoteProblem.row.toLocaleString("en-US")} has a quoted cell with a quote inside it that is not doubled (${quoteProblem.message}), so the cell's end cannot be found. Write a quote inside a quoted cell as "", and choose the file again.`,
      );
  }
  return records;
}

/**
 * The separator, guessed from the opening lines with the blank ones left out: papaparse's own
 * guess, made while keeping blank lines, would count them as one-cell rows and miss.
 */
async function guessDelimiter(file: Blob): Promise<string> {
  const head = new TextDecoder().decode(await file.slice(0, 64 * 1024).arrayBuffer());
  const guessed = Papa.parse<string[]>(head.replace(/^\uFEFF/, ""), {
    preview: 10,
    skipEmptyLines: "greedy",
    delimitersToGuess: [",", "\t", ";"],
  });
  return guessed.meta.delimiter || ",";
}

async function parseDelimited(
  file: Blob,
  format: "csv" | "tsv",
  onProgress: Progress,
  limits: FileLimits,
): Promise<{
  records: string[][];
  quoteProblem: { message: string; row: number } | null;
  delimiter: string;
}> {
  const records: string[][] = [];
  const delimiter = format === "tsv" ? "\t" : await guessDelimiter(file);
  const text = new DecodedText();
  let settled = false;
  const parsed = new Promise<Awaited<ReturnType<typeof parseDelimited>>>((resolve, reject) => {
    Papa.parse<string[]>(text as unknown as NodeJS.ReadableStream, {
      delimiter,
      // Blank lines are kept (as `[]`, see blankAsEmpty): they count in the row numbers.
      skipEmptyLines: false,
      chunk(results, parser) {
        // Settle before abort(): papaparse's abort() calls `complete`, which would otherwise
        // resolve with the rows read so far, as if the file ended there.
        const quoteError = results.errors.find((error) => error.type === "Quotes");
        if (quoteError) {
          // `row` counts the rows of this chunk; a record's row number is its index + 1.
          const row = records.length + (quoteError.row ?? 0) + 1;
          settled = true;
          resolve({ records, quoteProblem: { message: quoteError.message, row }, delimiter });
          parser.abort();
          return;
        }
        for (const record of results.data) records.push(blankAsEmpty(record));
        if (records.length > limits.rows + HEADER_SEARCH_ROWS) {
          settled = true;
          reject(new FileProblem(tooManyRows(limits)));
          parser.abort();
        }
      },
      complete: () =>
        resolve({ records: withoutTrailingBlanks(records), quoteProblem: null, delimiter }),
      error: (error) => reject(new FileProblem(`The file could not be read: ${error.message}`)),
    });
  });
  for await (const slice of decodedSlices(file, onProgress, "reading")) {
    if (settled) break;
    // papaparse parses each piece of text before `emit` returns.
    text.emit("data", slice);
  }
  if (!settled) text.emit("end");
  return parsed;
}

/**
 * The file's text as the stream papaparse reads: given the File itself, papaparse decodes each
 * 2 MB slice on its own, so a character cut by a slice's end became two U+FFFD and changed a
 * cell without a word. Here the text comes from one decoder (`decodedSlices`), which carries a
 * cut character over to the next slice.
 */
class DecodedText {
  readonly readable = true;
  private readonly listeners = new Map<string, (value?: string) => void>();
  read(): void {}
  pause(): void {}
  resume(): void {}
  on(event: string, listener: (value?: string) => void): void {
    this.listeners.set(event, listener);
  }
  removeListener(event: string): void {
    this.listeners.delete(event);
  }
  emit(event: "data" | "end", value?: string): void {
    this.listeners.get(event)?.(value);
  }
}

async function readNdjson(
  file: Blob,
  onProgress: Progress,
  limits: FileLimits,
): Promise<string[][]> {
  const columns = new JsonColumns();
  const rows: string[][] = [];
  let rest = "";
  let line = 0;
  const take = (text: string) => {
    line++;
    // A blank line keeps its place, so each object's row number is its line.
    if (text.trim() === "") {
      rows.push([]);
      return;
    }
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch {
      throw new FileProblem(
        `Line ${line.toLocaleString("en-US")} is not valid JSON. Each line of an NDJSON file holds one object.`,
      );
    }
    if (!isPlainObject(value))
      throw new FileProblem(
        `Line ${line.toLocaleString("en-US")} is not a JSON object. Each line of an NDJSON file holds one object.`,
      );
    if (findUnstorableText(value) !== undefined)
      throw new FileProblem(`Line ${line.toLocaleString("en-US")} ${unstorableInJson}`);
    const cells = columns.cells(value);
    // `{}` is a row (with nothing in it), not a blank line.
    rows.push(cells.length > 0 ? cells : [""]);
    if (rows.length > limits.rows) throw new FileProblem(tooManyRows(limits));
  };
  for await (const text of decodedSlices(file, onProgress, "reading")) {
    const lines = (rest + text).split("\n");
    rest = lines.pop() ?? "";
    for (const text of lines) take(text);
  }
  take(rest);
  return withHeader(columns, withoutTrailingBlanks(rows));
}

async function readJsonArray(
  file: Blob,
  onProgress: Progress,
  limits: FileLimits,
): Promise<string[][]> {
  const parts: string[] = [];
  for await (const text of decodedSlices(file, onProgress, "reading")) parts.push(text);
  let value: unknown;
  try {
    value = JSON.parse(parts.join(""));
  } catch (error) {
    throw new FileProblem(
      `The file is not valid JSON (${error instanceof Error ? error.message : "parse error"}).`,
    );
  }
  if (!Array.isArray(value))
    throw new FileProblem(
      "The JSON file holds one object; the console imports an array of objects, one per row.",
    );
  if (value.length > limits.rows) throw new FileProblem(tooManyRows(limits));
  const columns = new JsonColumns();
  const rows = value.map((item, position) => {
    if (!isPlainObject(item))
      throw new FileProblem(
        `Item ${position + 1} of the JSON array is not an object; each item is one row.`,
      );
    if (findUnstorableText(item) !== undefined)
      throw new FileProblem(
        `Item ${(position + 1).toLocaleString("en-US")} of the JSON array ${unstorableInJson}`,
      );
    return columns.cells(item);
  });
  return withHeader(columns, rows);
}

// A `\u0000` escape (or half of a surrogate pair) parses into text the database cannot store.
const unstorableInJson =
  "holds a NUL character (\\u0000) or half of a surrogate pair, which is not text that can be imported. Remove it and choose the file again.";

/** Later objects may bring new columns: every row (not a blank line) is padded to the final width. */
function withHeader(columns: JsonColumns, rows: string[][]): string[][] {
  const width = columns.columns.length;
  // Without a key there is no header: say why, rather than the header picker's "blank row".
  if (width === 0)
    throw new FileProblem(
      rows.length === 0
        ? "The file holds no rows."
        : "The file's objects have no keys (each is {}), so there is nothing to import.",
    );
  for (const row of rows) if (!isBlankRecord(row)) while (row.length < width) row.push("");
  return [columns.columns, ...rows];
}

/**
 * A workbook's sheet as text cells, through read-excel-file (maintained, no `xlsx` package):
 * numbers as written, dates as ISO dates (with the time when it is not midnight), booleans as
 * true/false, empty cells as "". Rows shorter than the widest are padded, as a CSV export would be.
 */
export async function readWorkbook(
  file: Blob,
  sheet: string | null,
  onProgress: Progress,
  limits: FileLimits = defaultLimits,
): Promise<{ records: string[][]; sheets: string[]; sheet: string }> {
  onProgress(0, file.size, "reading");
  let workbook: Awaited<ReturnType<typeof readXlsxFile<string>>>;
  try {
    // parseNumber keeps a number's text as stored: ids such as 00123 or 1e5 stay as they are.
    workbook = await readXlsxFile<string>(file, { parseNumber: (text) => text });
  } catch (error) {
    throw new FileProblem(
      `The workbook could not be read (${error instanceof Error ? error.message : "unknown error"}). Open it in a spreadsheet program, save it as .xlsx or CSV, and choose it again.`,
    );
  }
  const sheets = workbook.map((item) => item.sheet);
  const chosen = sheet === null ? workbook[0] : workbook.find((item) => item.sheet === sheet);
  if (!chosen)
    throw new FileProblem(
      sheet === null
        ? "The workbook has no sheets."
        : `The workbook has no sheet named "${sheet}".`,
    );
  const records = withoutTrailingBlanks(chosen.data.map((row) => blankAsEmpty(row.map(excelCell))));
  const width = records.reduce((widest, row) => Math.max(widest, row.length), 0);
  for (const row of records) if (!isBlankRecord(row)) while (row.length < width) row.push("");
  if (records.length > limits.rows + HEADER_SEARCH_ROWS) throw new FileProblem(tooManyRows(limits));
  onProgress(file.size, file.size, "reading");
  return { records, sheets, sheet: chosen.sheet };
}

/** A record of only empty cells is a blank row: `[]`. */
function blankAsEmpty(record: string[]): string[] {
  return record.every((cell) => cell.trim() === "") ? [] : record;
}

function withoutTrailingBlanks(records: string[][]): string[][] {
  while (records.length > 0 && isBlankRecord(records[records.length - 1]!)) records.pop();
  return records;
}

function excelCell(value: unknown): string {
  if (value === null || value === undefined) return "";
  if (value instanceof Date) {
    const iso = value.toISOString();
    return iso.endsWith("T00:00:00.000Z") ? iso.slice(0, 10) : iso;
  }
  return String(value);
}
