import { z } from "zod";
import { payloadOverridesSchema } from "./webhook-payloads";
import { webhookCategories } from "./webhooks";

/** Bodies of the sandbox-only event operations (sandbox contract, "Sandbox-only operations"). */

const userId = z.string().min(1).max(80);
const customItems = z.record(z.string(), z.string().max(1024));

export const emitEventSchema = payloadOverridesSchema.extend({
  category: z.enum(webhookCategories, { error: '"category" must be one of the 13 webhook categories.' }),
});

export const playDirectCallSchema = z.object({
  caller_id: userId,
  callee_id: userId,
  is_video: z.boolean().optional(),
  custom_items: customItems.optional(),
});

export const MAX_ROOM_INVITEES = 20;

export const playRoomSchema = z.object({
  created_by: userId,
  invitee_ids: z.array(userId).max(MAX_ROOM_INVITEES),
  room_type: z.string().min(1).max(100).optional(),
  custom_items: customItems.optional(),
});

export const deliveriesQuerySchema = z.object({
  limit: z.coerce.number().int().min(1).max(100).default(20),
  category: z.enum(webhookCategories).optional(),
  event_id: z.string().max(100).optional(),
});

/** One attempt to deliver a webhook, as the sandbox reports it and the console records its own. */
export type DeliveryAttempt = {
  attempt: number;
  /** Milliseconds since the epoch. */
  at: number;
  status: number | null;
  error: string | null;
  latency_ms: number;
  /** The first 2 KiB of the response body. */
  response_excerpt: string | null;
};

/** One event in `GET /v1/sandbox/deliveries`, newest first, with every attempt. */
export type DeliveryRecord = {
  event_id: string;
  category: string;
  url: string;
  /** pending: attempts remain; delivered: the endpoint answered (any status); failed: no answer after 3 attempts. */
  status: "pending" | "delivered" | "failed" | "not_subscribed";
  /** Milliseconds since the epoch. */
  created_at: number;
  payload: Record<string, unknown>;
  attempts: DeliveryAttempt[];
};
