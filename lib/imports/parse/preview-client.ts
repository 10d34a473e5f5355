import type {
  PreviewProgress,
  PreviewRequest,
  PreviewResults,
  WorkerInbound,
  WorkerOutbound,
} from "./protocol";

/** The page's side of the preview worker: typed requests that resolve with the worker's answer. */
export class PreviewClient {
  private readonly worker: Worker;
  private nextId = 1;
  private readonly pending = new Map<
    number,
    { resolve: (value: unknown) => void; reject: (error: Error) => void }
  >();

  constructor(private readonly onProgress: (progress: PreviewProgress) => void) {
    this.worker = new Worker(new URL("./preview-worker.ts", import.meta.url), {
      type: "module",
      name: "import-preview",
    });
    this.worker.addEventListener("message", (event: MessageEvent<WorkerOutbound>) => {
      const message = event.data;
      if (message.kind === "progress") {
        this.onProgress(message.progress);
        return;
      }
      const waiting = this.pending.get(message.id);
      if (!waiting) return;
      this.pending.delete(message.id);
      if (message.ok) waiting.resolve(message.result);
      else waiting.reject(new Error(message.message));
    });
    this.worker.addEventListener("error", () => {
      for (const waiting of this.pending.values())
        waiting.reject(
          new Error("The preview stopped unexpectedly. Reload the page and choose the file again."),
        );
      this.pending.clear();
    });
  }

  request<T extends PreviewRequest>(request: T): Promise<PreviewResults[T["type"]]> {
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      this.pending.set(id, { resolve: resolve as (value: unknown) => void, reject });
      this.worker.postMessage({ id, request } satisfies WorkerInbound);
    });
  }

  terminate(): void {
    this.worker.terminate();
    this.pending.clear();
  }
}
