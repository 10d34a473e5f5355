import { JsonArrayStream, JsonStreamError } from "./json-stream";
import { ExportProblem, type ExportFile, type ReadOptions } from "./types";
import { entryChunks, readBytes, ZipEntryError, type ZipEntry } from "./zip";

/**
 * The files of an export, wherever they sit: entries of a ZIP, or files dropped side by side.
 * Each is read on demand as a stream of bytes, decoded as UTF-8 text, and split into JSON
 * array items or JSONL lines, so a reader sees one item at a time.
 */

export type ExportEntry = {
  /** The path inside the ZIP, or the dropped file's name: what error messages show. */
  path: string;
  /** Uncompressed bytes. */
  size: number;
  /** The entry's bytes, decompressed; throws EntryError when they cannot be read. */
  chunks(): AsyncGenerator<Uint8Array>;
};

/** Why one file of the export cannot be read (damaged, not UTF-8, not JSON). */
export class EntryError extends Error {
  constructor(
    message: string,
    /** The array item or line where reading stopped, when known. */
    readonly item: number | null = null,
  ) {
    super(message);
  }
}

const SLICE_BYTES = 1024 * 1024;

/** Counts the bytes of the dropped files read so far, for the progress bar, and checks for a cancel. */
export class ReadMeter {
  private done = 0;
  constructor(
    readonly total: number,
    private readonly options: ReadOptions,
  ) {}

  read(bytes: number): void {
    this.done += bytes;
    this.options.onProgress?.(Math.min(this.done, this.total), this.total);
    this.checkCancelled();
  }

  checkCancelled(): void {
    if (this.options.signal?.aborted) throw new ReadCancelled();
  }

  /** Back to nothing read, after the formats were told apart from the files' first bytes. */
  reset(): void {
    this.done = 0;
  }

  finish(): void {
    this.options.onProgress?.(this.total, this.total);
  }
}

export class ReadCancelled extends ExportProblem {
  constructor() {
    super("Reading the export was cancelled.");
  }
}

export function zipEntry(file: ExportFile, entry: ZipEntry, meter: ReadMeter): ExportEntry {
  return {
    path: entry.name,
    size: entry.size,
    async *chunks() {
      try {
        yield* entryChunks(file, entry, (bytes) => meter.read(bytes));
      } catch (error) {
        if (error instanceof ZipEntryError)
          throw new EntryError(`${entry.name} cannot be read from the ZIP: ${error.message}.`);
        throw error;
      }
    },
  };
}

export function looseEntry(file: ExportFile, meter: ReadMeter): ExportEntry {
  return {
    path: file.name,
    size: file.size,
    async *chunks() {
      for (let start = 0; start < file.size; start += SLICE_BYTES) {
        const bytes = await readBytes(file, start, Math.min(file.size, start + SLICE_BYTES));
        meter.read(bytes.length);
        yield bytes;
      }
    },
  };
}

/** The entry as UTF-8 text, piece by piece; a byte order mark is dropped. */
export async function* entryText(entry: ExportEntry): AsyncGenerator<string> {
  const decoder = new TextDecoder("utf-8", { fatal: true });
  try {
    for await (const chunk of entry.chunks()) {
      const text = decoder.decode(chunk, { stream: true });
      if (text.length > 0) yield text;
    }
    const rest = decoder.decode();
    if (rest.length > 0) yield rest;
  } catch (error) {
    if (error instanceof TypeError)
      throw new EntryError(
        `${entry.path} is not UTF-8 text: it holds bytes that are not UTF-8, so it is not a file the export tool wrote. Export again, or restore the file.`,
      );
    throw error;
  }
}

/**
 * The items of the entry's JSON array (`key`: the array under that key of its object), as
 * they are read: each with its number from 1. `onField` receives the object's other keys.
 * A text that stops being valid JSON throws EntryError naming the file and the item, after
 * the items before it were handed over.
 */
export async function* jsonItems(
  entry: ExportEntry,
  key: string | null = null,
  onField?: (key: string, value: unknown) => void,
): AsyncGenerator<{ value: unknown; item: number }> {
  let ready: Array<{ value: unknown; item: number }> = [];
  const stream = new JsonArrayStream(
    { onItem: (value, item) => ready.push({ value, item }), onField },
    key,
  );
  try {
    for await (const text of entryText(entry)) {
      stream.push(text);
      if (ready.length > 0) {
        const batch = ready;
        ready = [];
        yield* batch;
      }
    }
    stream.end();
  } catch (error) {
    if (error instanceof JsonStreamError) {
      yield* ready;
      throw new EntryError(`${entry.path} is not valid JSON: ${error.message}.`, error.item);
    }
    throw error;
  }
  yield* ready;
}

/** The entry's lines (JSONL), each with its number from 1; a final line without a newline counts. */
export async function* entryLines(
  entry: ExportEntry,
): AsyncGenerator<{ text: string; line: number }> {
  let rest = "";
  let line = 0;
  for await (const text of entryText(entry)) {
    const lines = (rest + text).split("\n");
    rest = lines.pop() ?? "";
    for (const text of lines)
      yield { text: text.endsWith("\r") ? text.slice(0, -1) : text, line: ++line };
  }
  if (rest.length > 0) yield { text: rest, line: ++line };
}

/** The first bytes of an entry, decompressed (for telling formats apart). */
export async function entryHead(entry: ExportEntry, bytes = 4096): Promise<string> {
  const parts: Uint8Array[] = [];
  let length = 0;
  try {
    for await (const chunk of entry.chunks()) {
      parts.push(chunk);
      length += chunk.length;
      if (length >= bytes) break;
    }
  } catch (error) {
    if (error instanceof EntryError) return "";
    throw error;
  }
  const joined = new Uint8Array(length);
  let at = 0;
  for (const part of parts) joined.set(part, (at += part.length) - part.length);
  return new TextDecoder().decode(joined.subarray(0, bytes)).replace(/^\uFEFF/, "");
}
