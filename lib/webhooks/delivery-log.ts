import { z } from "zod";
import {
  deliveryFilterSchema,
  deliveryOutcomes,
  type DeliveryAttempt,
  type DeliveryCounts,
  type DeliveryOutcome,
} from "@/lib/schemas/sandbox-events";
import { webhookCategories } from "@/lib/schemas/webhooks";

export type { DeliveryAttempt, DeliveryCounts, DeliveryOutcome };
export { deliveryOutcomes };

/**
 * One event in the delivery log, whoever sent it: the sandbox's outbox, or the console
 * itself (test events against a remote platform, which has no delivery log to read).
 */
export type DeliveryLogEntry = {
  id: string;
  source: "sandbox" | "console";
  category: string;
  url: string;
  /** pending: attempts remain; delivered: the endpoint answered; failed: no answer after every attempt. */
  status: "pending" | "delivered" | "failed";
  outcome: DeliveryOutcome;
  createdAt: number;
  payload: Record<string, unknown>;
  attempts: DeliveryAttempt[];
};

export type DeliveryLogPage = {
  source: "sandbox" | "console";
  entries: DeliveryLogEntry[];
  next: string;
};

export const deliveryOutcomeLabels: Record<DeliveryOutcome, string> = {
  delivered: "Delivered (2xx)",
  failed: "Answered with an error (non-2xx)",
  no_response: "No response",
  refused: "Refused by the address guard",
  pending: "Pending",
};

/**
 * The log's filter as the page keeps it: the sandbox's filter, with times as typed. Both logs
 * hold only the interface's categories, so any other is a mistake, refused like an unknown outcome.
 */
export const deliveryLogFilterSchema = deliveryFilterSchema.extend({
  category: z
    .string()
    .refine((category) => (webhookCategories as readonly string[]).includes(category), {
      error: (issue) =>
        `There is no webhook category "${String(issue.input).slice(0, 100)}": use one of ${webhookCategories.join(", ")}.`,
    })
    .optional(),
});
export type DeliveryLogFilter = z.infer<typeof deliveryLogFilterSchema>;

/** Which outcome an entry has, from its status and last answer (for logs that do not store it). */
export function deliveryOutcome(entry: {
  status: DeliveryLogEntry["status"];
  attempts: DeliveryAttempt[];
}): DeliveryOutcome {
  if (entry.status === "pending") return "pending";
  if (entry.attempts.some((attempt) => attempt.outcome === "refused")) return "refused";
  const answered = entry.attempts.findLast((attempt) => attempt.status !== null);
  if (!answered || answered.status === null) return "no_response";
  return answered.status >= 200 && answered.status < 300 ? "delivered" : "failed";
}

/**
 * One line for an attempt: its answer and how long it took, or why there was none. An error
 * is its own sentence and says its time where the time matters ("No response within 5000 ms.");
 * the latency is in the attempt's row.
 */
export function attemptSummary(attempt: Pick<DeliveryAttempt, "status" | "error" | "latency_ms">) {
  if (attempt.status !== null) return `HTTP ${attempt.status} in ${attempt.latency_ms} ms`;
  return attempt.error ?? "No response.";
}

/** The log refreshes itself while any delivery may still change. */
export function hasPendingDeliveries(entries: readonly DeliveryLogEntry[]): boolean {
  return entries.some((entry) => entry.status === "pending");
}

/** How a receiver checks `x-sendbird-signature`, shown on the page to copy. */
export const signatureSnippets = {
  node: `import { createHmac, timingSafeEqual } from "node:crypto";

// rawBody: the request body exactly as received (a Buffer or string), before JSON.parse.
export function isFromPlatform(rawBody, signatureHeader, apiToken) {
  const expected = createHmac("sha256", apiToken).update(rawBody).digest("hex");
  const given = String(signatureHeader ?? "");
  return given.length === expected.length && timingSafeEqual(Buffer.from(given), Buffer.from(expected));
}`,
  python: `import hashlib
import hmac

# raw_body: the request body exactly as received (bytes), before json.loads.
def is_from_platform(raw_body: bytes, signature_header: str, api_token: str) -> bool:
    expected = hmac.new(api_token.encode(), raw_body, hashlib.sha256).hexdigest()
    return hmac.compare_digest(expected, signature_header or "")`,
};
