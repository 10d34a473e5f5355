import type { SandboxApp } from "@/lib/sandbox";
import type { FetchLike } from "./client";

/**
 * Calls a sandbox app in this process as a network peer would be called. Each call first
 * yields to the event loop: the embedded PGlite answers without any I/O, so a loop of calls
 * (a plan, a rehearsal, a run) would otherwise keep the server from answering anything else
 * until it ended. Gives up when the caller's signal (the timeout) fires.
 */
export function inProcessTransport(app: () => SandboxApp): FetchLike {
  return (input, init) =>
    new Promise<Response>((resolve, reject) => {
      const signal = init.signal;
      if (signal?.aborted) return reject(signal.reason);
      signal?.addEventListener("abort", () => reject(signal.reason), { once: true });
      setImmediate(() => {
        Promise.resolve(app().fetch(new Request(input, init))).then(resolve, reject);
      });
    });
}
