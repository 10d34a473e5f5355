import { Inflate } from "fflate";
import { ExportProblem, type ExportFile } from "./types";

/**
 * A ZIP archive read in place from a File (or any Blob): its table of contents (the central
 * directory, at the end of the archive) is read first, then each entry is streamed on demand,
 * slice by slice, through fflate's streaming inflater. The archive is never held in memory,
 * and the entries can be read in any order: a Slack export's users.json may sit after its
 * day files, and the readers need it first. (fflate's `Unzip` walks the local headers in the
 * archive's order and would have to hold every day file until users.json turned up.)
 *
 * ZIP64 archives (over 4 GiB or 65,535 entries) are read too. Each entry's CRC-32 is checked
 * as it streams, so a damaged entry is named rather than read as wrong text.
 */

export type ZipEntry = {
  /** The path inside the archive, as written ("general/2024-01-02.json"). */
  name: string;
  compressedSize: number;
  size: number;
  method: number;
  crc: number;
  encrypted: boolean;
  /** Where the entry's local header starts. */
  offset: number;
};

const EOCD = 0x06054b50;
const ZIP64_LOCATOR = 0x07064b50;
const ZIP64_EOCD = 0x06064b50;
const CENTRAL = 0x02014b50;
const LOCAL = 0x04034b50;
const MAX_COMMENT = 0xffff;

/** Bytes read from the archive at a time, and fed to the inflater at a time (see `entryChunks`). */
const READ_BYTES = 1024 * 1024;
const INFLATE_BYTES = 64 * 1024;

export async function readBytes(file: ExportFile, start: number, end: number): Promise<Uint8Array> {
  return new Uint8Array(await file.slice(start, end).arrayBuffer());
}

const u16 = (bytes: Uint8Array, at: number) => bytes[at]! | (bytes[at + 1]! << 8);
const u32 = (bytes: Uint8Array, at: number) =>
  (bytes[at]! | (bytes[at + 1]! << 8) | (bytes[at + 2]! << 16) | (bytes[at + 3]! << 24)) >>> 0;
// Exact up to 2^53, far beyond any file a browser reads.
const u64 = (bytes: Uint8Array, at: number) => u32(bytes, at) + u32(bytes, at + 4) * 2 ** 32;

export function isZip(head: Uint8Array): boolean {
  // A local header, or the end record of an empty archive.
  return head.length >= 4 && (u32(head, 0) === LOCAL || u32(head, 0) === EOCD);
}

function corrupt(file: ExportFile, why: string): ExportProblem {
  return new ExportProblem(
    `${file.name} is a damaged or incomplete ZIP archive: ${why}. Download the export again (a download that stopped early leaves exactly this) and choose the new file.`,
  );
}

/** The archive's entries, in the order of its table of contents. Folders are left out. */
export async function readZipDirectory(file: ExportFile): Promise<ZipEntry[]> {
  const tailStart = Math.max(0, file.size - (22 + MAX_COMMENT + 20));
  const tail = await readBytes(file, tailStart, file.size);
  let end = -1;
  for (let at = tail.length - 22; at >= 0; at--) {
    if (u32(tail, at) === EOCD && at + 22 + u16(tail, at + 20) <= tail.length) {
      end = at;
      break;
    }
  }
  if (end < 0) throw corrupt(file, "its table of contents (at the end of the file) is missing");
  let count = u16(tail, end + 10);
  let directorySize = u32(tail, end + 12);
  let directoryOffset = u32(tail, end + 16);
  if (count === 0xffff || directorySize === 0xffffffff || directoryOffset === 0xffffffff) {
    const locator = end - 20;
    if (locator < 0 || u32(tail, locator) !== ZIP64_LOCATOR)
      throw corrupt(file, "its ZIP64 table of contents cannot be found");
    const zip64At = u64(tail, locator + 8);
    const zip64 = await readBytes(file, zip64At, zip64At + 56);
    if (zip64.length < 56 || u32(zip64, 0) !== ZIP64_EOCD)
      throw corrupt(file, "its ZIP64 table of contents cannot be found");
    count = u64(zip64, 32);
    directorySize = u64(zip64, 40);
    directoryOffset = u64(zip64, 48);
  }
  if (directoryOffset + directorySize > file.size)
    throw corrupt(file, "its table of contents points past the end of the file");

  const entries: ZipEntry[] = [];
  const names = new TextDecoder();
  let carry = new Uint8Array(0);
  for (let start = directoryOffset; start < directoryOffset + directorySize;) {
    const stop = Math.min(directoryOffset + directorySize, start + 4 * READ_BYTES);
    const read = await readBytes(file, start, stop);
    start = stop;
    const bytes = carry.length === 0 ? read : concat(carry, read);
    let at = 0;
    while (at + 46 <= bytes.length) {
      if (u32(bytes, at) !== CENTRAL)
        throw corrupt(file, `entry ${entries.length + 1} of its table of contents is unreadable`);
      const nameLength = u16(bytes, at + 28);
      const extraLength = u16(bytes, at + 30);
      const commentLength = u16(bytes, at + 32);
      const length = 46 + nameLength + extraLength + commentLength;
      if (at + length > bytes.length) break;
      const name = names.decode(bytes.subarray(at + 46, at + 46 + nameLength));
      let compressedSize = u32(bytes, at + 20);
      let size = u32(bytes, at + 24);
      let offset = u32(bytes, at + 42);
      // ZIP64: the fields that do not fit are 0xFFFFFFFF here and 8 bytes each, in this order, in extra field 1.
      if (size === 0xffffffff || compressedSize === 0xffffffff || offset === 0xffffffff) {
        const extraEnd = at + 46 + nameLength + extraLength;
        for (let field = at + 46 + nameLength; field + 4 <= extraEnd;) {
          const id = u16(bytes, field);
          const fieldLength = u16(bytes, field + 2);
          if (id === 1) {
            let value = field + 4;
            if (size === 0xffffffff) {
              size = u64(bytes, value);
              value += 8;
            }
            if (compressedSize === 0xffffffff) {
              compressedSize = u64(bytes, value);
              value += 8;
            }
            if (offset === 0xffffffff) offset = u64(bytes, value);
            break;
          }
          field += 4 + fieldLength;
        }
      }
      if (!name.endsWith("/"))
        entries.push({
          name,
          compressedSize,
          size,
          method: u16(bytes, at + 10),
          crc: u32(bytes, at + 16),
          encrypted: (u16(bytes, at + 8) & 1) === 1,
          offset,
        });
      at += length;
      if (entries.length > count) break;
    }
    carry = bytes.slice(at);
  }
  if (carry.length > 0) throw corrupt(file, "its table of contents ends in the middle of an entry");
  return entries;
}

