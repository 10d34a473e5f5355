import type { DeliveryAttempt } from "@/lib/schemas/sandbox-events";

export type { DeliveryAttempt };

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
  createdAt: number;
  payload: Record<string, unknown>;
  attempts: DeliveryAttempt[];
};

export const deliveryOutcomes = ["delivered_2xx", "delivered_non_2xx", "no_response", "pending"] as const;
export type DeliveryOutcome = (typeof deliveryOutcomes)[number];

export const deliveryOutcomeLabels: Record<DeliveryOutcome, string> = {
  delivered_2xx: "Delivered (2xx)",
  delivered_non_2xx: "Answered with an error (non-2xx)",
  no_response: "No response",
  pending: "Pending",
};

/** Which of the log's four outcomes an entry has, from its status and last answer. */
export function deliveryOutcome(entry: Pick<DeliveryLogEntry, "status" | "attempts">): DeliveryOutcome {
  if (entry.status === "pending") return "pending";
  const answered = entry.attempts.findLast((attempt) => attempt.status !== null);
  if (!answered || answered.status === null) return "no_response";
  return answered.status >= 200 && answered.status < 300 ? "delivered_2xx" : "delivered_non_2xx";
}

export function filterDeliveries(
  entries: readonly DeliveryLogEntry[],
  filter: { category?: string; outcome?: DeliveryOutcome },
): DeliveryLogEntry[] {
  return entries.filter(
    (entry) =>
      (!filter.category || entry.category === filter.category) &&
      (!filter.outcome || deliveryOutcome(entry) === filter.outcome),
  );
}

/** The log refreshes itself while any delivery may still change. */
export function hasPendingDeliveries(entries: readonly DeliveryLogEntry[]): boolean {
  return entries.some((entry) => entry.status === "pending");
}
