import {
  PAYLOAD_ID_MAX,
  samplePayload,
  type PayloadOverrides,
  type WebhookPayload,
} from "@/lib/schemas/webhook-payloads";
import type { WebhookCategory } from "@/lib/schemas/webhooks";

/** One id of a test event the administrator may edit, addressed as `object.key`. */
export type TestEventField = { path: TestEventIdPath; label: string };

export type TestEventIdPath =
  | "direct_call.call_id"
  | "direct_call.caller_id"
  | "direct_call.callee_id"
  | "room.room_id"
  | "room.created_by"
  | "participant.user_id"
  | "invitation.inviter_id"
  | "invitation.invitee_id";

const directCallFields: TestEventField[] = [
  { path: "direct_call.call_id", label: "call_id" },
  { path: "direct_call.caller_id", label: "caller_id" },
  { path: "direct_call.callee_id", label: "callee_id" },
];
const roomFields: TestEventField[] = [
  { path: "room.room_id", label: "room_id" },
  { path: "room.created_by", label: "created_by" },
];

/** The ids a test event of `category` carries, in the order the payload shows them. */
export function testEventFields(category: WebhookCategory): TestEventField[] {
  if (category.startsWith("direct_call:")) return directCallFields;
  if (category.startsWith("room:participant_"))
    return [...roomFields, { path: "participant.user_id", label: "user_id" }];
  if (category.startsWith("room:invitation_")) {
    return [
      ...roomFields,
      { path: "invitation.inviter_id", label: "inviter_id" },
      { path: "invitation.invitee_id", label: "invitee_id" },
    ];
  }
  return roomFields;
}

/** Values of every editable id, keyed by path; the same draft serves every category. */
export type TestEventIds = Record<TestEventIdPath, string>;

/** What stays fixed while ids are edited, so the preview does not jump on every keystroke. */
export type TestEventSeed = { occurredAt: number; messageId: string };

const uuid = () => globalThis.crypto.randomUUID();

export function newTestEventDraft(now = Date.now()): { ids: TestEventIds; seed: TestEventSeed } {
  return {
    ids: {
      "direct_call.call_id": uuid(),
      "direct_call.caller_id": "alice",
      "direct_call.callee_id": "bob",
      "room.room_id": uuid(),
      "room.created_by": "alice",
      "participant.user_id": "bob",
      "invitation.inviter_id": "alice",
      "invitation.invitee_id": "bob",
    },
    seed: { occurredAt: now, messageId: uuid() },
  };
}

/**
 * The time and message id of the test event after `sent`: later (by a millisecond at least) and
 * new, so the next event's bytes, and so its signature, differ from the one before. A receiver
 * that skips a signature it has seen, as the page advises, must not drop the second test.
 */
export function nextTestEventSeed(sent: TestEventSeed, now = Date.now()): TestEventSeed {
  return { occurredAt: Math.max(now, sent.occurredAt + 1), messageId: uuid() };
}

/**
 * The exact payload a test event will carry: the shared builder, fed the edited ids and a
 * fixed time and message id, so preview and delivery cannot differ.
 */
export function buildTestPayload(
  category: WebhookCategory,
  applicationId: string,
  ids: TestEventIds,
  seed: TestEventSeed,
): WebhookPayload {
  const overrides: PayloadOverrides = {
    occurred_at: seed.occurredAt,
    direct_call: {
      call_id: ids["direct_call.call_id"],
      caller_id: ids["direct_call.caller_id"],
      callee_id: ids["direct_call.callee_id"],
    },
    service_call: { message_id: seed.messageId },
    room: { room_id: ids["room.room_id"], created_by: ids["room.created_by"] },
    participant: { user_id: ids["participant.user_id"] },
    invitation: {
      inviter_id: ids["invitation.inviter_id"],
      invitee_id: ids["invitation.invitee_id"],
    },
  };
  return samplePayload(category, applicationId, overrides, seed.occurredAt);
}

/**
 * Overrides that make `samplePayload` rebuild `payload` exactly: how a previewed test
 * event, or a delivery sent again, travels through the sandbox's emit operation.
 */
export function payloadToOverrides(payload: WebhookPayload): PayloadOverrides {
  const overrides: PayloadOverrides = { occurred_at: payload.occurred_at };
  if ("direct_call" in payload) overrides.direct_call = { ...payload.direct_call };
  if ("service_call" in payload) overrides.service_call = { ...payload.service_call };
  if ("room" in payload) overrides.room = { ...payload.room };
  if ("participant" in payload) overrides.participant = { ...payload.participant };
  if ("invitation" in payload) overrides.invitation = { ...payload.invitation };
  return overrides;
}

/** What is wrong with an id as typed, said beside its field; undefined when it can be sent. */
export function idInputError(value: string, max: number): string | undefined {
  if (value.trim() === "") return "Required.";
  if (value.length > max) return `At most ${max} characters.`;
  return undefined;
}

export const testEventIdError = (value: string) => idInputError(value, PAYLOAD_ID_MAX);

/** Which ids cannot be sent (empty, or longer than the platform's schemas take). */
export function invalidIds(category: WebhookCategory, ids: TestEventIds): string[] {
  return testEventFields(category)
    .filter((field) => testEventIdError(ids[field.path]) !== undefined)
    .map((field) => field.label);
}
