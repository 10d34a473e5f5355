"use server";

import { z } from "zod";
import {
  getPlatformClient,
  getPlatformTarget,
  getTargetApiToken,
  PlatformError,
  type PlatformTarget,
} from "@/lib/platform";
import {
  emitEventSchema,
  playDirectCallSchema,
  playRoomSchema,
} from "@/lib/schemas/sandbox-events";
import { samplePayload, type WebhookPayload } from "@/lib/schemas/webhook-payloads";
import { webhookCategories, webhookSettingsRequestSchema } from "@/lib/schemas/webhooks";
import { findTestDelivery, startTestDelivery } from "@/lib/webhooks/console-test-deliveries";
import { deliveryLogFilterSchema } from "@/lib/webhooks/delivery-log";
import type { WebhookSettingsValues } from "@/lib/webhooks/settings-diff";
import { payloadToOverrides } from "@/lib/webhooks/test-event";
import { ActionError, adminAction } from "./safe-action";

/**
 * The form's values as typed: `enabled_events` may be `["*"]`, which is sent as is so the
 * platform subscribes to everything, and may hold categories the platform added after this
 * console was written; the platform judges them (webhookSettingsRequestSchema).
 */
const saveSettingsSchema = z
  .object({
    enabled: z.boolean(),
    url: z.string().trim(),
    include_members: z.boolean(),
    enabled_events: z.array(z.string()),
    /** The target the form read and its confirmation named: refused if the console moved on. */
    targetId: z.string().max(300).optional(),
  })
  .superRefine(({ targetId: _targetId, ...input }, ctx) => {
    const checked = webhookSettingsRequestSchema.safeParse(input);
    if (checked.success) return;
    for (const issue of checked.error.issues)
      ctx.addIssue({ code: "custom", path: issue.path, message: issue.message });
  });

export const saveWebhookSettings = adminAction(saveSettingsSchema, async (form) => {
  const { targetId, ...input } = form;
  const target = await getPlatformTarget();
  if (targetId !== undefined && targetId !== target.id)
    throw new ActionError(
      `The console now works on ${target.name} (chosen in another tab or window), not on the target this page showed. Nothing was saved: reload the page.`,
    );
  const client = await getPlatformClient();
  try {
    const saved = await client.webhooks.updateSettings(input);
    return {
      settings: {
        enabled: saved.enabled,
        url: saved.url,
        include_members: saved.include_members ?? input.include_members,
        enabled_events: saved.enabled_events,
      } satisfies WebhookSettingsValues,
    };
  } catch (error) {
    if (error instanceof PlatformError && error.kind === "http") {
      // The platform's words and code, beside the field they are about.
      const code = error.code === null ? `HTTP ${error.status}` : `code ${error.code}`;
      throw new ActionError(`${error.message} (${code})`, {
        field: settingsFieldOf(error.message),
      });
    }
    throw error;
  }
});

function settingsFieldOf(message: string): "url" | "enabled_events" | undefined {
  if (message.includes("enabled_events")) return "enabled_events";
  if (/\burl\b/i.test(message)) return "url";
  return undefined;
}

export type TestEventResult = {
  deliveryId: string | null;
  delivered: boolean;
  via: "sandbox" | "console";
  message: string;
};

/**
 * Sends one test event. The sandbox builds it from the overrides (which reproduce the
 * previewed payload exactly) and delivers it as any event; a remote platform cannot emit
 * one, so the console posts it to the configured URL itself.
 */
export const sendTestEvent = adminAction(emitEventSchema, async ({ category, ...overrides }) => {
  const target = await getPlatformTarget();
  return dispatch(target, samplePayload(category, target.appId, overrides));
});

async function dispatch(target: PlatformTarget, payload: WebhookPayload): Promise<TestEventResult> {
  const client = await getPlatformClient();
  if (target.kind === "sandbox") {
    const emitted = await client.sandbox.emitEvent({
      category: payload.category,
      ...payloadToOverrides(payload),
    });
    return {
      deliveryId: emitted.delivered ? emitted.event_id : null,
      delivered: emitted.delivered,
      via: "sandbox",
      message: emitted.delivered
        ? `The sandbox accepted the ${payload.category} event for delivery.`
        : `Not sent: webhooks are off, or ${payload.category} is not subscribed. Subscribe to it and save first.`,
    };
  }
  const { webhook } = await client.webhooks.getSettings();
  if (!webhook.url)
    throw new ActionError("Save an endpoint URL first: there is nowhere to send the event.");
  // Signed with the target's own token, as that platform signs its deliveries.
  const deliveryId = await startTestDelivery(
    target.id,
    webhook.url,
    payload,
    await getTargetApiToken(target.id),
  );
  return {
    deliveryId,
    delivered: true,
    via: "console",
    message: `The console is posting the ${payload.category} event to ${webhook.url} itself (a remote platform cannot emit test events).`,
  };
}

/** Sends a logged event's payload again, as a new delivery to the endpoint configured now. */
export const resendWebhookDelivery = adminAction(
  z.object({ id: z.string().min(1).max(100) }),
  async ({ id }) => {
    const target = await getPlatformTarget();
    let payload: Record<string, unknown> | undefined;
    if (target.kind === "sandbox") {
      const client = await getPlatformClient();
      const { deliveries } = await client.sandbox.deliveries({ event_id: id, limit: 1 });
      payload = deliveries[0]?.payload;
    } else {
      payload = (await findTestDelivery(target.id, id))?.payload;
    }
    if (!payload) throw new ActionError("That delivery is no longer in the log. Reload the page.");
    const category = z.enum(webhookCategories).safeParse(payload.category);
    if (!category.success)
      throw new ActionError(`The console cannot rebuild a "${String(payload.category)}" event.`);
    return dispatch(target, payload as unknown as WebhookPayload);
  },
);

/**
 * Sends again every delivery the log's filter selects ("recover all failed since…"), as new
 * deliveries to the endpoint configured now. Sandbox only: a remote platform keeps no log.
 */
export const resendSelectedDeliveries = adminAction(deliveryLogFilterSchema, async (filter) => {
  await requireSandbox(
    "Sending a selection again works on the sandbox's log; a remote platform keeps none.",
  );
  const client = await getPlatformClient();
  const { count } = await client.sandbox.resendDeliveries(
    filter as Parameters<typeof client.sandbox.resendDeliveries>[0],
  );
  return { count };
});

async function requireSandbox(
  message = "Playing calls is a sandbox operation; the console is connected to a remote platform.",
): Promise<void> {
  const target = await getPlatformTarget();
  if (target.kind !== "sandbox") {
    throw new ActionError(message);
  }
}

export const playSandboxDirectCall = adminAction(playDirectCallSchema, async (input) => {
  await requireSandbox();
  const client = await getPlatformClient();
  return client.sandbox.playDirectCall(input);
});

export const playSandboxGroupCall = adminAction(playRoomSchema, async (input) => {
  await requireSandbox();
  const client = await getPlatformClient();
  return client.sandbox.playRoom(input);
});
