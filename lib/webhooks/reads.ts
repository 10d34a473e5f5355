import "server-only";
import {
  getPlatformClient,
  getPlatformTarget,
  type PlatformTarget,
  type SandboxDelivery,
} from "@/lib/platform";
import { hostWarning } from "@/lib/delivery/address-guard";
import { env } from "@/lib/env";
import type { DeliveryCounts, EndpointHealth } from "@/lib/schemas/sandbox-events";
import { listTestDeliveries } from "./console-test-deliveries";
import {
  deliveryOutcome,
  type DeliveryLogEntry,
  type DeliveryLogFilter,
  type DeliveryLogPage,
} from "./delivery-log";
import type { WebhookSettingsValues } from "./settings-diff";

/** What the console reads for the Webhooks page: one function per read, used by route handlers and prefetch. */

export type WebhookSettingsView = {
  settings: WebhookSettingsValues;
  /** Every category the platform supports, as it answered (never a list of our own). */
  allCategories: string[];
  /** The target the settings were read from, as the save confirmation names it. */
  target: Pick<PlatformTarget, "id" | "name" | "kind" | "environment" | "appId">;
};

export async function readWebhookSettings(): Promise<WebhookSettingsView> {
  const [client, target] = await Promise.all([getPlatformClient(), getPlatformTarget()]);
  const { webhook } = await client.webhooks.getSettings({ displayAllCategories: true });
  const { all_webhook_categories: allCategories = [], ...settings } = webhook;
  return {
    settings: {
      enabled: settings.enabled,
      url: settings.url,
      include_members: settings.include_members ?? false,
      enabled_events: settings.enabled_events,
    },
    allCategories,
    target: {
      id: target.id,
      name: target.name,
      kind: target.kind,
      environment: target.environment,
      appId: target.appId,
    },
  };
}

/** A page of the delivery log: the sandbox's own, or the console's test deliveries against a remote platform. */
export async function readDeliveryLog(
  filter: DeliveryLogFilter & { limit: number; token?: string },
): Promise<DeliveryLogPage> {
  const target = await getPlatformTarget();
  if (target.kind === "remote") return listTestDeliveries(target.id, filter);
  const client = await getPlatformClient();
  const { deliveries, next } = await client.sandbox.deliveries(
    filter as Parameters<typeof client.sandbox.deliveries>[0],
  );
  return { source: "sandbox", entries: deliveries.flatMap(toLogEntry), next };
}

/** Deliveries per outcome for the filter (sandbox only: a remote platform keeps no log). */
export async function readDeliveryCounts(
  filter: DeliveryLogFilter,
): Promise<{ counts: DeliveryCounts | null }> {
  const target = await getPlatformTarget();
  if (target.kind === "remote") return { counts: null };
  const client = await getPlatformClient();
  return client.sandbox.deliveryCounts(
    filter as Parameters<typeof client.sandbox.deliveryCounts>[0],
  );
}

export async function readEndpointHealth(): Promise<{ health: EndpointHealth | null }> {
  const target = await getPlatformTarget();
  if (target.kind === "remote") return { health: null };
  const client = await getPlatformClient();
  return client.sandbox.endpointHealth();
}

/** Whether deliveries to a URL would be refused by the address guard, checked now (DNS included). */
export async function readUrlWarning(
  url: string,
): Promise<{ warning: string | null; allowed: boolean }> {
  const e = env();
  const strict = await hostWarning(url, { allowLoopback: false, allowPrivate: false });
  if (!strict) return { warning: null, allowed: true };
  const policy = { allowLoopback: e.WEBHOOK_ALLOW_LOOPBACK, allowPrivate: e.WEBHOOK_ALLOW_PRIVATE };
  return { warning: strict, allowed: (await hostWarning(url, policy)) === null };
}

function toLogEntry(delivery: SandboxDelivery): DeliveryLogEntry[] {
  if (delivery.status === "not_subscribed") return [];
  return [
    {
      id: delivery.event_id,
      source: "sandbox",
      category: delivery.category,
      url: delivery.url,
      status: delivery.status,
      outcome:
        delivery.outcome ??
        deliveryOutcome({ status: delivery.status, attempts: delivery.attempts }),
      createdAt: delivery.created_at,
      payload: delivery.payload,
      attempts: delivery.attempts,
    },
  ];
}
