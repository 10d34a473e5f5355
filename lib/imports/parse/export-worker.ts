/// <reference lib="webworker" />
import { ExportProblem } from "../sources";
import type { ExportRequest, ExportWorkerInbound, ExportWorkerOutbound } from "./export-protocol";
import { readDroppedExport } from "./export-reading";

/**
 * The export worker: reads a dropped Slack, Discord or Mattermost export off the main thread
 * (export-reading.ts) and posts progress and the summary back. One export is read at a time,
 * in the order asked; "cancel" stops the one under way at once.
 */

const scope = self as unknown as DedicatedWorkerGlobalScope;
let queue: Promise<void> = Promise.resolve();
let reading: AbortController | null = null;

function post(message: ExportWorkerOutbound): void {
  scope.postMessage(message);
}

async function handle(id: number, request: Extract<ExportRequest, { type: "read" }>) {
  const controller = new AbortController();
  reading = controller;
  try {
    return await readDroppedExport(request.files, {
      signal: controller.signal,
      onProgress: (progress) => post({ kind: "progress", id, progress }),
    });
  } finally {
    if (reading === controller) reading = null;
  }
}

scope.addEventListener("message", (event: MessageEvent<ExportWorkerInbound>) => {
  const { id, request } = event.data;
  if (request.type === "cancel") {
    reading?.abort();
    return;
  }
  queue = queue.then(async () => {
    try {
      post({ kind: "result", id, ok: true, result: await handle(id, request) });
    } catch (error) {
      if (!(error instanceof ExportProblem)) console.error("[export reader]", error);
      const message =
        error instanceof ExportProblem
          ? error.message
          : "The export could not be read: an unexpected error occurred. Try again, or try the export again after downloading it anew.";
      post({ kind: "result", id, ok: false, message });
    }
  });
});
