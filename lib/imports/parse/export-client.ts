import {
  exportProgressSchema,
  exportReadResultSchema,
  type ExportProgress,
  type ExportReadResult,
  type ExportWorkerInbound,
  type ExportWorkerOutbound,
} from "./export-protocol";

/**
 * The page's side of the export worker: `read` resolves with the summary and samples (checked
 * against their schemas, as anything crossing from the worker), `cancel` stops it.
 */
export class ExportReaderClient {
  private readonly worker: Worker;
  private nextId = 1;
  private readonly pending = new Map<
    number,
    {
      resolve: (value: ExportReadResult) => void;
      reject: (error: Error) => void;
      onProgress: (progress: ExportProgress) => void;
    }
  >();

  constructor() {
    this.worker = new Worker(new URL("./export-worker.ts", import.meta.url), {
      type: "module",
      name: "export-reader",
    });
    this.worker.addEventListener("message", (event: MessageEvent<ExportWorkerOutbound>) => {
      const message = event.data;
      const waiting = this.pending.get(message.id);
      if (!waiting) return;
      if (message.kind === "progress") {
        waiting.onProgress(exportProgressSchema.parse(message.progress));
        return;
      }
      this.pending.delete(message.id);
      if (message.ok) waiting.resolve(exportReadResultSchema.parse(message.result));
      else waiting.reject(new Error(message.message));
    });
    this.worker.addEventListener("error", () => {
      for (const waiting of this.pending.values())
        waiting.reject(
          new Error("Reading the export stopped unexpectedly. Reload the page and drop it again."),
        );
      this.pending.clear();
    });
  }

  read(files: File[], onProgress: (progress: ExportProgress) => void): Promise<ExportReadResult> {
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      this.pending.set(id, { resolve, reject, onProgress });
      this.worker.postMessage({
        id,
        request: { type: "read", files },
      } satisfies ExportWorkerInbound);
    });
  }

  cancel(): void {
    this.worker.postMessage({ id: 0, request: { type: "cancel" } } satisfies ExportWorkerInbound);
  }

  terminate(): void {
    this.worker.terminate();
    this.pending.clear();
  }
}
