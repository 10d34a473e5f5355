/** The console's own tables: its settings, sessions, remote targets and test deliveries. */
import type { DeliveryAttempt } from "@/lib/schemas/sandbox-events";
import type { WebhookPayload } from "@/lib/schemas/webhook-payloads";
import { bigserial, index, jsonb, pgTable, text, timestamp } from "drizzle-orm/pg-core";
import { createdAt } from "./columns";

/** Small key/value settings the console generates once and keeps (password hash, cookie secret). */
export const consoleSettings = pgTable("console_settings", {
  key: text("key").primaryKey(),
  value: text("value").notNull(),
  updatedAt: timestamp("updated_at", { withTimezone: true }).notNull().defaultNow(),
});

/** Administrator sessions; the cookie carries the id, signed. Deleting the row signs out. */
export const adminSessions = pgTable("admin_sessions", {
  id: text("id").primaryKey(),
  createdAt: createdAt(),
  expiresAt: timestamp("expires_at", { withTimezone: true }).notNull(),
  /** The target this session works on (lib/targets); null: the default one. */
  targetId: text("target_id"),
});

/**
 * Remote platforms added on the Settings page (lib/targets). The embedded sandbox's
 * applications are targets too, read from sandbox_apps, so they are not repeated here.
 */
export const platformTargets = pgTable("platform_targets", {
  id: text("id").primaryKey(),
  name: text("name").notNull(),
  appId: text("app_id").notNull(),
  chatBaseUrl: text("chat_base_url").notNull(),
  callsBaseUrl: text("calls_base_url").notNull(),
  /** The API token, sealed by lib/targets/secret-box.ts (AES-256-GCM when a key is given). */
  sealedApiToken: text("sealed_api_token").notNull(),
  /** What the administrator said it is: confirmations say "production platform" or "sandbox". */
  environment: text("environment").$type<"production" | "sandbox">().notNull(),
  createdAt: createdAt(),
});

/**
 * Test events the console posted itself, because a remote platform has no operation to emit
 * one; the attempts live beside the event since they are only ever read together.
 */
export const consoleTestDeliveries = pgTable(
  "console_test_deliveries",
  {
    id: text("id").primaryKey(),
    /**
     * The remote target the event was posted for (lib/targets): each target's log shows its own.
     * Null: posted before targets existed, for the target PLATFORM_CHAT_URL fixed.
     */
    targetId: text("target_id"),
    category: text("category").notNull(),
    url: text("url").notNull(),
    payload: jsonb("payload").$type<WebhookPayload>().notNull(),
    status: text("status").$type<"pending" | "delivered" | "failed">().notNull().default("pending"),
    attempts: jsonb("attempts").$type<DeliveryAttempt[]>().notNull().default([]),
    createdAt: createdAt(),
    seq: bigserial("seq", { mode: "number" }).notNull(),
  },
  (t) => [index("console_test_deliveries_seq").on(t.seq)],
);
