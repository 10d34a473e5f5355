import { z } from "zod";
import { payloadOverridesSchema } from "./webhook-payloads";
import { webhookCategories } from "./webhooks";

/** Bodies of the sandbox-only event operations (sandbox contract, "Sandbox-only operations"). */

/** The longest user id a played call takes. */
export const PLAYED_USER_ID_MAX = 80;
const userId = z.string().min(1).max(PLAYED_USER_ID_MAX);
const customItems = z.record(z.string(), z.string().max(1024));

export const emitEventSchema = payloadOverridesSchema.extend({
  category: z.enum(webhookCategories, {
    error: '"category" must be one of the 13 webhook categories.',
  }),
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

export const deliveryOutcomes = [
  "pending",
  "delivered",
  "failed",
  "no_response",
  "refused",
] as const;
export type DeliveryOutcome = (typeof deliveryOutcomes)[number];

const epochMs = z.coerce.number().int().min(0).max(8.64e15);

/** Which deliveries: shared by the log's query, its counts and "send again" for a selection. */
export const deliveryFilterSchema = z.object({
  category: z.enum(webhookCategories).optional(),
  outcome: z.enum(deliveryOutcomes).optional(),
  event_id: z.string().min(1).max(100).optional(),
  /** A `call_id` or `room_id` the payload carries. */
  search: z.string().trim().min(1).max(200).optional(),
  since: epochMs.optional(),
  until: epochMs.optional(),
});
export type DeliveryFilter = z.infer<typeof deliveryFilterSchema>;

/** The paging token: the position of the last delivery of the previous page. */
export const deliveryPageToken = {
  encode: (seq: number) => Buffer.from(`d${seq}`).toString("base64url"),
  decode: (token: string): number | null => {
    const match = /^d(\d{1,15})$/.exec(Buffer.from(token, "base64url").toString("utf8"));
    return match ? Number(match[1]) : null;
  },
};

export const deliveriesQuerySchema = deliveryFilterSchema.extend({
  limit: z.coerce.number().int().min(1).max(100).default(20),
  token: z
    .string()
    .max(100)
    .optional()
    .refine(
      (token) => !token || deliveryPageToken.decode(token) !== null,
      '"token" is not a token this list gave.',
    ),
});

/** One attempt to deliver a webhook, as the sandbox reports it and the console records its own. */
export const deliveryAttemptSchema = z.object({
  attempt: z.number(),
  /** Milliseconds since the epoch. */
  at: z.number(),
  status: z.number().nullable(),
  error: z.string().nullable(),
  /** delivered, failed, no_response, refused, or interrupted (the server stopped during it). */
  outcome: z.string().optional(),
  latency_ms: z.number(),
  request_headers: z.record(z.string(), z.string()).nullable().optional(),
  response_headers: z.record(z.string(), z.string()).nullable().optional(),
  /** The first 2 KiB of the response body. */
  response_excerpt: z.string().nullable(),
});
export type DeliveryAttempt = z.output<typeof deliveryAttemptSchema>;

/** Deliveries per outcome, for the same filter as the list. */
export type DeliveryCounts = Record<DeliveryOutcome, number>;

/** An endpoint's health over a window: attempts made, share answered 2xx, latency. */
export type EndpointWindow = {
  volume: number;
  success_rate: number | null;
  p50_ms: number | null;
  p95_ms: number | null;
};

export type EndpointHealth = {
  url: string;
  hour: EndpointWindow;
  day: EndpointWindow;
  /** Per time slice (5 minutes over the last day), oldest first. */
  series: Array<{
    at: number;
    volume: number;
    succeeded: number;
    p50_ms: number | null;
    p95_ms: number | null;
  }>;
  last_failure: {
    event_id: string;
    at: number;
    category: string;
    status: number | null;
    reason: string;
  } | null;
};

/** One event in `GET /v1/sandbox/deliveries`, newest first, with every attempt. */
export type DeliveryRecord = {
  event_id: string;
  category: string;
  url: string;
  /** pending: attempts remain; delivered: the endpoint answered (any status); failed: no answer after 3 attempts. */
  status: "pending" | "delivered" | "failed" | "not_subscribed";
  /** delivered: a 2xx answer; failed: another status; no_response; refused by the address guard; or pending. */
  outcome?: DeliveryOutcome;
  /** Milliseconds since the epoch. */
  created_at: number;
  payload: Record<string, unknown>;
  attempts: DeliveryAttempt[];
};