function concat(first: Uint8Array, second: Uint8Array): Uint8Array {
  const joined = new Uint8Array(first.length + second.length);
  joined.set(first);
  joined.set(second, first.length);
  return joined;
}

/** Why one entry cannot be read; the rest of the archive may still be fine. */
export class ZipEntryError extends Error {}

/**
 * The entry's bytes, decompressed, in chunks of at most about 64 KiB of input each (a highly
 * compressed chunk still expands to at most a few MB). Throws ZipEntryError when the entry is
 * encrypted, uses a compression method other than stored or deflate, or is damaged.
 */
export async function* entryChunks(
  file: ExportFile,
  entry: ZipEntry,
  onRead?: (compressedBytes: number) => void,
): AsyncGenerator<Uint8Array> {
  if (entry.encrypted) throw new ZipEntryError("it is encrypted (password-protected)");
  if (entry.method !== 0 && entry.method !== 8)
    throw new ZipEntryError(
      `it is compressed with a method the console cannot read (ZIP method ${entry.method}); create the ZIP again with ordinary (deflate) compression`,
    );
  const local = await readBytes(file, entry.offset, entry.offset + 30);
  if (local.length < 30 || u32(local, 0) !== LOCAL)
    throw new ZipEntryError("its header is damaged");
  const dataStart = entry.offset + 30 + u16(local, 26) + u16(local, 28);
  const dataEnd = dataStart + entry.compressedSize;
  if (dataEnd > file.size) throw new ZipEntryError("it is cut short (the archive ends inside it)");

  const pending: Uint8Array[] = [];
  let produced = 0;
  let crc = 0xffffffff;
  const take = (chunk: Uint8Array) => {
    produced += chunk.length;
    if (produced > entry.size)
      throw new ZipEntryError("it holds more data than the archive's table of contents says");
    crc = crc32Update(crc, chunk);
    pending.push(chunk);
  };
  const inflater = entry.method === 8 ? new Inflate((chunk) => take(chunk)) : null;
  // A small first read: telling formats apart needs only an entry's first bytes.
  let readSize = INFLATE_BYTES;
  for (let start = dataStart; start < dataEnd; readSize = READ_BYTES) {
    const stop = Math.min(dataEnd, start + readSize);
    const read = await readBytes(file, start, stop);
    start = stop;
    onRead?.(read.length);
    for (let at = 0; at < read.length; at += INFLATE_BYTES) {
      const piece = read.subarray(at, Math.min(read.length, at + INFLATE_BYTES));
      const last = start === dataEnd && at + INFLATE_BYTES >= read.length;
      if (inflater) {
        try {
          inflater.push(piece, last);
        } catch (error) {
          if (error instanceof ZipEntryError) throw error;
          throw new ZipEntryError("its compressed data is damaged");
        }
      } else take(piece.slice());
      while (pending.length > 0) yield pending.shift()!;
    }
  }
  if (produced !== entry.size)
    throw new ZipEntryError("it holds less data than the archive's table of contents says");
  if ((crc ^ 0xffffffff) >>> 0 !== entry.crc)
    throw new ZipEntryError("its checksum does not match (the data is damaged)");
}

let crcTable: Uint32Array | null = null;

function crc32Update(crc: number, bytes: Uint8Array): number {
  if (!crcTable) {
    crcTable = new Uint32Array(256);
    for (let n = 0; n < 256; n++) {
      let c = n;
      for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
      crcTable[n] = c >>> 0;
    }
  }
  const table = crcTable;
  for (let at = 0; at < bytes.length; at++) crc = table[(crc ^ bytes[at]!) & 0xff]! ^ (crc >>> 8);
  return crc;
}
