import { z } from "zod";
import type { WebhookCategory } from "./webhooks";

/**
 * Webhook payloads exactly as section 6 of the platform interface shapes them: one typed
 * builder per category, shared by the sandbox's delivery, the console's test events and
 * the payload reference.
 */

const customItems = z
  .record(z.string(), z.string().max(1024))
  .refine((items) => Object.keys(items).length <= 50, {
    error: "at most 50 custom items",
  });
// Web Crypto, so the builders run in the browser (test-event preview) as on the server.
const randomUUID = () => globalThis.crypto.randomUUID();

/** The longest id a payload carries (a call, room or user id). */
export const PAYLOAD_ID_MAX = 200;
const id = z.string().min(1).max(PAYLOAD_ID_MAX);

export const directCallSchema = z.object({
  call_id: id,
  caller_id: id,
  callee_id: id,
  is_video: z.boolean(),
  custom_items: customItems,
});
export type DirectCall = z.infer<typeof directCallSchema>;

export const directCallEndSchema = directCallSchema.extend({
  created_at: z.int().nonnegative(),
  started_at: z.int().nonnegative(),
  ended_at: z.int().nonnegative(),
  duration: z.int().nonnegative(),
  ended_by: z.string().max(200),
  end_result: z.string().max(200),
});
export type DirectCallEnd = z.infer<typeof directCallEndSchema>;

export const serviceCallSchema = z.object({
  version: z.int(),
  message_id: z.string().max(200),
  cmd: z.string().max(200),
  type: z.string().max(200),
  payload: z.record(z.string(), z.unknown()),
});
export type ServiceCall = z.infer<typeof serviceCallSchema>;

export const roomSchema = z.object({
  room_id: id,
  room_type: z.string().max(200),
  created_by: id,
  custom_items: customItems,
});
export type Room = z.infer<typeof roomSchema>;

export const participantSchema = z.object({ user_id: id });
export type Participant = z.infer<typeof participantSchema>;

export const invitationSchema = z.object({ inviter_id: id, invitee_id: id });
export type Invitation = z.infer<typeof invitationSchema>;

type Envelope<C extends WebhookCategory> = {
  category: C;
  occurred_at: number;
  application_id: string;
};

export type DirectCallDialPayload = Envelope<"direct_call:dial"> & {
  direct_call: DirectCall;
  service_call: ServiceCall;
};
export type DirectCallAcceptPayload = Envelope<"direct_call:accept"> & { direct_call: DirectCall };
export type DirectCallEndPayload = Envelope<"direct_call:end"> & {
  result: string;
  direct_call: DirectCallEnd;
};
export type RoomCategory = "room:create" | "room:delete";
export type ParticipantCategory =
  "room:participant_enter" | "room:participant_exit" | "room:participant_disconnect";
export type InvitationCategory =
  | "room:invitation_send"
  | "room:invitation_cancel"
  | "room:invitation_accept"
  | "room:invitation_decline"
  | "room:invitation_no_answer";
export type RoomPayload = Envelope<RoomCategory> & { room: Room };
export type ParticipantPayload = Envelope<ParticipantCategory> & {
  room: Room;
  participant: Participant;
};
export type InvitationPayload = Envelope<InvitationCategory> & {
  room: Room;
  invitation: Invitation;
};

export type WebhookPayload =
  | DirectCallDialPayload
  | DirectCallAcceptPayload
  | DirectCallEndPayload
  | RoomPayload
  | ParticipantPayload
  | InvitationPayload;

export type PayloadFor<C extends WebhookCategory> = Extract<WebhookPayload, { category: C }>;

// Builders: key order follows the section 6 tables, so receivers see what the docs show.

export function directCallDial(
  applicationId: string,
  occurredAt: number,
  call: DirectCall,
  serviceCall?: ServiceCall,
): DirectCallDialPayload {
  return {
    category: "direct_call:dial",
    occurred_at: occurredAt,
    direct_call: call,
    service_call: serviceCall ?? {
      version: 1,
      message_id: randomUUID(),
      cmd: "CALL",
      type: "dial",
      payload: {},
    },
    application_id: applicationId,
  };
}

export function directCallAccept(
  applicationId: string,
  occurredAt: number,
  call: DirectCall,
): DirectCallAcceptPayload {
  return {
    category: "direct_call:accept",
    occurred_at: occurredAt,
    direct_call: call,
    application_id: applicationId,
  };
}

