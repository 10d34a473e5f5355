/// <reference lib="webworker" />
import { ExportProblem } from "../sources";
import type { ExportRequest, ExportWorkerInbound, ExportWorkerOutbound } from "./export-protocol";
import { readDroppedExport } from "./export-reading";
import { ExportRowsReader, forecastDroppedExport } from "./export-rows";

/**
 * The export worker: reads a dropped Slack, Discord or Mattermost export off the main thread
 * (export-reading.ts) and posts progress and the summary back; then, for the same files, the
 * forecast with the administrator's choices and the imports' rows chunk by chunk
 * (export-rows.ts). One request is handled at a time, in the order asked; "cancel" stops the
 * reading under way at once.
 */

const scope = self as unknown as DedicatedWorkerGlobalScope;
let queue: Promise<void> = Promise.resolve();
let reading: AbortController | null = null;
/** The files last read: the forecast and the rows read them again. */
let dropped: File[] | null = null;
let rowsReader: ExportRowsReader | null = null;

function post(message: ExportWorkerOutbound): void {
  scope.postMessage(message);
}

function droppedFiles(): File[] {
  if (!dropped) throw new ExportProblem("Drop the export again: the page has no export read.");
  return dropped;
}

async function handle(id: number, request: Exclude<ExportRequest, { type: "cancel" }>) {
  const controller = new AbortController();
  if (request.type !== "rows" || request.restart) {
    reading?.abort();
    reading = controller;
  }
  switch (request.type) {
    case "read": {
      dropped = null;
      rowsReader = null;
      const result = await readDroppedExport(request.files, {
        signal: controller.signal,
        onProgress: (progress) => post({ kind: "progress", id, progress }),
      });
      dropped = request.files;
      return result;
    }
    case "forecast":
      return forecastDroppedExport(droppedFiles(), request.choices, controller.signal);
    case "rows": {
      if (request.restart || !rowsReader)
        rowsReader = new ExportRowsReader(droppedFiles(), request.choices, controller.signal);
      const batch = await rowsReader.take(request.maxRows, request.maxBytes);
      if (batch.batch === null) rowsReader = null;
      return batch;
    }
  }
}

scope.addEventListener("message", (event: MessageEvent<ExportWorkerInbound>) => {
  const { id, request } = event.data;
  if (request.type === "cancel") {
    reading?.abort();
    rowsReader = null;
    return;
  }
  queue = queue.then(async () => {
    try {
      post({ kind: "result", id, ok: true, result: await handle(id, request) });
    } catch (error) {
      if (request.type === "rows") rowsReader = null;
      // ReadCancelled is an ExportProblem: its message says the reading was cancelled.
      if (!(error instanceof ExportProblem)) console.error("[export reader]", error);
      const message =
        error instanceof ExportProblem
          ? error.message
          : "The export could not be read: an unexpected error occurred. Try again, or try the export again after downloading it anew.";
      post({ kind: "result", id, ok: false, message });
    }
  });
});
