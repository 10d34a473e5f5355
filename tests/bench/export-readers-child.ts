/**
 * One measured reading of an export, in a process of its own so its peak heap is its own:
 * BENCH_EXPORT (the file), BENCH_MODE:
 * - "inflate": every ZIP entry decompressed, nothing else (the floor for a ZIP);
 * - "parse": every ZIP entry decompressed, decoded and JSON.parse'd whole (no records);
 * - "read": the export's reader, every record counted into the community summary;
 * - "parse-whole": a single JSON file read into one string and JSON.parse'd (Discord's naive way).
 * Prints one JSON line: seconds, peak heap and RSS (sampled every 20 ms), and counts.
 */
import fs from "node:fs";
import path from "node:path";
import { CommunitySummarizer, readExport, type ExportFile } from "@/lib/imports/sources";
import { entryChunks, readZipDirectory } from "@/lib/imports/sources/zip";

const file = process.env.BENCH_EXPORT!;
const mode = process.env.BENCH_MODE!;
const blob = await fs.openAsBlob(file);
const exportFile: ExportFile = {
  name: path.basename(file),
  size: blob.size,
  slice: (start, end) => blob.slice(start, end),
};

let peakHeap = 0;
let peakRss = 0;
const sample = () => {
  const usage = process.memoryUsage();
  peakHeap = Math.max(peakHeap, usage.heapUsed);
  peakRss = Math.max(peakRss, usage.rss);
};
const timer = setInterval(sample, 20);

const started = performance.now();
const counts: Record<string, number> = {};
if (mode === "inflate" || mode === "parse") {
  let bytes = 0;
  let items = 0;
  for (const entry of await readZipDirectory(exportFile)) {
    const decoder = new TextDecoder();
    let text = "";
    for await (const chunk of entryChunks(exportFile, entry)) {
      bytes += chunk.length;
      if (mode === "parse") text += decoder.decode(chunk, { stream: true });
    }
    if (mode === "parse") items += (JSON.parse(text + decoder.decode()) as unknown[]).length;
  }
  Object.assign(counts, { uncompressedBytes: bytes, items });
} else if (mode === "read") {
  const summarizer = new CommunitySummarizer();
  for await (const record of readExport([exportFile])) summarizer.add(record);
  const summary = summarizer.result();
  Object.assign(counts, {
    people: summary.people.total,
    channels: Object.values(summary.conversations).reduce(
      (sum, kind) => sum + kind.conversations,
      0,
    ),
    messages: summary.messages.total,
    replies: summary.messages.replies,
    withReactions: summary.reactions.messages,
    problems: summary.problems.total,
  });
} else if (mode === "parse-whole") {
  const document = JSON.parse(await blob.text()) as { messages: unknown[] };
  counts.messages = document.messages.length;
}
const seconds = (performance.now() - started) / 1000;
sample();
clearInterval(timer);
console.log(
  JSON.stringify({
    seconds,
    peakHeapMb: peakHeap / 2 ** 20,
    peakRssMb: peakRss / 2 ** 20,
    ...counts,
  }),
);
