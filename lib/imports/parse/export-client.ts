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
  type RowsBatch,
} from "./export-protocol";
import { WorkerCalls } from "./worker-calls";

/**
 * The page's side of the export worker: `read` resolves with the summary and samples,
 * `forecast` with what the choices make of the export, `rows` with the imports' next chunk
 * (each checked against its schema, as anything crossing from the worker); `cancel` stops the
 * reading under way.
 */
export class ExportReaderClient {
  private readonly calls = new WorkerCalls<ExportProgress>(
    new Worker(new URL("./export-worker.ts", import.meta.url), {
      type: "module",
      name: "export-reader",
    }),
    "Reading the export stopped unexpectedly. Reload the page and drop it again.",
  );

  private request(
    request: Exclude<ExportRequest, { type: "cancel" }>,
    onProgress?: (progress: ExportProgress) => void,
  ): Promise<unknown> {
    return this.calls.call(request, (progress) =>
      onProgress?.(exportProgressSchema.parse(progress)),
    );
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
    this.calls.worker.postMessage({
      id: 0,
      request: { type: "cancel" },
    } satisfies ExportWorkerInbound);
  }

  terminate(): void {
    this.calls.terminate();
  }
}
