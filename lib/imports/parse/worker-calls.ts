/**
 * The page's side of a worker that answers numbered requests: `{ id, request }` in,
 * `{ kind: "result", id, ok, result | message }` out, and `{ kind: "progress", progress }`
 * between, for the request of its `id` or, without one, for whoever listens to all. Shared by
 * the preview's and the export's workers; each checks what comes back against its own schema.
 */
export type WorkerAnswer<Progress> =
  | { kind: "result"; id: number; ok: true; result: unknown }
  | { kind: "result"; id: number; ok: false; message: string }
  | { kind: "progress"; id?: number; progress: Progress };

type Waiting<Progress> = {
  resolve: (value: unknown) => void;
  reject: (error: Error) => void;
  onProgress?: (progress: Progress) => void;
};

export class WorkerCalls<Progress> {
  private nextId = 1;
  private readonly pending = new Map<number, Waiting<Progress>>();

  /**
   * `stoppedMessage`: what a request still waiting is rejected with when the worker dies, in
   * words for the administrator. `onAnyProgress` hears the progress that names no request.
   */
  constructor(
    readonly worker: Worker,
    stoppedMessage: string,
    onAnyProgress: (progress: Progress) => void = () => {},
  ) {
    worker.addEventListener("message", (event: MessageEvent<WorkerAnswer<Progress>>) => {
      const message = event.data;
      if (message.kind === "progress" && message.id === undefined) {
        onAnyProgress(message.progress);
        return;
      }
      const waiting = this.pending.get(message.id!);
      if (!waiting) return;
      if (message.kind === "progress") {
        waiting.onProgress?.(message.progress);
        return;
      }
      this.pending.delete(message.id);
      if (message.ok) waiting.resolve(message.result);
      else waiting.reject(new Error(message.message));
    });
    worker.addEventListener("error", () => {
      for (const waiting of this.pending.values()) waiting.reject(new Error(stoppedMessage));
      this.pending.clear();
    });
  }

  /** Posts `{ id, request }` and resolves with the worker's result for that id. */
  call(request: unknown, onProgress?: (progress: Progress) => void): Promise<unknown> {
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      this.pending.set(id, { resolve, reject, onProgress });
      this.worker.postMessage({ id, request });
    });
  }

  terminate(): void {
    this.worker.terminate();
    this.pending.clear();
  }
}
