import { describe, expect, it } from "vitest";
import { useStalledWebhookSandbox } from "./support/webhook-stall";

/**
 * Delivery when the server is killed mid-delivery and restarts slowly, stalling as it goes on
 * (issue 27, item 2). `sandbox-webhook-stall` is its companion: stalls without a kill.
 */
describe("webhook delivery across a kill and a slow restart", () => {
  const { hooks, playRooms, stall, settled, expectTruthfulLog } = useStalledWebhookSandbox();

  it("bounds every event to 3 attempts across a kill and a slow restart", async () => {
    await hooks.subscribe(["*"]);
    hooks.receiver.setBehaviour({ mode: "answer", status: 200, delayMs: 30 });
    const events = await playRooms("kill");
    await hooks.receiver.waitFor(60, 60_000);
    const killedAt = Date.now();
    await hooks.sandbox.restart({ kill: true });
    // The restarted server stalls as it delivers what the dead one left, and again later.
    for (let stalls = 0; stalls < 2; stalls += 1) {
      await hooks.receiver.waitFor(hooks.receiver.received.length + 20, 60_000);
      await stall();
    }
    const deliveries = await settled(events);
    expect(deliveries).toHaveLength(events);
    const attempts = deliveries.flatMap((d) => d.attempts);
    // Only the attempts under way at the kill were interrupted, none while a server ran.
    for (const attempt of attempts.filter((a) => a.outcome === "interrupted"))
      expect(attempt.at).toBeLessThanOrEqual(killedAt);
    expectTruthfulLog(deliveries);
    expect(deliveries.every((d) => d.outcome === "delivered")).toBe(true);
  }, 300_000);
});
