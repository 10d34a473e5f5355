import type { ExportLimits, ReadOptions } from "./types";

/**
 * What an export may hold for the console to read it in the browser. Reading is streamed, so
 * the export's size is not what runs out; what does is the tab's memory for what the readers
 * keep (the ZIP's table of contents, one item at a time, the ids that find duplicates) and
 * the job machinery's own limit per import. docs/imports-exports.md explains each figure.
 */

/**
 * A ZIP's table of contents is held while reading: about 340 bytes of heap per entry (measured
 * on the benchmark's export), so 500,000 entries take about 170 MB of the tab's 1 GB.
 */
export const MAX_ZIP_ENTRIES = 500_000;

/** One message, person or JSONL line: far beyond what an export tool writes, far below a string's limit. */
export const MAX_ITEM_CHARS = 64 * 1024 * 1024;

/** As for a messages file (lib/imports/types.ts): what one import job holds. */
export const MAX_EXPORT_MESSAGES = 5_000_000;

/** The export's text, uncompressed: a Discord export of 5,000,000 messages is about 8 GB of JSON. */
export const MAX_EXPORT_TEXT_BYTES = 16 * 1024 ** 3;

export function exportLimits(options: ReadOptions): ExportLimits {
  return {
    zipEntries: MAX_ZIP_ENTRIES,
    textBytes: MAX_EXPORT_TEXT_BYTES,
    messages: MAX_EXPORT_MESSAGES,
    ...options.limits,
  };
}
