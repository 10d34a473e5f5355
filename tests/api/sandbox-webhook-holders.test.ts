import { describe, expect, it } from "vitest";
import { waitFor } from "../support/wait";
import { call } from "./support/http";
import { useWebhookSandbox } from "./support/webhook-sandbox";

type Delivery = {
  category: string;
  status: string;
  attempts: Array<{ attempt: number; outcome: string }>;
};

/**
 * The worker that stores an event holds it in memory and sends it from there; the outbox
 * only hands it to another worker when this one is gone. These check what survives that.
 */
describe("sandbox webhook delivery from memory: crash, stop, retry", () => {
  const hooks = useWebhookSandbox({ SANDBOX_WEBHOOK_TIMEOUT_MS: "300" });

  async function playRoom(): Promise<{ roomId: string; categories: string[] }> {
    const played = await call<{ room_id: string; events: Array<{ category: string }> }>(
      hooks.sandbox,
      "POST",
      "/v1/sandbox/rooms",
      { created_by: "host", invitee_ids: ["ada", "grace"] },
    );
    expect(played.status).toBe(200);
    return { roomId: played.body.room_id, categories: played.body.events.map((e) => e.category) };
  }

  async function deliveriesOfRoom(roomId: string, count: number): Promise<Delivery[]> {
    const { body } = await waitFor(
      () =>
        call<{ deliveries: Delivery[] }>(
          hooks.sandbox,
          "GET",
          `/v1/sandbox/deliveries?search=${roomId}&limit=100`,
        ),
      ({ body }) =>
        body.deliveries.length === count &&
        body.deliveries.every((delivery) => delivery.status === "delivered"),
      {
        deadline: Date.now() + 30_000,
        intervalMs: 250,
        failure: `the room's ${count} events were never all delivered`,
      },
    );
    return body.deliveries;
  }

  it("delivers every event a killed process held, in the room's order, the next time", async () => {
    await hooks.subscribe(["*"]);
    hooks.receiver.setBehaviour({ mode: "hang" });
    const room = await playRoom();
    // The first event is in flight, the rest wait behind it in the dead process's memory.
    await hooks.receiver.waitFor(1);
    await hooks.sandbox.restart({ kill: true });
    hooks.receiver.received.length = 0;
    hooks.receiver.setBehaviour({ mode: "answer", status: 200 });

    const deliveries = await deliveriesOfRoom(room.roomId, room.categories.length);
    await hooks.receiver.waitFor(room.categories.length);
    expect(hooks.receiver.received.map((r) => r.body.category)).toEqual(room.categories);
    for (const delivery of deliveries) {
      // The dead process may have been sending any event it held: one attempt is interrupted.
      expect(delivery.attempts.map((a) => a.outcome)).toEqual(["interrupted", "delivered"]);
    }
  });

  it("hands back what a stopping process held, without inventing attempts", async () => {
    await hooks.subscribe(["*"]);
    hooks.receiver.setBehaviour({ mode: "hang" });
    const room = await playRoom();
    await hooks.receiver.waitFor(1);
    // SIGTERM: the attempt under way runs to its timeout and is recorded; the rest go back.
    await hooks.sandbox.restart();
    hooks.receiver.received.length = 0;
    hooks.receiver.setBehaviour({ mode: "answer", status: 200 });

    const deliveries = await deliveriesOfRoom(room.roomId, room.categories.length);
    await hooks.receiver.waitFor(room.categories.length);
    expect(hooks.receiver.received.map((r) => r.body.category)).toEqual(room.categories);
    const first = deliveries.find((delivery) => delivery.category === "room:create")!;
    expect(first.attempts.map((a) => a.outcome)).toEqual(["no_response", "delivered"]);
    for (const delivery of deliveries.filter((d) => d !== first))
      expect(delivery.attempts.map((a) => a.outcome)).toEqual(["delivered"]);
  });

  it("keeps a call's order across a retry: accept and end wait for dial", async () => {
    await hooks.subscribe(["*"]);
    hooks.receiver.setBehaviour({ mode: "hang" });
    await call(hooks.sandbox, "POST", "/v1/sandbox/direct_calls", {
      caller_id: "ada",
      callee_id: "grace",
    });
    await hooks.receiver.waitFor(1);
    hooks.receiver.setBehaviour({ mode: "answer", status: 200 });
    // Dial's first attempt times out; its retry comes a second later, and only then the rest.
    const received = await hooks.receiver.waitFor(4, 20_000);
    expect(received.map((r) => r.body.category)).toEqual([
      "direct_call:dial",
      "direct_call:dial",
      "direct_call:accept",
      "direct_call:end",
    ]);
  });
});
