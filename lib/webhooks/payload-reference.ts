import { samplePayload, type WebhookPayload } from "@/lib/schemas/webhook-payloads";
import { webhookCategoryDescriptions, type WebhookCategory } from "@/lib/schemas/webhooks";

export type PayloadField = { path: string; type: string; note: string };

export type PayloadReferenceEntry = {
  category: WebhookCategory;
  firesWhen: string;
  fields: PayloadField[];
  example: WebhookPayload;
};

/** What the interface says about a field (sections 2.2–2.5), where the type alone does not. */
const notes: Record<string, string> = {
  category: "The event name.",
  occurred_at: "When the event happened, 13-digit milliseconds.",
  application_id: "The application the event belongs to.",
  "direct_call.custom_items": "String keys to string values.",
  "direct_call.duration": "Milliseconds; ended_at minus started_at.",
  "direct_call.ended_by": "The party that ended the call (e.g. callee).",
  "direct_call.end_result": "e.g. completed.",
  result: "Mirrors end_result; announced as to be deprecated.",
  "service_call.cmd": "e.g. CALL.",
  "service_call.type": "e.g. dial.",
  "service_call.payload": "Contents not specified by the platform.",
  "room.room_type": "e.g. small_room_for_video.",
  "room.created_by": "User id of the room's creator.",
  "room.custom_items": "String keys to string values.",
};

// Fixed ids and time, so the reference reads the same on every visit.
const exampleOverrides = {
  occurred_at: 1_700_000_000_000,
  direct_call: {
    call_id: "8e2a1c3e-5f0b-4d7a-9c61-2b7f0e4a9d11",
    caller_id: "alice",
    callee_id: "bob",
  },
  service_call: { message_id: "4c1d7e2a-0b9f-4f3e-8a6d-1e2c3b4a5d6f" },
  room: { room_id: "a41f0b2c9d3e", created_by: "alice" },
  participant: { user_id: "bob" },
  invitation: { inviter_id: "alice", invitee_id: "bob" },
};

/** Every category's reference: when it fires, its fields with types, and an example from the shared builders. */
export function payloadReference(applicationId = "your-application-id"): PayloadReferenceEntry[] {
  return (Object.keys(webhookCategoryDescriptions) as WebhookCategory[]).map((category) => {
    const example = samplePayload(
      category,
      applicationId,
      exampleOverrides,
      exampleOverrides.occurred_at,
    );
    return {
      category,
      firesWhen: webhookCategoryDescriptions[category],
      fields: describeFields(example as unknown as Record<string, unknown>),
      example,
    };
  });
}

/** The fields of a payload, objects first listed and then their keys, with the JSON type of each. */
export function describeFields(value: Record<string, unknown>, prefix = ""): PayloadField[] {
  return Object.entries(value).flatMap(([key, field]) => {
    const path = prefix ? `${prefix}.${key}` : key;
    const own: PayloadField = { path, type: jsonType(key, field), note: notes[path] ?? "" };
    const isObject = field !== null && typeof field === "object" && !Array.isArray(field);
    // custom_items and service_call.payload are open maps: their keys are not fields.
    const open = key === "custom_items" || path === "service_call.payload";
    return isObject && !open
      ? [own, ...describeFields(field as Record<string, unknown>, path)]
      : [own];
  });
}

function jsonType(key: string, value: unknown): string {
  if (typeof value === "number") {
    if (key.endsWith("_at")) return "integer (ms timestamp)";
    return Number.isInteger(value) ? "integer" : "number";
  }
  if (value === null) return "null";
  if (Array.isArray(value)) return "array";
  return typeof value;
}
