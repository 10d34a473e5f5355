import type { ExportChoices } from "../export-flow";
import { exportForecastSchema, type ExportForecast } from "../export-flow/forecast";
import {
  exportProgressSchema,
  exportReadResultSchema,
  rowsBatchSchema,
  type ExportProgress,
  type ExportReadResult,
  type ExportRequest,
  type ExportWorkerInbound,
  type ExportWorkerOutbound,
  type RowsBatch,
} from "./export-protocol";

/**
 * The page's side of the export worker: `read` resolves with the summary and samples,
 * `forecast` with what the choices make of the export, `rows` with the imports' next chunk
 * (each checked against its schema, as anything crossing from the worker); `cancel` stops the
 * reading under way.
 */
export class ExportReaderClient {
  private readonly worker: Worker;
  private nextId = 1;
  private readonly pending = new Map<
    number,
    {
      resolve: (value: unknown) => void;
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
      if (message.ok) waiting.resolve(message.result);
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

  private request(
    request: Exclude<ExportRequest, { type: "cancel" }>,
    onProgress: (progress: ExportProgress) => void = () => {},
  ): Promise<unknown> {
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      this.pending.set(id, { resolve, reject, onProgress });
      this.worker.postMessage({ id, request } satisfies ExportWorkerInbound);
    });
  }

  async read(
    files: File[],
    onProgress: (progress: ExportProgress) => void,
  ): Promise<ExportReadResult> {
    return exportReadResultSchema.parse(await this.request({ type: "read", files }, onProgress));
  }

  async forecast(choices: ExportChoices): Promise<ExportForecast> {
    return exportForecastSchema.parse(await this.request({ type: "forecast", choices }));
  }

  async rows(
    choices: ExportChoices,
    options: { restart: boolean; maxRows: number; maxBytes: number },
  ): Promise<RowsBatch> {
    return rowsBatchSchema.parse(await this.request({ type: "rows", choices, ...options }));
  }

  cancel(): void {
    this.worker.postMessage({ id: 0, request: { type: "cancel" } } satisfies ExportWorkerInbound);
  }

  terminate(): void {
    this.worker.terminate();
    this.pending.clear();
  }
}
