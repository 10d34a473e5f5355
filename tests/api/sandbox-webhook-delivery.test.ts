import { describe, expect, it } from "vitest";
import { topLevelKeys } from "@/lib/schemas/webhook-payloads";
import { webhookCategories } from "@/lib/schemas/webhooks";
import { waitFor } from "../support/wait";
import { call, expectPlatformError } from "./support/http";
import { useWebhookSandbox } from "./support/webhook-sandbox";

type Delivery = {
  event_id: string;
  category: string;
  status: string;
  payload: Record<string, unknown>;
  attempts: Array<{
    attempt: number;
    status: number | null;
    error: string | null;
    latency_ms: number;
    response_excerpt: string | null;
  }>;
};

describe("sandbox webhook delivery", () => {
  const hooks = useWebhookSandbox({ SANDBOX_WEBHOOK_TIMEOUT_MS: "300" });

  async function deliveryOf(
    eventId: string,
    until: (delivery: Delivery) => boolean,
  ): Promise<Delivery> {
    const { body } = await waitFor(
      () =>
        call<{ deliveries: Delivery[] }>(
          hooks.sandbox,
          "GET",
          `/v1/sandbox/deliveries?event_id=${eventId}`,
        ),
      ({ body }) => body.deliveries[0] !== undefined && until(body.deliveries[0]),
      {
        deadline: Date.now() + 20_000,
        intervalMs: 200,
        failure: `delivery ${eventId} never reached the expected state`,
      },
    );
    return body.deliveries[0]!;
  }

  it("delivers a subscribed event as a JSON POST with exactly the section 6 keys", async () => {
    await hooks.subscribe(["direct_call:dial"]);
    const emitted = await call<{ event_id: string; delivered: boolean }>(
      hooks.sandbox,
      "POST",
      "/v1/sandbox/events",
      {
        category: "direct_call:dial",
        direct_call: { caller_id: "ada", callee_id: "grace" },
      },
    );
    expect(emitted.status).toBe(200);
    expect(emitted.body.delivered).toBe(true);
    const [webhook] = await hooks.receiver.waitFor(1);
    expect(webhook!.headers["content-type"]).toBe("application/json");
    // Section 6's keys, in section 6's order.
    expect(Object.keys(webhook!.body)).toEqual([
      "category",
      "occurred_at",
      "direct_call",
      "service_call",
      "application_id",
    ]);
    expect(webhook!.body).toMatchObject({
      category: "direct_call:dial",
      application_id: hooks.sandbox.appId,
      direct_call: { caller_id: "ada", callee_id: "grace", is_video: false, custom_items: {} },
      service_call: { cmd: "CALL", type: "dial" },
    });
    expect(String(webhook!.body.occurred_at)).toMatch(/^\d{13}$/);
    const delivery = await deliveryOf(emitted.body.event_id, (d) => d.status === "delivered");
    expect(delivery.attempts).toEqual([
      expect.objectContaining({ attempt: 1, status: 200, error: null }),
    ]);
  });

  it("builds every category with the top-level keys section 6 lists", async () => {
    await hooks.subscribe(["*"]);
    for (const category of webhookCategories) {
      const emitted = await call<{ delivered: boolean }>(
        hooks.sandbox,
        "POST",
        "/v1/sandbox/events",
        {
          category,
        },
      );
      expect(emitted.body.delivered).toBe(true);
    }
    const received = await hooks.receiver.waitFor(webhookCategories.length);
    for (const category of webhookCategories) {
      const webhook = received.find((r) => r.body.category === category);
      expect(Object.keys(webhook!.body), category).toEqual(topLevelKeys(category));
    }
  });

  it("does not deliver an unsubscribed category, nor anything while disabled", async () => {
    await hooks.subscribe(["direct_call:end"]);
    const since = Date.now();
    const unsubscribed = await call<{ delivered: boolean }>(
      hooks.sandbox,
      "POST",
      "/v1/sandbox/events",
      {
        category: "room:create",
      },
    );
    expect(unsubscribed.body.delivered).toBe(false);
    await call(hooks.sandbox, "PUT", hooks.settingsPath(), {
      application_id: hooks.sandbox.appId,
      enabled: false,
    });
    const disabled = await call<{ delivered: boolean }>(
      hooks.sandbox,
      "POST",
      "/v1/sandbox/events",
      {
        category: "direct_call:end",
      },
    );
    expect(disabled.body.delivered).toBe(false);
    // Webhooks are sent from the outbox only, and neither event went into it.
    const queued = await call<{ deliveries: Delivery[] }>(
      hooks.sandbox,
      "GET",
      `/v1/sandbox/deliveries?since=${since}`,
    );
    expect(queued.body.deliveries).toEqual([]);
    expect(hooks.receiver.received).toHaveLength(0);
  });

  it("sends exactly 3 attempts to a receiver that never answers", async () => {
    await hooks.subscribe(["room:delete"]);
    hooks.receiver.setBehaviour({ mode: "hang" });
    const emitted = await call<{ event_id: string }>(hooks.sandbox, "POST", "/v1/sandbox/events", {
      category: "room:delete",
    });
    const delivery = await deliveryOf(emitted.body.event_id, (d) => d.status === "failed");
    expect(delivery.attempts.map((a) => a.attempt)).toEqual([1, 2, 3]);
    for (const attempt of delivery.attempts) {
      expect(attempt.status).toBeNull();
      expect(attempt.error).toMatch(/no response within 300 ms/i);
    }
    // The delivery is recorded as failed, which nothing claims again: the receiver has had, or
    // is about to have, exactly the attempts recorded.
    expect(await hooks.receiver.waitFor(3)).toHaveLength(3);
  });

  it("sends once to a receiver that answers 500: any response ends the attempts", async () => {
    await hooks.subscribe(["room:create"]);
    hooks.receiver.setBehaviour({ mode: "answer", status: 500 });
    const emitted = await call<{ event_id: string }>(hooks.sandbox, "POST", "/v1/sandbox/events", {
      category: "room:create",
    });
    const delivery = await deliveryOf(emitted.body.event_id, (d) => d.status !== "pending");
    expect(delivery.status).toBe("delivered");
    expect(delivery.attempts).toEqual([expect.objectContaining({ attempt: 1, status: 500 })]);
    // Recorded as delivered, which nothing claims again: the one attempt is all there is.
    expect(await hooks.receiver.waitFor(1)).toHaveLength(1);
  });

  it("records an answer whose body holds a NUL character, and sends it only once", async () => {
    await hooks.subscribe(["room:create"]);
    hooks.receiver.setBehaviour({ mode: "answer", status: 200, body: "ok\u0000\u0000binary" });
    const emitted = await call<{ event_id: string }>(hooks.sandbox, "POST", "/v1/sandbox/events", {
      category: "room:create",
    });
    const delivery = await deliveryOf(emitted.body.event_id, (d) => d.status !== "pending");
    expect(delivery.status).toBe("delivered");
    expect(delivery.attempts).toEqual([
      expect.objectContaining({
        attempt: 1,
        status: 200,
        error: null,
        response_excerpt: "ok\uFFFD\uFFFDbinary",
      }),
    ]);
    expect(hooks.receiver.received).toHaveLength(1);
  });

  it("plays a direct call as dial, accept, end with one call id and consistent times", async () => {
    await hooks.subscribe(["*"]);
    const played = await call<{
      call_id: string;
      events: Array<{ category: string; delivered: boolean }>;
    }>(hooks.sandbox, "POST", "/v1/sandbox/direct_calls", {
      caller_id: "ada",
      callee_id: "grace",
      is_video: true,
    });
    expect(played.status).toBe(200);
    expect(played.body.events.map((e) => e.category)).toEqual([
      "direct_call:dial",
      "direct_call:accept",
      "direct_call:end",
    ]);
    const received = await hooks.receiver.waitFor(3);
    expect(received.map((r) => r.body.category)).toEqual([
      "direct_call:dial",
      "direct_call:accept",
      "direct_call:end",
    ]);
    const end = received[2]!.body as {
      result: string;
      direct_call: Record<string, number | string>;
    };
    expect(end.direct_call.call_id).toBe(played.body.call_id);
    expect(end.direct_call.duration).toBe(
      Number(end.direct_call.ended_at) - Number(end.direct_call.started_at),
    );
    expect(end.result).toBe("completed");
  });

  it("plays a group call from room:create to room:delete", async () => {
    await hooks.subscribe(["*"]);
    const played = await call<{ room_id: string; events: Array<{ category: string }> }>(
      hooks.sandbox,
      "POST",
      "/v1/sandbox/rooms",
      {
        created_by: "host",
        invitee_ids: ["ada", "grace"],
      },
    );
    const categories = played.body.events.map((e) => e.category);
    expect(categories[0]).toBe("room:create");
    expect(categories.at(-1)).toBe("room:delete");
    expect(categories.filter((c) => c === "room:invitation_send")).toHaveLength(2);
    expect(categories.filter((c) => c === "room:participant_enter")).toHaveLength(3);
    const received = await hooks.receiver.waitFor(categories.length);
    expect(new Set(received.map((r) => (r.body.room as { room_id: string }).room_id))).toEqual(
      new Set([played.body.room_id]),
    );
  });

  it("refuses an unknown category and a missing one", async () => {
    expectPlatformError(
      await call(hooks.sandbox, "POST", "/v1/sandbox/events", { category: "room:explode" }),
      400,
      400111,
    );
    expectPlatformError(await call(hooks.sandbox, "POST", "/v1/sandbox/events", {}), 400, 400105);
    expectPlatformError(
      await call(hooks.sandbox, "POST", "/v1/sandbox/direct_calls", {
        caller_id: "a",
        callee_id: 7,
      }),
      400,
      400100,
    );
  });

  it("delivers an event accepted before a crash once the server is back", async () => {
    await hooks.subscribe(["room:invitation_send"]);
    hooks.receiver.setBehaviour({ mode: "hang" });
    const emitted = await call<{ event_id: string }>(hooks.sandbox, "POST", "/v1/sandbox/events", {
      category: "room:invitation_send",
    });
    // The first attempt is in flight when the process dies.
    await hooks.receiver.waitFor(1);
    await hooks.sandbox.restart({ kill: true });
    hooks.receiver.setBehaviour({ mode: "answer", status: 200 });
    const delivery = await deliveryOf(emitted.body.event_id, (d) => d.status === "delivered");
    // The attempt under way at the crash is recorded and counts as one of the 3.
    expect(delivery.attempts[0]).toMatchObject({
      attempt: 1,
      status: null,
      outcome: "interrupted",
    });
    expect(delivery.attempts.at(-1)).toMatchObject({ status: 200, outcome: "delivered" });
    expect(delivery.attempts.length).toBeLessThanOrEqual(3);
    expect(hooks.receiver.received.length).toBeGreaterThanOrEqual(2);
  });
});
