import { ALL_WEBHOOK_EVENTS } from "@/lib/schemas/webhooks";

/** The webhook configuration as the platform answers it (section 2.1). */
export type WebhookSettingsValues = {
  enabled: boolean;
  url: string;
  include_members: boolean;
  enabled_events: string[];
};

export type Change<T> = { from: T; to: T };

/** What a save would change, for the confirmation before it. */
export type WebhookSettingsDiff = {
  enabled: Change<boolean> | null;
  url: Change<string> | null;
  includeMembers: Change<boolean> | null;
  /** Categories subscribed after the save that were not before, in the platform's order. */
  added: string[];
  removed: string[];
  /** The form asked for `["*"]`: every category the platform lists. */
  subscribesToAll: boolean;
};

/**
 * The concrete categories a value of `enabled_events` stands for: `["*"]` is every category
 * the platform listed, anything else is itself. Kept in the platform's order.
 */
export function concreteCategories(enabledEvents: readonly string[], allCategories: readonly string[]): string[] {
  if (enabledEvents.length === 1 && enabledEvents[0] === ALL_WEBHOOK_EVENTS) return [...allCategories];
  const chosen = new Set(enabledEvents);
  const known = allCategories.filter((category) => chosen.has(category));
  // A category the platform no longer lists still shows, so removing it is visible.
  const unknown = enabledEvents.filter((event) => !allCategories.includes(event));
  return [...known, ...unknown];
}

export function diffWebhookSettings(
  before: WebhookSettingsValues,
  after: WebhookSettingsValues,
  allCategories: readonly string[],
): WebhookSettingsDiff {
  const beforeEvents = concreteCategories(before.enabled_events, allCategories);
  const afterEvents = concreteCategories(after.enabled_events, allCategories);
  const change = <T>(from: T, to: T): Change<T> | null => (from === to ? null : { from, to });
  return {
    enabled: change(before.enabled, after.enabled),
    url: change(before.url, after.url),
    includeMembers: change(before.include_members, after.include_members),
    added: afterEvents.filter((category) => !beforeEvents.includes(category)),
    removed: beforeEvents.filter((category) => !afterEvents.includes(category)),
    subscribesToAll: after.enabled_events.length === 1 && after.enabled_events[0] === ALL_WEBHOOK_EVENTS,
  };
}

export function hasChanges(diff: WebhookSettingsDiff): boolean {
  return (
    diff.enabled !== null ||
    diff.url !== null ||
    diff.includeMembers !== null ||
    diff.added.length > 0 ||
    diff.removed.length > 0 ||
    diff.subscribesToAll
  );
}

/** Why nothing would be delivered after the save, or null when something would be. */
export function nothingDeliveredReason(after: WebhookSettingsValues): string | null {
  if (!after.enabled) return "Webhooks are off: nothing will be delivered.";
  if (after.enabled_events.length === 0) return "No category is subscribed: nothing will be delivered.";
  return null;
}

/** Plain http is allowed by the platform, but payloads then travel unencrypted. */
export function isPlainHttp(url: string): boolean {
  return /^http:\/\//i.test(url.trim());
}
