/**
 * What a file is, from its name and first bytes, before anything is parsed: so that an
 * image renamed .csv, a UTF-16 export or an empty file gets a clear message, not garbage rows.
 */

export type FileFormat = "csv" | "tsv" | "json" | "ndjson" | "xlsx";

export type Sniffed = { ok: true; format: FileFormat } | { ok: false; message: string };

const SIGNATURES: Array<{ bytes: number[]; what: string }> = [
  { bytes: [0x89, 0x50, 0x4e, 0x47], what: "a PNG image" },
  { bytes: [0xff, 0xd8, 0xff], what: "a JPEG image" },
  { bytes: [0x47, 0x49, 0x46, 0x38], what: "a GIF image" },
  { bytes: [0x25, 0x50, 0x44, 0x46], what: "a PDF document" },
  {
    bytes: [0x50, 0x4b, 0x03, 0x04],
    what: "a ZIP archive (an Excel workbook is read when its name ends in .xlsx)",
  },
  { bytes: [0xd0, 0xcf, 0x11, 0xe0], what: "an old Excel or Word document (save it as CSV)" },
  { bytes: [0x1f, 0x8b], what: "a gzip archive (unpack it first)" },
];

/** `head`: the file's first bytes (a few KiB are enough). */
export function sniffFile(name: string, size: number, head: Uint8Array): Sniffed {
  if (size === 0)
    return {
      ok: false,
      message: "The file is empty (0 bytes). Export it again and choose the new file.",
    };
  const extension = /\.([a-z0-9]+)$/i.exec(name)?.[1]?.toLowerCase() ?? "";
  // An .xlsx workbook is a ZIP archive.
  if (
    extension === "xlsx" &&
    head[0] === 0x50 &&
    head[1] === 0x4b &&
    head[2] === 0x03 &&
    head[3] === 0x04
  )
    return { ok: true, format: "xlsx" };
  for (const signature of SIGNATURES) {
    if (signature.bytes.every((byte, at) => head[at] === byte)) {
      return {
        ok: false,
        message: `This is not a CSV, TSV, JSON or XLSX file: its content is ${signature.what}.`,
      };
    }
  }
  if ((head[0] === 0xff && head[1] === 0xfe) || (head[0] === 0xfe && head[1] === 0xff)) {
    return {
      ok: false,
      message:
        "The file is saved as UTF-16. Save it as UTF-8 (in Excel: CSV UTF-8) and choose it again.",
    };
  }
  if (head.includes(0)) {
    return {
      ok: false,
      message: "This is not a CSV, TSV or JSON file: it holds binary data, not text.",
    };
  }
  const text = new TextDecoder("utf-8")
    .decode(head.subarray(0, 4096))
    .replace(/^\uFEFF/, "")
    .trimStart();
  if (extension === "ndjson" || extension === "jsonl") return { ok: true, format: "ndjson" };
  if (text.startsWith("[")) return { ok: true, format: "json" };
  if (text.startsWith("{"))
    return { ok: true, format: looksLikeOneObject(text) ? "json" : "ndjson" };
  if (extension === "json") {
    return { ok: false, message: "This .json file does not start with [ or {: it is not JSON." };
  }
  if (extension === "tsv" || extension === "tab") return { ok: true, format: "tsv" };
  const firstLine = text.split(/\r?\n/, 1)[0] ?? "";
  if (extension !== "csv" && firstLine.includes("\t") && !firstLine.includes(","))
    return { ok: true, format: "tsv" };
  return { ok: true, format: "csv" };
}

// `{` then a newline before the first object closes: an object spread over lines, not NDJSON.
function looksLikeOneObject(text: string): boolean {
  const firstLine = text.split(/\r?\n/, 1)[0] ?? "";
  return firstLine.trim() === "{";
}

/** Checks bytes as UTF-8 chunk by chunk; a decoder per file, `final` on the last chunk. */
export class Utf8Checker {
  private readonly decoder = new TextDecoder("utf-8", { fatal: true, ignoreBOM: false });
  private offset = 0;
  private newlines = 0;
  /** Bytes at the end of the last chunk that begin a character the next chunk finishes. */
  private carried: Uint8Array = new Uint8Array(0);

