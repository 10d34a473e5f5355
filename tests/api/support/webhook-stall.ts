import { expect } from "vitest";
import type { DeliveryCounts, DeliveryRecord } from "@/lib/schemas/sandbox-events";
import { sleep, waitFor } from "../../support/wait";
import { call } from "./http";
import { useWebhookSandbox } from "./webhook-sandbox";

/**
 * A sandbox whose webhook deliveries are stalled and killed (issue 27, item 2), for the
 * surrounding describe block: `sandbox-webhook-stall` and `sandbox-webhook-kill` use one each,
 * so that the two tests, which spend most of their time waiting out stalls, run side by side.
 * A paused process (SIGSTOP) is what a stalled event loop looks like from outside: nothing
 * runs, sockets fill up.
 */
export function useStalledWebhookSandbox() {
  const timeoutMs = 2_000;
  const hooks = useWebhookSandbox({ SANDBOX_WEBHOOK_TIMEOUT_MS: String(timeoutMs) });
  // Longer than an attempt's wait and its record together: a lease of one attempt's length
  // ran out during it.
  const stallMs = timeoutMs + 7_000;
  const rooms = 8;
  const invitees = Array.from({ length: 20 }, (_, i) => `invitee-${i}`);

  /** Plays a room call per room; each sends its events. Returns how many events were sent. */
  async function playRooms(tag: string): Promise<number> {
    let events = 0;
    for (let room = 0; room < rooms; room += 1) {
      const played = await call<{ events: unknown[] }>(hooks.sandbox, "POST", "/v1/sandbox/rooms", {
        created_by: `${tag}-host-${room}`,
        invitee_ids: invitees,
      });
      expect(played.status).toBe(200);
      events += played.body.events.length;
    }
    return events;
  }

  async function stall() {
    hooks.sandbox.pause();
    await sleep(stallMs);
    hooks.sandbox.resume();
  }

  /** Every delivery once none is pending and `expected` are recorded, in the log's order. */
  async function settled(expected: number): Promise<DeliveryRecord[]> {
    await waitFor(
      () => call<{ counts: DeliveryCounts }>(hooks.sandbox, "GET", "/v1/sandbox/deliveries/counts"),
      ({ body }) =>
        body.counts !== undefined &&
        body.counts.pending === 0 &&
        Object.values(body.counts).reduce((sum, n) => sum + n, 0) === expected,
      {
        deadline: Date.now() + 240_000,
        intervalMs: 500,
        failure: (last) => `deliveries never finished: ${JSON.stringify(last.body)}`,
      },
    );
    const all: DeliveryRecord[] = [];
    let token = "";
    do {
      const page = await call<{ deliveries: DeliveryRecord[]; next: string }>(
        hooks.sandbox,
        "GET",
        `/v1/sandbox/deliveries?limit=100${token ? `&token=${token}` : ""}`,
      );
      all.push(...page.body.deliveries);
      token = page.body.next;
    } while (token);
    return all;
  }

  /** How many times the receiver got each body (a repeat is byte for byte the same). */
  function receivedCounts(): Map<string, number> {
    const counts = new Map<string, number>();
    for (const webhook of hooks.receiver.received)
      counts.set(webhook.raw, (counts.get(webhook.raw) ?? 0) + 1);
    return counts;
  }

  function expectTruthfulLog(deliveries: DeliveryRecord[]) {
    const received = receivedCounts();
    for (const delivery of deliveries) {
      const label = `${delivery.event_id} (${delivery.category})`;
      expect(delivery.attempts.length, label).toBeLessThanOrEqual(3);
      expect(
        delivery.attempts.map((attempt) => attempt.attempt),
        label,
      ).toEqual(delivery.attempts.map((_, i) => i + 1));
      const last = delivery.attempts.at(-1);
      if (delivery.outcome === "delivered") {
        expect(last, label).toMatchObject({ outcome: "delivered" });
        expect(last!.status! >= 200 && last!.status! < 300, label).toBe(true);
      }
      // An answered attempt reached the receiver; one without an answer may have (a timeout)
      // or not (no connection); an interrupted one may have.
      const times = received.get(JSON.stringify(delivery.payload)) ?? 0;
      const answered = delivery.attempts.filter((attempt) => attempt.status !== null);
      expect(times, label).toBeLessThanOrEqual(delivery.attempts.length);
      expect(times, label).toBeGreaterThanOrEqual(answered.length);
    }
  }

  return { hooks, playRooms, stall, settled, expectTruthfulLog };
}
