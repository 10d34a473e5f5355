import { createHmac } from "node:crypto";
import http from "node:http";
import type { AddressInfo } from "node:net";
import { describe, expect, it } from "vitest";
import { webhookCategories } from "@/lib/schemas/webhooks";
import { sleep, waitFor } from "../support/wait";
import { call, expectPlatformError } from "./support/http";
import { useWebhookSandbox } from "./support/webhook-sandbox";

type Delivery = {
  event_id: string;
  category: string;
  status: string;
  outcome: string;
  payload: Record<string, unknown>;
  attempts: Array<{
    attempt: number;
    status: number | null;
    outcome: string;
    error: string | null;
  }>;
};
type Page = { deliveries: Delivery[]; next: string };

/** A loopback port with nothing listening: every attempt is refused by the system at once. */
async function closedPortUrl(): Promise<string> {
  const server = http.createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return `http://127.0.0.1:${port}/gone`;
}

describe("sandbox webhook log: signatures, filters in the database, paging", () => {
  const hooks = useWebhookSandbox({ SANDBOX_WEBHOOK_TIMEOUT_MS: "3000" });

  async function emitMany(count: number, category = "room:create"): Promise<string[]> {
    const ids: string[] = [];
    for (let start = 0; start < count; start += 25) {
      const batch = await Promise.all(
        Array.from({ length: Math.min(25, count - start) }, () =>
          call<{ event_id: string }>(hooks.sandbox, "POST", "/v1/sandbox/events", { category }),
        ),
      );
      ids.push(...batch.map((response) => response.body.event_id));
    }
    return ids;
  }

  const until = <T>(read: () => Promise<T>, done: (value: T) => boolean, what: string) =>
    waitFor(read, done, {
      deadline: Date.now() + 30_000,
      intervalMs: 200,
      failure: `never: ${what}`,
    });

  const deliveries = (query: string) =>
    call<Page>(hooks.sandbox, "GET", `/v1/sandbox/deliveries?${query}`);

  it("signs every delivery: hex HMAC-SHA256 of the raw body keyed with the API token", async () => {
    await hooks.subscribe(["*"]);
    for (const category of webhookCategories) {
      await call(hooks.sandbox, "POST", "/v1/sandbox/events", { category });
    }
    await call(hooks.sandbox, "POST", "/v1/sandbox/rooms", {
      created_by: "host",
      invitee_ids: ["ada", "grace"],
    });
    const received = await hooks.receiver.waitFor(webhookCategories.length + 9);
    for (const webhook of received) {
      const expected = createHmac("sha256", hooks.sandbox.token).update(webhook.raw).digest("hex");
      expect(webhook.headers["x-sendbird-signature"], String(webhook.body.category)).toBe(expected);
    }
    // A body changed in transit no longer matches.
    const first = received[0]!;
    const forged = createHmac("sha256", hooks.sandbox.token).update(`${first.raw} `).digest("hex");
    expect(first.headers["x-sendbird-signature"]).not.toBe(forged);
  });

  it("finds 2 old no_response failures behind 1,000 newer deliveries, and counts per outcome", async () => {
    await hooks.subscribe(["direct_call:end"], await closedPortUrl());
    const failures = await Promise.all(
      [0, 1].map(() =>
        call<{ event_id: string }>(hooks.sandbox, "POST", "/v1/sandbox/events", {
          category: "direct_call:end",
        }),
      ),
    );
    const failedIds = failures.map((response) => response.body.event_id);
    await until(
      () => deliveries("outcome=no_response&limit=100"),
      (page) => failedIds.every((id) => page.body.deliveries.some((d) => d.event_id === id)),
      "both deliveries fail",
    );
    await hooks.subscribe(["room:create"]);
    await emitMany(1000);

    const found = await deliveries("outcome=no_response&limit=100");
    expect(found.status).toBe(200);
    expect(found.body.deliveries.map((d) => d.event_id).sort()).toEqual([...failedIds].sort());
    expect(found.body.next).toBe("");
    for (const delivery of found.body.deliveries) {
      expect(delivery.attempts.map((a) => a.attempt)).toEqual([1, 2, 3]);
      expect(delivery.attempts.every((a) => a.status === null && a.outcome === "no_response")).toBe(
        true,
      );
    }
    const counts = await call<{ counts: Record<string, number> }>(
      hooks.sandbox,
      "GET",
      "/v1/sandbox/deliveries/counts",
    );
    expect(counts.body.counts.no_response).toBe(2);
    expect(counts.body.counts.pending! + counts.body.counts.delivered!).toBeGreaterThanOrEqual(
      1000,
    );
    const byCategory = await call<{ counts: Record<string, number> }>(
      hooks.sandbox,
      "GET",
      "/v1/sandbox/deliveries/counts?category=direct_call:end",
    );
    expect(byCategory.body.counts).toMatchObject({ no_response: 2, pending: 0 });
  }, 120_000);

  it("pages through every delivery exactly once, newest first, while new ones arrive", async () => {
    const everything: string[] = [];
    let token = "";
    let extra: Promise<string[]> | undefined;
    do {
      const page = await deliveries(`limit=100${token ? `&token=${token}` : ""}`);
      expect(page.status).toBe(200);
      everything.push(...page.body.deliveries.map((d) => d.event_id));
      token = page.body.next;
      // Deliveries accepted during paging come before the first page and do not shift the rest.
      extra ??= emitMany(30);
    } while (token);
    await extra;
    expect(new Set(everything).size).toBe(everything.length);
    expect(everything.length).toBeGreaterThanOrEqual(1002);
    const total = await call<{ counts: Record<string, number> }>(
      hooks.sandbox,
      "GET",
      "/v1/sandbox/deliveries/counts",
    );
    const sum = Object.values(total.body.counts).reduce((a, b) => a + b, 0);
    expect(sum).toBe(everything.length + 30);
    expectPlatformError(await deliveries("token=not-a-token"), 400, 400111);
  }, 60_000);

  it("filters by a call id in the payload, by time and by event id", async () => {
    await hooks.subscribe(["*"]);
    const played = await call<{ call_id: string }>(
      hooks.sandbox,
      "POST",
      "/v1/sandbox/direct_calls",
      {
        caller_id: "ada",
        callee_id: "grace",
      },
    );
    const before = Date.now();
    const byCall = await deliveries(`search=${played.body.call_id}`);
    expect(byCall.body.deliveries.map((d) => d.category)).toEqual([
      "direct_call:end",
      "direct_call:accept",
      "direct_call:dial",
    ]);
    const [dial] = byCall.body.deliveries.slice(-1);
    expect((await deliveries(`event_id=${dial!.event_id}`)).body.deliveries).toHaveLength(1);
    await sleep(20);
    await call(hooks.sandbox, "POST", "/v1/sandbox/events", { category: "room:delete" });
    const recent = await deliveries(`since=${before + 10}`);
    expect(recent.body.deliveries.map((d) => d.category)).toEqual(["room:delete"]);
    const older = await deliveries(`until=${before}&search=${played.body.call_id}`);
    expect(older.body.deliveries).toHaveLength(3);
    // The events of one call reached the receiver in the order they happened.
    const ofCall = () =>
      hooks.receiver.received.filter(
        (r) =>
          (r.body.direct_call as { call_id?: string } | undefined)?.call_id === played.body.call_id,
      );
    await until(
      async () => ofCall().length,
      (count) => count >= 3,
      "the call's events arrive",
    );
    expect(ofCall().map((r) => r.body.category)).toEqual([
      "direct_call:dial",
      "direct_call:accept",
      "direct_call:end",
    ]);
  });

  it("sends again every delivery a filter selects, to the endpoint configured now", async () => {
    // The earlier tests' deliveries still under way (a slow machine was still sending them)
    // would reach the receiver among the ones sent again.
    await until(
      () =>
        call<{ counts: Record<string, number> }>(
          hooks.sandbox,
          "GET",
          "/v1/sandbox/deliveries/counts",
        ),
      ({ body }) => !body.counts.pending,
      "every earlier delivery finished",
    );
    hooks.receiver.received.length = 0;
    await hooks.subscribe(["*"]);
    const resent = await call<{ count: number }>(
      hooks.sandbox,
      "POST",
      "/v1/sandbox/deliveries/resend",
      {
        outcome: "no_response",
      },
    );
    expect(resent.body.count).toBe(2);
    const received = await hooks.receiver.waitFor(2);
    expect(received.map((r) => r.body.category)).toEqual(["direct_call:end", "direct_call:end"]);
    expectPlatformError(
      await call(hooks.sandbox, "POST", "/v1/sandbox/deliveries/resend", { outcome: "lost" }),
      400,
      400111,
    );
  });

  it("sends again only the selected deliveries whose category is subscribed now", async () => {
    await hooks.subscribe(["*"]);
    hooks.receiver.setBehaviour({ mode: "answer", status: 500 });
    const since = Date.now();
    const before = hooks.receiver.received.length;
    for (const category of ["room:create", "direct_call:dial"]) {
      await call(hooks.sandbox, "POST", "/v1/sandbox/events", { category });
    }
    await hooks.receiver.waitFor(before + 2);
    await until(
      () => deliveries(`outcome=failed&since=${since}`),
      ({ body }) => body.deliveries.length === 2,
      "both deliveries answered 500",
    );
    hooks.receiver.setBehaviour({ mode: "answer", status: 200 });

    await hooks.subscribe(["room:create"]);
    const resent = await call<{ count: number }>(
      hooks.sandbox,
      "POST",
      "/v1/sandbox/deliveries/resend",
      { outcome: "failed", since },
    );
    expect(resent.body.count).toBe(1);
    // The resend answered 1: one delivery went back to the outbox, and it has arrived.
    await hooks.receiver.waitFor(before + 3);
    expect(hooks.receiver.received.slice(before + 2).map((r) => r.body.category)).toEqual([
      "room:create",
    ]);
  });

  it("names the parameter whose value it does not know", async () => {
    for (const [name, path] of [
      ["outcome", "/v1/sandbox/deliveries?outcome=lost"],
      ["category", "/v1/sandbox/deliveries?category=room:explode"],
      ["outcome", "/v1/sandbox/deliveries/counts?outcome=lost"],
    ] as const) {
      const error = expectPlatformError(await call(hooks.sandbox, "GET", path), 400, 400111);
      expect(error.message, path).toMatch(new RegExp(`^"${name}": `));
    }
    const resend = expectPlatformError(
      await call(hooks.sandbox, "POST", "/v1/sandbox/deliveries/resend", { outcome: "lost" }),
      400,
      400111,
    );
    expect(resend.message).toMatch(/^"outcome": /);
  });

  it("records a refusal by the address guard once, as final", async () => {
    await hooks.subscribe(["room:delete"], "http://[2002:a00:1::1]/hook");
    const emitted = await call<{ event_id: string }>(hooks.sandbox, "POST", "/v1/sandbox/events", {
      category: "room:delete",
    });
    const page = await until(
      () => deliveries(`event_id=${emitted.body.event_id}`),
      (p) => p.body.deliveries[0]?.status === "failed",
      "the delivery is refused",
    );
    // Recorded as failed, which nothing claims again: read once more, it is the same one attempt.
    const [delivery] = (await deliveries(`event_id=${emitted.body.event_id}`)).body.deliveries;
    expect(page.body.deliveries[0]!.outcome).toBe("refused");
    expect(delivery!.attempts).toEqual([
      expect.objectContaining({
        attempt: 1,
        status: null,
        outcome: "refused",
        error: expect.stringMatching(/10\.0\.0\.1/),
      }),
    ]);
    await hooks.subscribe(["*"]);
  });

  it("draws the endpoint's health from its attempts", async () => {
    type Window = { volume: number; success_rate: number; p50_ms: number };
    const health = await call<{
      health: { hour: Window; day: Window; series: Array<{ volume: number; succeeded: number }> };
    }>(hooks.sandbox, "GET", "/v1/sandbox/deliveries/health");
    expect(health.status).toBe(200);
    const { hour, day, series } = health.body.health;
    expect(hour.volume).toBeGreaterThan(1000);
    // Nearly all answered 200 (a loaded machine may let an attempt time out).
    expect(hour.success_rate).toBeGreaterThan(0.9);
    expect(hour.p50_ms).toEqual(expect.any(Number));
    expect(series.reduce((sum, slice) => sum + slice.volume, 0)).toBe(day.volume);
    const succeeded = series.reduce((sum, slice) => sum + slice.succeeded, 0);
    expect(succeeded / day.volume).toBeCloseTo(hour.success_rate, 5);
  });
});