  /** The decoded text, or null (with `failedAt` and `failedLine` set) when the bytes are not UTF-8. */
  decode(chunk: Uint8Array, final: boolean): string | null {
    try {
      const text = this.decoder.decode(chunk, { stream: !final });
      for (let at = text.indexOf("\n"); at !== -1; at = text.indexOf("\n", at + 1)) this.newlines++;
      this.offset += chunk.byteLength;
      this.carried = incompleteTail(chunk, this.carried);
      return text;
    } catch {
      const bytes = new Uint8Array(this.carried.length + chunk.length);
      bytes.set(this.carried);
      bytes.set(chunk, this.carried.length);
      const bad = Math.max(0, firstInvalidUtf8(bytes, final));
      let lines = 0;
      for (let at = this.carried.length; at < bad; at++) if (bytes[at] === 0x0a) lines++;
      this.failedAt = this.offset - this.carried.length + bad;
      this.failedLine = this.newlines + lines + 1;
      return null;
    }
  }

  /** Byte offset (from 0) of the first byte that is not UTF-8; -1 until one is found. */
  failedAt = -1;
  /** The line (from 1) that byte is on. */
  failedLine = -1;
}

/** Length of the character a lead byte starts, or 0 for a byte no character starts with. */
function sequenceLength(byte: number): number {
  if (byte < 0x80) return 1;
  if (byte >= 0xc2 && byte <= 0xdf) return 2;
  if (byte >= 0xe0 && byte <= 0xef) return 3;
  if (byte >= 0xf0 && byte <= 0xf4) return 4;
  return 0;
}

/** The bytes at the end of the stream so far that start a character not finished yet. */
function incompleteTail(chunk: Uint8Array, before: Uint8Array): Uint8Array {
  const last = new Uint8Array([...before, ...chunk.subarray(Math.max(0, chunk.length - 3))]).slice(
    -3,
  );
  for (let back = 1; back <= last.length; back++) {
    const length = sequenceLength(last[last.length - back]!);
    if (length === 0) continue;
    return length > back ? last.slice(last.length - back) : new Uint8Array(0);
  }
  return new Uint8Array(0);
}

/**
 * Index of the first byte that does not begin a valid UTF-8 character (overlong forms and
 * surrogates included), or -1. A character cut off at the end is invalid only when `final`.
 */
export function firstInvalidUtf8(bytes: Uint8Array, final = true): number {
  for (let at = 0; at < bytes.length;) {
    const lead = bytes[at]!;
    const length = sequenceLength(lead);
    if (length === 0) return at;
    if (length === 1) {
      at++;
      continue;
    }
    if (at + length > bytes.length) {
      const available = bytes.length - at;
      for (let k = 1; k < available; k++) if (!continuationOk(lead, k, bytes[at + k]!)) return at;
      return final ? at : -1;
    }
    for (let k = 1; k < length; k++) if (!continuationOk(lead, k, bytes[at + k]!)) return at;
    at += length;
  }
  return -1;
}

function continuationOk(lead: number, position: number, byte: number): boolean {
  if (position === 1) {
    if (lead === 0xe0) return byte >= 0xa0 && byte <= 0xbf;
    if (lead === 0xed) return byte >= 0x80 && byte <= 0x9f;
    if (lead === 0xf0) return byte >= 0x90 && byte <= 0xbf;
    if (lead === 0xf4) return byte >= 0x80 && byte <= 0x8f;
  }
  return byte >= 0x80 && byte <= 0xbf;
}

export function notUtf8Message(byteOffset: number, line: number): string {
  return `The file is not UTF-8 text: its first bytes that are not UTF-8 are at byte ${byteOffset.toLocaleString("en-US")} (counting from 0), on line ${line.toLocaleString("en-US")}. Save it as UTF-8 (in Excel: CSV UTF-8) and choose it again.`;
}

export function formatBytes(bytes: number): string {
  if (bytes < 1024) return `${bytes} bytes`;
  if (bytes < 1024 * 1024) return `${(bytes / 1024).toFixed(0)} KB`;
  if (bytes < 1024 ** 3)
    return `${(bytes / 1024 / 1024).toFixed(bytes < 10 * 1024 * 1024 ? 1 : 0)} MB`;
  return `${(bytes / 1024 ** 3).toFixed(bytes < 10 * 1024 ** 3 ? 1 : 0)} GB`;
}
