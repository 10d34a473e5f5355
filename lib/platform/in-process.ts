import type { FetchLike } from "./client";

/** Anything that answers a Request the way a server would (a Hono app, for one). */
export type RequestHandler = { fetch: (request: Request) => Response | Promise<Response> };

/**
 * Calls a handler in this process as a network peer would be called. Each call first
 * yields to the event loop: the embedded PGlite answers without any I/O, so a loop of calls
 * (a plan, a rehearsal, a run) would otherwise keep the server from answering anything else
 * until it ended. Gives up when the caller's signal (the timeout) fires.
 */
export function inProcessTransport(handler: () => RequestHandler): FetchLike {
  return (input, init) =>
    new Promise<Response>((resolve, reject) => {
      const signal = init.signal;
      if (signal?.aborted) return reject(signal.reason);
      signal?.addEventListener("abort", () => reject(signal.reason), { once: true });
      setImmediate(() => {
        Promise.resolve(handler().fetch(new Request(input, init))).then(resolve, reject);
      });
    });
}
