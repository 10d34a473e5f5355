import type { PreviewProgress, PreviewRequest, PreviewResults, WorkerInbound } from "./protocol";
import { WorkerCalls } from "./worker-calls";

/** The page's side of the preview worker: typed requests that resolve with the worker's answer. */
export class PreviewClient {
  private readonly calls: WorkerCalls<PreviewProgress>;

  constructor(onProgress: (progress: PreviewProgress) => void) {
    this.calls = new WorkerCalls(
      new Worker(new URL("./preview-worker.ts", import.meta.url), {
        type: "module",
        name: "import-preview",
      }),
      "The preview stopped unexpectedly. Reload the page and choose the file again.",
      onProgress,
    );
  }

  request<T extends PreviewRequest>(request: T): Promise<PreviewResults[T["type"]]> {
    return this.calls.call(request satisfies WorkerInbound["request"]) as Promise<
      PreviewResults[T["type"]]
    >;
  }

  terminate(): void {
    this.calls.terminate();
  }
}
