import { deflateSync, strToU8, zipSync } from "fflate";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { ExportProblem } from "@/lib/imports/sources";
import { entryChunks, readZipDirectory, ZipEntryError } from "@/lib/imports/sources/zip";

const file = (bytes: Uint8Array, name = "export.zip") =>
  new File([bytes as Uint8Array<ArrayBuffer>], name);

async function unpack(bytes: Uint8Array): Promise<Record<string, string>> {
  const archive = file(bytes);
  const out: Record<string, string> = {};
  for (const entry of await readZipDirectory(archive)) {
    const decoder = new TextDecoder();
    let text = "";
    for await (const chunk of entryChunks(archive, entry))
      text += decoder.decode(chunk, { stream: true });
    out[entry.name] = text;
  }
  return out;
}

function crc32(bytes: Uint8Array): number {
  let crc = 0xffffffff;
  for (const byte of bytes) {
    crc ^= byte;
    for (let bit = 0; bit < 8; bit++) crc = crc & 1 ? 0xedb88320 ^ (crc >>> 1) : crc >>> 1;
  }
  return (crc ^ 0xffffffff) >>> 0;
}

/**
 * A ZIP64 archive of one deflated entry, written field by field from the specification
 * (APPNOTE 4.3.9, 4.3.14-16, 4.5.3): sizes and offset in the zip64 extra field, the counts
 * in the zip64 end record. `claimedSize` may lie about the uncompressed size.
 */
function zip64Archive(name: string, text: string, claimedSize?: number): Uint8Array {
  const data = strToU8(text);
  const compressed = deflateSync(data);
  const nameBytes = strToU8(name);
  const parts: number[] = [];
  /** Little-endian fields: [bytes, value]. */
  const write = (...fields: Array<[2 | 4 | 8, number]>) => {
    for (const [width, value] of fields)
      for (let byte = 0; byte < width; byte++)
        parts.push(Math.floor(value / 2 ** (8 * byte)) & 0xff);
  };
  const size = claimedSize ?? data.length;
  const crc = crc32(data);
  // Local header, with its zip64 extra field (id 1: sizes).
  write([4, 0x04034b50], [2, 45], [2, 0], [2, 8], [2, 0], [2, 0], [4, crc]);
  write([4, 0xffffffff], [4, 0xffffffff], [2, nameBytes.length], [2, 20]);
  parts.push(...nameBytes);
  write([2, 1], [2, 16], [8, size], [8, compressed.length]);
  parts.push(...compressed);
  // Central directory: sizes and the local header's offset in its zip64 extra field.
  const central = parts.length;
  write([4, 0x02014b50], [2, 45], [2, 45], [2, 0], [2, 8], [2, 0], [2, 0], [4, crc]);
  write([4, 0xffffffff], [4, 0xffffffff], [2, nameBytes.length], [2, 28], [2, 0], [2, 0]);
  write([2, 0], [4, 0], [4, 0xffffffff]);
  parts.push(...nameBytes);
  write([2, 1], [2, 24], [8, size], [8, compressed.length], [8, 0]);
  const centralSize = parts.length - central;
  // Zip64 end of central directory, its locator, and the classic end record.
  const zip64End = parts.length;
  write([4, 0x06064b50], [8, 44], [2, 45], [2, 45], [4, 0], [4, 0]);
  write([8, 1], [8, 1], [8, centralSize], [8, central]);
  write([4, 0x07064b50], [4, 0], [8, zip64End], [4, 1]);
  write([4, 0x06054b50], [2, 0], [2, 0], [2, 0xffff], [2, 0xffff]);
  write([4, 0xffffffff], [4, 0xffffffff], [2, 0]);
  return new Uint8Array(parts);
}

describe("the ZIP reader", () => {
  it("reads back what fflate zipped, stored or deflated, whatever the contents", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.dictionary(
          fc.stringMatching(/^[a-z0-9_-]{1,12}(\/[a-z0-9_-]{1,12})?\.json$/),
          fc.string({ unit: "grapheme" }),
        ),
        fc.constantFrom(0, 6),
        async (files, level) => {
          const zipped = zipSync(
            Object.fromEntries(Object.entries(files).map(([name, text]) => [name, strToU8(text)])),
            { level: level as 0 | 6 },
          );
          expect(await unpack(zipped)).toEqual(files);
        },
      ),
      { numRuns: 60 },
    );
  });

  it("streams a large entry in pieces rather than in one", async () => {
    const text = JSON.stringify(
      Array.from({ length: 60_000 }, (_, at) => ({ ts: `${at}.000100`, text: `message ${at}` })),
    );
    const archive = file(zipSync({ "general/2024-01-01.json": strToU8(text) }));
    const [entry] = await readZipDirectory(archive);
    const sizes: number[] = [];
    for await (const chunk of entryChunks(archive, entry!)) sizes.push(chunk.length);
    const total = strToU8(text).length;
    expect(sizes.reduce((sum, size) => sum + size, 0)).toBe(total);
    expect(Math.max(...sizes)).toBeLessThan(total / 2);
  });

  it("reads a ZIP64 archive", async () => {
    expect(await unpack(zip64Archive("users.json", '[{"id":"U1"}]'))).toEqual({
      "users.json": '[{"id":"U1"}]',
    });
  });

  it("refuses an archive cut short, and names it", async () => {
    const zipped = zipSync({ "users.json": strToU8("[]"), "channels.json": strToU8("[]") });
    const cut = file(zipped.subarray(0, zipped.length - 30), "Acme export.zip");
    await expect(readZipDirectory(cut)).rejects.toThrow(ExportProblem);
    await expect(readZipDirectory(cut)).rejects.toThrow(
      "Acme export.zip is a damaged or incomplete ZIP archive: its table of contents (at the end of the file) is missing. Download the export again",
    );
  });

  it("names an entry whose data is damaged, whose checksum does not match, or which says more than it holds", async () => {
    const text = JSON.stringify(Array.from({ length: 2000 }, (_, at) => ({ ts: `${at}.000100` })));
    const zipped = zipSync({ "general/2024-01-01.json": strToU8(text) }, { level: 6 });
    const read = async (bytes: Uint8Array) => {
      const archive = file(bytes);
      const [entry] = await readZipDirectory(archive);
      for await (const _ of entryChunks(archive, entry!));
    };
    const damaged = zipped.slice();
    for (let at = 200; at < 260; at++) damaged[at] = damaged[at]! ^ 0x5a;
    await expect(read(damaged)).rejects.toThrow(ZipEntryError);

    const stored = zipSync({ "users.json": strToU8('[{"id":"U1"}]') }, { level: 0 });
    const flipped = stored.slice();
    const letter = 30 + "users.json".length + 3;
    flipped[letter] = flipped[letter]! ^ 0x01; // one letter of the text
    await expect(read(flipped)).rejects.toThrow("its checksum does not match");

    await expect(read(zip64Archive("users.json", "[]", 10))).rejects.toThrow(
      "holds less data than",
    );
  });
});
