import { CommunitySummarizer, openExport, readOpenedExport, type ExportFile } from "../sources";
import { SAMPLE_RECORDS, type ExportProgress, type ExportReadResult } from "./export-protocol";

/**
 * What the export worker does with dropped files: tell the format, read every record once,
 * count it into the summary and keep the first few as samples; the records themselves are
 * let go as they pass. Plain code (no worker globals), so it runs in tests as in the worker.
 */

const PROGRESS_EVERY_MS = 50;
const SUMMARY_EVERY_MS = 1000;

export async function readDroppedExport(
  files: readonly ExportFile[],
  options: { onProgress: (progress: ExportProgress) => void; signal?: AbortSignal },
): Promise<ExportReadResult> {
  const summarizer = new CommunitySummarizer();
  let lastProgress = -Infinity;
  let lastSummary = performance.now();
  let phase: ExportProgress["phase"] = "opening";
  const report = (done: number, total: number) => {
    const now = performance.now();
    if (done < total && now - lastProgress < PROGRESS_EVERY_MS) return;
    lastProgress = now;
    const withSummary = phase === "reading" && now - lastSummary >= SUMMARY_EVERY_MS;
    if (withSummary) lastSummary = now;
    options.onProgress({ phase, done, total, summary: withSummary ? summarizer.result() : null });
  };
  const opened = await openExport(files, { onProgress: report, signal: options.signal });
  phase = "reading";
  const samples: ExportReadResult["samples"] = { people: [], channels: [], messages: [] };
  for await (const record of readOpenedExport(opened)) {
    summarizer.add(record);
    if (record.type === "person" && samples.people.length < SAMPLE_RECORDS)
      samples.people.push(record);
    if (record.type === "channel" && samples.channels.length < SAMPLE_RECORDS)
      samples.channels.push(record);
    if (record.type === "message" && samples.messages.length < SAMPLE_RECORDS)
      samples.messages.push(record);
  }
  return { format: opened.format, summary: summarizer.result(), samples };
}
