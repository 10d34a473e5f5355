import {
  mergeWebhookSettings,
  webhookCategories,
  webhookSettingsQuerySchema,
  webhookSettingsSchema,
  webhookSettingsUpdateSchema,
  type WebhookSettingsResponse,
  type WebhookSettingsUpdateResponse,
} from "@/lib/schemas/webhooks";
import { updateWebhookSettings } from "../applications";
import type { SandboxContext, SandboxRouter } from "../context";
import { ErrorCode, SandboxError } from "../errors";
import { parseWith, readJsonObject } from "../request";

const path = "/v1/applications/:application_id/settings/webhook";

/** Webhook configuration (platform interface 4.1 and 4.2), stored in `sandbox_apps.webhook`. */
export function registerWebhookSettingsRoutes(api: SandboxRouter): void {
  api.get(path, async (c) => {
    requireOwnApplication(c);
    const query = parseWith(webhookSettingsQuerySchema, c.req.query());
    // Only validated settings are ever stored; parsing again types them and drops stray keys.
    const webhook: WebhookSettingsResponse["webhook"] = webhookSettingsSchema.parse(
      c.get("app").webhook,
    );
    if (query.display_all_webhook_categories)
      webhook.all_webhook_categories = [...webhookCategories];
    return c.json({ webhook } satisfies WebhookSettingsResponse);
  });

  api.put(path, async (c) => {
    const applicationId = requireOwnApplication(c);
    const update = parseWith(webhookSettingsUpdateSchema, await readJsonObject(c));
    if (update.application_id !== applicationId) {
      throw new SandboxError(
        ErrorCode.invalidValue,
        '"application_id" must be the application of the path.',
      );
    }
    const settings = await updateWebhookSettings(c.get("db"), applicationId, (stored) =>
      parseWith(webhookSettingsSchema, mergeWebhookSettings(stored, update)),
    );
    if (!settings) throw noSuchApplication(applicationId);
    return c.json(settings satisfies WebhookSettingsUpdateResponse);
  });
}

/**
 * The path names the application again; this base URL and token serve one application
 * only, so another id is an application this client does not have (docs/sandbox.md).
 */
function requireOwnApplication(c: SandboxContext): string {
  const applicationId = c.req.param("application_id") ?? "";
  if (applicationId !== c.get("app").id) throw noSuchApplication(applicationId);
  return applicationId;
}

function noSuchApplication(applicationId: string): SandboxError {
  return new SandboxError(
    ErrorCode.noSuchApplication,
    `No application with id "${applicationId}".`,
  );
}
