import { randomUUID } from "node:crypto";
import {
  directCallAccept,
  directCallDial,
  directCallEnd,
  invitationEvent,
  participantEvent,
  roomEvent,
  type DirectCall,
  type Room,
  type WebhookPayload,
} from "@/lib/schemas/webhook-payloads";

/**
 * A direct call played out: dial, accept, end, with one call id and times that agree
 * (the call rang for 5 seconds and lasted a minute, ending now).
 */
export function playDirectCall(
  applicationId: string,
  input: {
    caller_id: string;
    callee_id: string;
    is_video?: boolean;
    custom_items?: Record<string, string>;
  },
  now = Date.now(),
): WebhookPayload[] {
  const call: DirectCall = {
    call_id: randomUUID(),
    caller_id: input.caller_id,
    callee_id: input.callee_id,
    is_video: input.is_video ?? false,
    custom_items: input.custom_items ?? {},
  };
  const endedAt = now;
  const startedAt = endedAt - 60_000;
  const createdAt = startedAt - 5_000;
  return [
    directCallDial(applicationId, createdAt, call),
    directCallAccept(applicationId, startedAt, call),
    directCallEnd(applicationId, endedAt, {
      ...call,
      created_at: createdAt,
      started_at: startedAt,
      ended_at: endedAt,
      duration: endedAt - startedAt,
      ended_by: call.callee_id,
      end_result: "completed",
    }),
  ];
}

/**
 * A group call played out: the room is created, each invitee is invited and accepts, everyone
 * enters, everyone leaves, and the room is deleted; a second apart, ending now.
 */
export function playRoom(
  applicationId: string,
  input: {
    created_by: string;
    invitee_ids: string[];
    room_type?: string;
    custom_items?: Record<string, string>;
  },
  now = Date.now(),
): { room: Room; payloads: WebhookPayload[] } {
  const room: Room = {
    room_id: randomUUID(),
    room_type: input.room_type ?? "small_room_for_video",
    created_by: input.created_by,
    custom_items: input.custom_items ?? {},
  };
  const participants = [input.created_by, ...input.invitee_ids];
  const steps: Array<(at: number) => WebhookPayload> = [
    (at) => roomEvent(applicationId, at, "room:create", room),
    ...input.invitee_ids.map(
      (invitee_id) => (at: number) =>
        invitationEvent(applicationId, at, "room:invitation_send", room, {
          inviter_id: input.created_by,
          invitee_id,
        }),
    ),
    ...input.invitee_ids.map(
      (invitee_id) => (at: number) =>
        invitationEvent(applicationId, at, "room:invitation_accept", room, {
          inviter_id: input.created_by,
          invitee_id,
        }),
    ),
    ...participants.map(
      (user_id) => (at: number) =>
        participantEvent(applicationId, at, "room:participant_enter", room, { user_id }),
    ),
    ...participants.map(
      (user_id) => (at: number) =>
        participantEvent(applicationId, at, "room:participant_exit", room, { user_id }),
    ),
    (at) => roomEvent(applicationId, at, "room:delete", room),
  ];
  const start = now - (steps.length - 1) * 1000;
  return { room, payloads: steps.map((step, index) => step(start + index * 1000)) };
}
