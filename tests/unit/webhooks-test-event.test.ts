import { describe, expect, it } from "vitest";
import { emitEventSchema } from "@/lib/schemas/sandbox-events";
import { samplePayload, topLevelKeys } from "@/lib/schemas/webhook-payloads";
import { webhookCategories } from "@/lib/schemas/webhooks";
import {
  attemptSummary,
  deliveryOutcome,
  hasPendingDeliveries,
  type DeliveryLogEntry,
} from "@/lib/webhooks/delivery-log";
import { describeFields, payloadReference } from "@/lib/webhooks/payload-reference";
import {
  buildTestPayload,
  invalidIds,
  newTestEventDraft,
  nextTestEventSeed,
  payloadToOverrides,
  testEventFields,
  testEventIdError,
} from "@/lib/webhooks/test-event";

describe("test event preview", () => {
  it("is rebuilt exactly from its overrides, for every category (what the sandbox's emit receives)", () => {
    const draft = newTestEventDraft(1_700_000_000_000);
    draft.ids["direct_call.caller_id"] = "ada";
    draft.ids["room.room_id"] = "room-42";
    draft.ids["invitation.invitee_id"] = "grace";
    for (const category of webhookCategories) {
      const preview = buildTestPayload(category, "local", draft.ids, draft.seed);
      const body = emitEventSchema.parse({ category, ...payloadToOverrides(preview) });
      const { category: _category, ...overrides } = body;
      expect(samplePayload(category, "local", overrides, 0)).toEqual(preview);
      expect(Object.keys(preview)).toEqual(topLevelKeys(category));
    }
  });

  it("carries the edited ids where section 6 puts them", () => {
    const { ids, seed } = newTestEventDraft(1_700_000_000_000);
    ids["direct_call.call_id"] = "call-1";
    ids["direct_call.callee_id"] = "bob-2";
    const end = buildTestPayload("direct_call:end", "app", ids, seed);
    expect(end).toMatchObject({
      occurred_at: 1_700_000_000_000,
      application_id: "app",
      direct_call: { call_id: "call-1", callee_id: "bob-2", ended_by: "bob-2", duration: 60_000 },
    });
    ids["participant.user_id"] = "zoe";
    expect(buildTestPayload("room:participant_exit", "app", ids, seed)).toMatchObject({
      participant: { user_id: "zoe" },
    });
  });

  it("offers the ids of each category's objects and reports empty ones", () => {
    expect(testEventFields("direct_call:dial").map((field) => field.label)).toEqual([
      "call_id",
      "caller_id",
      "callee_id",
    ]);
    expect(testEventFields("room:create").map((field) => field.label)).toEqual([
      "room_id",
      "created_by",
    ]);
    expect(testEventFields("room:invitation_send").map((field) => field.label)).toEqual([
      "room_id",
      "created_by",
      "inviter_id",
      "invitee_id",
    ]);
    const { ids } = newTestEventDraft();
    ids["room.created_by"] = "  ";
    expect(invalidIds("room:delete", ids)).toEqual(["created_by"]);
    expect(invalidIds("direct_call:dial", ids)).toEqual([]);
  });

  it("flags, beside its field, an id longer than the emit operation takes, and only such an id", () => {
    for (const category of webhookCategories) {
      for (const field of testEventFields(category)) {
        for (const length of [200, 201]) {
          const draft = newTestEventDraft(1_700_000_000_000);
          draft.ids[field.path] = "x".repeat(length);
          const preview = buildTestPayload(category, "local", draft.ids, draft.seed);
          const accepted = emitEventSchema.safeParse({
            category,
            ...payloadToOverrides(preview),
          }).success;
          expect(invalidIds(category, draft.ids), `${category} ${field.label} ${length}`).toEqual(
            accepted ? [] : [field.label],
          );
          expect(testEventIdError(draft.ids[field.path])).toBe(
            accepted ? undefined : "At most 200 characters.",
          );
        }
      }
    }
  });
});

