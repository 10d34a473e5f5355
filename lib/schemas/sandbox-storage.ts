import { z } from "zod";

/**
 * What the embedded sandbox keeps in its tables' JSON columns (lib/db/schema/sandbox.ts), as zod
 * schemas: the tables take their types from here, and the sandbox parses what it reads with them
 * where a stored value becomes a resource. Messages' JSON columns are in ./messages.ts.
 */

/** An application's webhook settings as stored (`sandbox_apps.webhook`). */
export const storedWebhookSettingsSchema = z.object({
  enabled: z.boolean(),
  url: z.string(),
  include_members: z.boolean(),
  enabled_events: z.array(z.string()),
});
export type StoredWebhookSettings = z.infer<typeof storedWebhookSettingsSchema>;

/** Requests per second; `migration` covers POST /v3/migration/..., which falls under `write` when unset. */
export const rateLimitSettingsSchema = z.object({
  get: z.number().optional(),
  write: z.number().optional(),
  migration: z.number().optional(),
});
export type RateLimitSettings = z.infer<typeof rateLimitSettingsSchema>;

/** A user's metadata (`sandbox_users.metadata`): string values by key. */
export const userMetadataSchema = z.record(z.string(), z.string());

/** One of a user's session tokens (`sandbox_users.session_tokens`). */
export const sessionTokenSchema = z.object({ session_token: z.string(), expires_at: z.number() });
export type SessionToken = z.infer<typeof sessionTokenSchema>;

/** One member of a group channel as stored (`sandbox_group_channels.members`). */
export const groupChannelMemberSchema = z.object({
  user_id: z.string(),
  state: z.enum(["joined", "invited"]),
  hidden_status: z.enum(["unhidden", "hidden_allow_auto_unhide", "hidden_prevent_auto_unhide"]),
});
export type GroupChannelMember = z.infer<typeof groupChannelMemberSchema>;

/** User ids: a channel's operators, a message's mentioned users. */
export const userIdsSchema = z.array(z.string());

/** A webhook attempt's request or response headers (`webhook_attempts.*_headers`). */
export const httpHeadersSchema = z.record(z.string(), z.string());
