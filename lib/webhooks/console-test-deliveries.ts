import "server-only";
import { randomUUID } from "node:crypto";
import { desc, eq } from "drizzle-orm";
import { getDb } from "@/lib/db/client";
import { consoleTestDeliveries } from "@/lib/db/schema";
import type { DeliveryAttempt } from "@/lib/schemas/sandbox-events";
import { deliveryRetries, NoAnswer } from "@/lib/delivery/delivery-retries";
import { postJson } from "@/lib/delivery/post-json";
import { withRetries } from "@/lib/retry";
import { env } from "@/lib/env";
import type { WebhookPayload } from "@/lib/schemas/webhook-payloads";
import type { DeliveryLogEntry } from "./delivery-log";

/** The platform's delivery rules (interface 6.1 and 8), applied by the console to its own test events. */
export const TEST_DELIVERY_TIMEOUT_MS = 5_000;
/** A test delivery still pending after this long was cut short by a restart. */
const ABANDONED_AFTER_MS = 60_000;

type Row = typeof consoleTestDeliveries.$inferSelect;

/**
 * Posts a test event to a remote platform's endpoint the way the platform would: JSON, five
 * seconds' wait, up to three attempts until any response, no redirects, the address guard.
 * Returns at once with the delivery's id; the attempts are recorded as they happen.
 */
export async function startTestDelivery(url: string, payload: WebhookPayload): Promise<string> {
  const db = await getDb();
  const id = randomUUID();
  await db.insert(consoleTestDeliveries).values({
    id,
    category: payload.category,
    url,
    payload,
  });
  // Not awaited: the administrator sees the attempts arrive in the log.
  void runAttempts(id, url, JSON.stringify(payload)).catch((error: unknown) =>
    console.error("[webhooks] test delivery failed:", error),
  );
  return id;
}

async function runAttempts(id: string, url: string, body: string): Promise<void> {
  const db = await getDb();
  const e = env();
  const policy = { allowLoopback: e.WEBHOOK_ALLOW_LOOPBACK, allowPrivate: e.WEBHOOK_ALLOW_PRIVATE };
  const attempts: DeliveryAttempt[] = [];
  await withRetries(async (attempt) => {
    const at = Date.now();
    const outcome = await postJson(url, body, { timeoutMs: TEST_DELIVERY_TIMEOUT_MS, policy });
    attempts.push({
      attempt,
      at,
      status: outcome.status,
      error: outcome.error,
      latency_ms: outcome.latencyMs,
      response_excerpt: outcome.responseExcerpt,
    });
    const answered = outcome.status !== null;
    const status = answered ? "delivered" : attempt >= deliveryRetries.attempts ? "failed" : "pending";
    await db.update(consoleTestDeliveries).set({ attempts, status }).where(eq(consoleTestDeliveries.id, id));
    if (!answered) throw new NoAnswer(outcome.error);
  }, deliveryRetries).catch((error: unknown) => {
    if (!(error instanceof NoAnswer)) throw error;
  });
}

export async function listTestDeliveries(options: { limit: number; category?: string }): Promise<DeliveryLogEntry[]> {
  const db = await getDb();
  const rows = await db
    .select()
    .from(consoleTestDeliveries)
    .where(options.category ? eq(consoleTestDeliveries.category, options.category) : undefined)
    .orderBy(desc(consoleTestDeliveries.seq))
    .limit(options.limit);
  return rows.map(toEntry);
}

export async function findTestDelivery(id: string): Promise<DeliveryLogEntry | null> {
  const db = await getDb();
  const [row] = await db.select().from(consoleTestDeliveries).where(eq(consoleTestDeliveries.id, id));
  return row ? toEntry(row) : null;
}

function toEntry(row: Row): DeliveryLogEntry {
  const abandoned = row.status === "pending" && Date.now() - row.createdAt.getTime() > ABANDONED_AFTER_MS;
  return {
    id: row.id,
    source: "console",
    category: row.category,
    url: row.url,
    status: abandoned ? "failed" : row.status,
    createdAt: row.createdAt.getTime(),
    payload: row.payload,
    attempts: row.attempts,
  };
}