export function directCallEnd(
  applicationId: string,
  occurredAt: number,
  call: DirectCallEnd,
): DirectCallEndPayload {
  return {
    category: "direct_call:end",
    occurred_at: occurredAt,
    application_id: applicationId,
    // Announced as to be deprecated; mirrors end_result as in the interface's example.
    result: call.end_result,
    direct_call: call,
  };
}

export function roomEvent(
  applicationId: string,
  occurredAt: number,
  category: RoomCategory,
  room: Room,
): RoomPayload {
  return { category, occurred_at: occurredAt, application_id: applicationId, room };
}

export function participantEvent(
  applicationId: string,
  occurredAt: number,
  category: ParticipantCategory,
  room: Room,
  participant: Participant,
): ParticipantPayload {
  return { category, occurred_at: occurredAt, application_id: applicationId, room, participant };
}

export function invitationEvent(
  applicationId: string,
  occurredAt: number,
  category: InvitationCategory,
  room: Room,
  invitation: Invitation,
): InvitationPayload {
  return { category, occurred_at: occurredAt, application_id: applicationId, room, invitation };
}

/** What a sample payload may be told; anything left out gets a plausible value. */
export const payloadOverridesSchema = z.object({
  occurred_at: z.int().positive().optional(),
  direct_call: directCallEndSchema.partial().optional(),
  service_call: serviceCallSchema.partial().optional(),
  room: roomSchema.partial().optional(),
  participant: participantSchema.partial().optional(),
  invitation: invitationSchema.partial().optional(),
});
export type PayloadOverrides = z.infer<typeof payloadOverridesSchema>;

const shortId = () => randomUUID().replaceAll("-", "").slice(0, 12);

/** A complete, consistent payload of any category: the sandbox's emit operation and test events. */
export function samplePayload(
  category: WebhookCategory,
  applicationId: string,
  overrides: PayloadOverrides = {},
  now = Date.now(),
): WebhookPayload {
  const occurredAt = overrides.occurred_at ?? now;
  const call: DirectCall = {
    call_id: overrides.direct_call?.call_id ?? randomUUID(),
    caller_id: overrides.direct_call?.caller_id ?? "caller",
    callee_id: overrides.direct_call?.callee_id ?? "callee",
    is_video: overrides.direct_call?.is_video ?? false,
    custom_items: overrides.direct_call?.custom_items ?? {},
  };
  const room: Room = {
    room_id: shortId(),
    room_type: "small_room_for_video",
    created_by: "host",
    custom_items: {},
    ...overrides.room,
  };
  switch (category) {
    case "direct_call:dial":
      return directCallDial(applicationId, occurredAt, call, {
        version: 1,
        message_id: randomUUID(),
        cmd: "CALL",
        type: "dial",
        payload: {},
        ...overrides.service_call,
      });
    case "direct_call:accept":
      return directCallAccept(applicationId, occurredAt, call);
    case "direct_call:end": {
      const endedAt = overrides.direct_call?.ended_at ?? occurredAt;
      const startedAt = overrides.direct_call?.started_at ?? endedAt - 60_000;
      return directCallEnd(applicationId, occurredAt, {
        ...call,
        created_at: overrides.direct_call?.created_at ?? startedAt - 5_000,
        started_at: startedAt,
        ended_at: endedAt,
        duration: endedAt - startedAt,
        ended_by: overrides.direct_call?.ended_by ?? call.callee_id,
        end_result: overrides.direct_call?.end_result ?? "completed",
      });
    }
    case "room:create":
    case "room:delete":
      return roomEvent(applicationId, occurredAt, category, room);
    case "room:participant_enter":
    case "room:participant_exit":
    case "room:participant_disconnect":
      return participantEvent(applicationId, occurredAt, category, room, {
        user_id: overrides.participant?.user_id ?? "participant",
      });
    case "room:invitation_send":
    case "room:invitation_cancel":
    case "room:invitation_accept":
    case "room:invitation_decline":
    case "room:invitation_no_answer":
      return invitationEvent(applicationId, occurredAt, category, room, {
        inviter_id: overrides.invitation?.inviter_id ?? room.created_by,
        invitee_id: overrides.invitation?.invitee_id ?? "invitee",
      });
  }
}

/** The top-level keys of each category's payload (section 6), for tests and the reference. */
export function topLevelKeys(category: WebhookCategory): string[] {
  return Object.keys(samplePayload(category, "app", {}, 0));
}
