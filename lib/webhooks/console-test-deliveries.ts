import "server-only";
import { randomUUID } from "node:crypto";
import { and, desc, eq, gte, isNull, lt, lte, or, sql } from "drizzle-orm";
import { getDb } from "@/lib/db/client";
import { consoleTestDeliveries } from "@/lib/db/schema";
import {
  deliveryAttemptSchema,
  deliveryPageToken,
  type DeliveryAttempt,
} from "@/lib/schemas/sandbox-events";
import { deliveryRetries, NoAnswer } from "@/lib/delivery/delivery-retries";
import { postJson } from "@/lib/delivery/post-json";
import { withRetries } from "@/lib/retry";
import { env } from "@/lib/env";
import { fixedTargetId } from "@/lib/platform";
import type { WebhookPayload } from "@/lib/schemas/webhook-payloads";
import {
  deliveryOutcome,
  type DeliveryLogEntry,
  type DeliveryLogFilter,
  type DeliveryLogPage,
} from "./delivery-log";

/** The platform's delivery rules (interface 6.1 and 8), applied by the console to its own test events. */
export const TEST_DELIVERY_TIMEOUT_MS = 5_000;
/** A test delivery still pending after this long was cut short by a restart. */
const ABANDONED_AFTER_MS = 60_000;

type Row = typeof consoleTestDeliveries.$inferSelect;

/**
 * Posts a test event to a remote platform's endpoint the way the platform would: JSON, five
 * seconds' wait, up to three attempts until any response, no redirects, the address guard.
 * Returns at once with the delivery's id; the attempts are recorded as they happen. Recorded
 * under `targetId`, the remote target whose log shows it.
 */
export async function startTestDelivery(
  targetId: string,
  url: string,
  payload: WebhookPayload,
  signingKey: string,
): Promise<string> {
  const db = await getDb();
  const id = randomUUID();
  await db.insert(consoleTestDeliveries).values({
    id,
    targetId,
    category: payload.category,
    url,
    payload,
  });
  // Not awaited: the administrator sees the attempts arrive in the log.
  void runAttempts(id, url, JSON.stringify(payload), signingKey).catch((error: unknown) =>
    console.error("[webhooks] test delivery failed:", error),
  );
  return id;
}

async function runAttempts(
  id: string,
  url: string,
  body: string,
  signingKey: string,
): Promise<void> {
  const db = await getDb();
  const e = env();
  const policy = { allowLoopback: e.WEBHOOK_ALLOW_LOOPBACK, allowPrivate: e.WEBHOOK_ALLOW_PRIVATE };
  const attempts: DeliveryAttempt[] = [];
  await withRetries(async (attempt) => {
    const at = Date.now();
    // Signed as the platform signs its own deliveries, with the application's API token.
    const outcome = await postJson(url, body, {
      timeoutMs: TEST_DELIVERY_TIMEOUT_MS,
      policy,
      signingKey,
    });
    const answered = outcome.status !== null;
    attempts.push({
      attempt,
      at,
      status: outcome.status,
      error: outcome.error,
      outcome: outcome.refused
        ? "refused"
        : !answered
          ? "no_response"
          : outcome.status! >= 200 && outcome.status! < 300
            ? "delivered"
            : "failed",
      latency_ms: outcome.latencyMs,
      request_headers: outcome.requestHeaders,
      response_headers: outcome.responseHeaders,
      response_excerpt: outcome.responseExcerpt,
    });
    // A refusal by the address guard is final, as on the platform.
    const status = answered
      ? "delivered"
      : outcome.refused || attempt >= deliveryRetries.attempts
        ? "failed"
        : "pending";
    await db
      .update(consoleTestDeliveries)
      .set({ attempts, status })
      .where(eq(consoleTestDeliveries.id, id));
    // Only an attempt with no answer and no refusal is tried again.
    if (!answered && !outcome.refused) throw new NoAnswer(outcome.error);
  }, deliveryRetries).catch((error: unknown) => {
    if (!(error instanceof NoAnswer)) throw error;
  });
}

/**
 * A page of the console's test deliveries, newest first. Category, event id, the call or room
 * id, the time range and paging run in the database; the outcome is read from the attempts, so
 * it filters within the page (these are a handful of test events, not a platform's traffic).
 * Only the target's own: another platform's endpoint and events are not this one's.
 */
export async function listTestDeliveries(
  targetId: string,
  options: DeliveryLogFilter & { limit: number; token?: string },
): Promise<DeliveryLogPage> {
  const db = await getDb();
  const after = options.token ? deliveryPageToken.decode(options.token) : null;
  const rows = await db
    .select()
    .from(consoleTestDeliveries)
    .where(
      and(
        ofTarget(targetId),
        options.category ? eq(consoleTestDeliveries.category, options.category) : undefined,
        options.event_id ? eq(consoleTestDeliveries.id, options.event_id) : undefined,
        options.search
          ? or(
              sql`${consoleTestDeliveries.payload} -> 'direct_call' ->> 'call_id' = ${options.search}`,
              sql`${consoleTestDeliveries.payload} -> 'room' ->> 'room_id' = ${options.search}`,
            )
          : undefined,
        options.since !== undefined
          ? gte(consoleTestDeliveries.createdAt, new Date(options.since))
          : undefined,
        options.until !== undefined
          ? lte(consoleTestDeliveries.createdAt, new Date(options.until))
          : undefined,
        after !== null ? lt(consoleTestDeliveries.seq, after) : undefined,
      ),
    )
    .orderBy(desc(consoleTestDeliveries.seq))
    .limit(options.limit + 1);
  const page = rows.slice(0, options.limit);
  const next = rows.length > options.limit ? deliveryPageToken.encode(page.at(-1)!.seq) : "";
  const entries = page
    .map(toEntry)
    .filter((entry) => !options.outcome || entry.outcome === options.outcome);
  return { source: "console", entries, next };
}

/** A test delivery of the target's log, or null. */
export async function findTestDelivery(
  targetId: string,
  id: string,
): Promise<DeliveryLogEntry | null> {
  const db = await getDb();
  const [row] = await db
    .select()
    .from(consoleTestDeliveries)
    .where(and(ofTarget(targetId), eq(consoleTestDeliveries.id, id)));
  return row ? toEntry(row) : null;
}

/** A target's test deliveries; those posted before targets existed were the fixed target's. */
function ofTarget(targetId: string) {
  const own = eq(consoleTestDeliveries.targetId, targetId);
  return targetId === fixedTargetId ? or(own, isNull(consoleTestDeliveries.targetId)) : own;
}

function toEntry(row: Row): DeliveryLogEntry {
  const abandoned =
    row.status === "pending" && Date.now() - row.createdAt.getTime() > ABANDONED_AFTER_MS;
  const status = abandoned ? "failed" : row.status;
  const attempts = deliveryAttemptSchema.array().parse(row.attempts);
  return {
    id: row.id,
    source: "console",
    category: row.category,
    url: row.url,
    status,
    outcome: deliveryOutcome({ status, attempts }),
    createdAt: row.createdAt.getTime(),
    // Shown as it was sent: the console wrote it from its own typed builder, and never reads into it.
    payload: row.payload,
    attempts,
  };
}
