import { describe, expect, it } from "vitest";
import { useStalledWebhookSandbox } from "./support/webhook-stall";

/**
 * Delivery when the server's event loop stalls for longer than an attempt may take (issue 27,
 * item 2). `sandbox-webhook-kill` is its companion: a kill and a slow restart.
 */
describe("webhook delivery across stalls", () => {
  const { hooks, playRooms, stall, settled, expectTruthfulLog } = useStalledWebhookSandbox();

  it("sends nothing again and calls nothing interrupted while the server stalls", async () => {
    await hooks.subscribe(["*"]);
    hooks.receiver.setBehaviour({ mode: "answer", status: 200, delayMs: 30 });
    const events = await playRooms("stall");
    await hooks.receiver.waitFor(40, 60_000);
    await stall();
    await hooks.receiver.waitFor(Math.min(events, hooks.receiver.received.length + 40), 60_000);
    await stall();
    const deliveries = await settled(events);
    expect(deliveries).toHaveLength(events);
    // Every body is its event's own, so the receiver's counts are per event.
    expect(new Set(deliveries.map((d) => JSON.stringify(d.payload))).size).toBe(events);
    const interrupted = deliveries
      .flatMap((d) => d.attempts)
      .filter((a) => a.outcome === "interrupted");
    expect(interrupted).toEqual([]);
    expectTruthfulLog(deliveries);
    expect(deliveries.every((d) => d.outcome === "delivered")).toBe(true);
  }, 300_000);
});
