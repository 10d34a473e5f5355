import { describe, expect, it } from "vitest";
import { inProcessTransport } from "@/lib/platform/in-process";
import type { SandboxApp } from "@/lib/sandbox";

/** A sandbox that answers at once, without I/O, as the embedded PGlite one does. */
const instantSandbox = { fetch: () => Response.json({ ok: true }) } as unknown as SandboxApp;

describe("inProcessTransport", () => {
  it("lets the server's other work run between calls that never touch I/O", async () => {
    const transport = inProcessTransport(() => instantSandbox);
    let callsWhenTimerFired: number | null = null;
    let calls = 0;
    setTimeout(() => (callsWhenTimerFired = calls), 0);
    for (; calls < 500; calls++) await transport("http://sandbox.internal/v3/users", {});
    expect(callsWhenTimerFired).not.toBeNull();
    expect(callsWhenTimerFired!).toBeLessThan(500);
  });

  it("gives up when the caller's signal fires, and passes the request through", async () => {
    const seen: Request[] = [];
    // The caller's timeout fires once the sandbox has the request (a 20 ms timer could fire
    // first on a busy machine, and the request would rightly never be passed on).
    const caller = new AbortController();
    const hanging = {
      fetch: (request: Request) => {
        seen.push(request);
        caller.abort(new DOMException("The operation was aborted due to timeout", "TimeoutError"));
        return new Promise<Response>(() => {});
      },
    } as unknown as SandboxApp;
    const transport = inProcessTransport(() => hanging);
    const request = transport("http://sandbox.internal/v3/users/u1", {
      method: "GET",
      signal: caller.signal,
    });
    await expect(request).rejects.toThrow(/timeout|aborted/i);
    expect(seen.map((r) => `${r.method} ${new URL(r.url).pathname}`)).toEqual(["GET /v3/users/u1"]);
  });
});