const attempt = (status: number | null, n = 1) => ({
  attempt: n,
  at: 0,
  status,
  error: status === null ? "No response within 5000 ms." : null,
  latency_ms: 3,
  response_excerpt: null,
});
const entry = (overrides: Partial<DeliveryLogEntry>): DeliveryLogEntry => ({
  id: "e",
  source: "sandbox",
  category: "room:create",
  url: "http://127.0.0.1/hooks",
  status: "delivered",
  outcome: "delivered",
  createdAt: 0,
  payload: {},
  attempts: [attempt(200)],
  ...overrides,
});

describe("delivery outcomes", () => {
  it("sorts each console-posted delivery into the platform's outcomes", () => {
    expect(deliveryOutcome(entry({}))).toBe("delivered");
    expect(deliveryOutcome(entry({ attempts: [attempt(500)] }))).toBe("failed");
    expect(deliveryOutcome(entry({ attempts: [attempt(null), attempt(302, 2)] }))).toBe("failed");
    expect(
      deliveryOutcome(
        entry({ status: "failed", attempts: [attempt(null), attempt(null, 2), attempt(null, 3)] }),
      ),
    ).toBe("no_response");
    expect(
      deliveryOutcome(
        entry({ status: "failed", attempts: [{ ...attempt(null), outcome: "refused" }] }),
      ),
    ).toBe("refused");
    expect(deliveryOutcome(entry({ status: "pending", attempts: [attempt(null)] }))).toBe(
      "pending",
    );
  });

  it("knows when to keep refreshing", () => {
    const entries = [entry({ id: "a" }), entry({ id: "c", status: "pending", attempts: [] })];
    expect(hasPendingDeliveries(entries)).toBe(true);
    expect(hasPendingDeliveries(entries.slice(0, 1))).toBe(false);
  });
});

describe("payload reference", () => {
  it("covers the 13 categories with fields whose top level is exactly section 6's keys", () => {
    const reference = payloadReference("app");
    expect(reference.map((item) => item.category)).toEqual([...webhookCategories]);
    for (const item of reference) {
      const topLevel = item.fields
        .filter((field) => !field.path.includes("."))
        .map((field) => field.path);
      expect(topLevel).toEqual(topLevelKeys(item.category));
    }
  });

  it("types nested fields and treats custom_items as an open map", () => {
    const fields = describeFields(
      payloadReference("app")[2]!.example as unknown as Record<string, unknown>,
    );
    expect(fields).toContainEqual({
      path: "direct_call.started_at",
      type: "integer (ms timestamp)",
      note: "",
    });
    expect(fields).toContainEqual(
      expect.objectContaining({ path: "direct_call.is_video", type: "boolean" }),
    );
    expect(fields).toContainEqual(
      expect.objectContaining({ path: "direct_call.custom_items", type: "object" }),
    );
    expect(fields.some((field) => field.path.startsWith("direct_call.custom_items."))).toBe(false);
  });
});

describe("an attempt's line in the delivery log", () => {
  it("gives an answer with its time, and an error as its own sentence", () => {
    expect(attemptSummary({ status: 200, error: null, latency_ms: 12 })).toBe("HTTP 200 in 12 ms");
    expect(
      attemptSummary({ status: null, error: "No response within 5000 ms.", latency_ms: 5003 }),
    ).toBe("No response within 5000 ms.");
    expect(attemptSummary({ status: null, error: "Connection refused.", latency_ms: 2 })).toBe(
      "Connection refused.",
    );
    expect(attemptSummary({ status: null, error: null, latency_ms: 0 })).toBe("No response.");
  });
});

describe("the test event after one is sent", () => {
  it("has other bytes in every category, even within the same millisecond", () => {
    const draft = newTestEventDraft(1_700_000_000_000);
    const next = nextTestEventSeed(draft.seed, 1_700_000_000_000);
    expect(next.occurredAt).toBe(1_700_000_000_001);
    expect(next.messageId).not.toBe(draft.seed.messageId);
    expect(nextTestEventSeed(draft.seed, 1_700_000_005_000).occurredAt).toBe(1_700_000_005_000);
    for (const category of webhookCategories) {
      const sent = JSON.stringify(buildTestPayload(category, "local", draft.ids, draft.seed));
      const after = JSON.stringify(buildTestPayload(category, "local", draft.ids, next));
      expect(after, category).not.toBe(sent);
    }
  });
});
