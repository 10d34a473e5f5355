import http from "node:http";
import os from "node:os";
import type { AddressInfo } from "node:net";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { DeliveryRecord } from "@/lib/schemas/sandbox-events";
import { waitFor } from "../support/wait";
import { call } from "./support/http";
import { useWebhookSandbox } from "./support/webhook-sandbox";

/**
 * 0.0.0.0, :: and their spellings reach this machine: with private ranges allowed and loopback
 * not, they delivered to a listener on loopback (issue 27, item 3).
 */
describe("the address guard of a sandbox that allows private ranges but not loopback", () => {
  const hooks = useWebhookSandbox({
    WEBHOOK_ALLOW_PRIVATE: "true",
    WEBHOOK_ALLOW_LOOPBACK: "false",
    SANDBOX_WEBHOOK_TIMEOUT_MS: "1000",
    NODE_OPTIONS: `--import=${path.join(import.meta.dirname, "support/test-hosts.mjs")}`,
    TEST_HOSTS: "zero.test=0.0.0.0,unspecified.test=::",
  });
  // A listener on every local address, IPv4 and IPv6, that counts what reaches it.
  const reached: string[] = [];
  const listener = http.createServer((req, res) => {
    reached.push(`${req.headers.host} ${req.url}`);
    res.end("ok");
  });
  let port = 0;
  beforeAll(async () => {
    await new Promise<void>((resolve) => listener.listen({ port: 0, host: "::" }, resolve));
    port = (listener.address() as AddressInfo).port;
  });
  afterAll(() => new Promise<void>((resolve) => listener.close(() => resolve())));

  it.each([
    "0.0.0.0",
    "0",
    "0x0",
    "0.0.0.0.",
    "[::]",
    "[::ffff:0.0.0.0]",
    "[::ffff:0:0]",
    "zero.test",
    "unspecified.test",
  ])("refuses http://%s:PORT/ once, as final, and nothing reaches the listener", async (host) => {
    await hooks.subscribe(["room:create"], `http://${host}:${port}/hook`);
    const emitted = await call<{ event_id: string; delivered: boolean }>(
      hooks.sandbox,
      "POST",
      "/v1/sandbox/events",
      { category: "room:create" },
    );
    expect(emitted.body.delivered).toBe(true);
    const { body } = await waitFor(
      () =>
        call<{ deliveries: DeliveryRecord[] }>(
          hooks.sandbox,
          "GET",
          `/v1/sandbox/deliveries?event_id=${emitted.body.event_id}`,
        ),
      ({ body }) => body.deliveries[0]?.status === "failed",
      { deadline: Date.now() + 20_000, intervalMs: 200, failure: `${host} was not refused` },
    );
    const [delivery] = body.deliveries;
    expect(delivery!.outcome).toBe("refused");
    expect(delivery!.attempts).toEqual([
      expect.objectContaining({
        attempt: 1,
        status: null,
        outcome: "refused",
        error: expect.stringMatching(/^Refused to connect: .*is this machine, like a loopback/),
      }),
    ]);
    expect(reached).toEqual([]);
  });

  // The listener is on this machine, so one of its private addresses shows that the guard
  // still lets private ranges through (a machine with none has nothing to show).
  const local = privateAddressOfThisMachine();
  it.skipIf(!local)("still delivers to a private address of this machine", async () => {
    await hooks.subscribe(["room:create"], `http://${local}:${port}/hook`);
    await call(hooks.sandbox, "POST", "/v1/sandbox/events", { category: "room:create" });
    await waitFor(
      async () => reached.length,
      (n) => n > 0,
      {
        deadline: Date.now() + 20_000,
        intervalMs: 200,
        failure: "the private address got nothing",
      },
    );
  });
});

function privateAddressOfThisMachine(): string | undefined {
  for (const entries of Object.values(os.networkInterfaces())) {
    for (const entry of entries ?? []) {
      if (entry.internal) continue;
      if (entry.family === "IPv4" && /^(10|192\.168|172\.(1[6-9]|2\d|3[01]))\./.test(entry.address))
        return entry.address;
      if (entry.family === "IPv6" && /^f[cd]/i.test(entry.address)) return `[${entry.address}]`;
    }
  }
  return undefined;
}
