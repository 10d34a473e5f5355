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
export function concreteCategories(
  enabledEvents: readonly string[],
  allCategories: readonly string[],
): string[] {
  if (enabledEvents.length === 1 && enabledEvents[0] === ALL_WEBHOOK_EVENTS)
    return [...allCategories];
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
    subscribesToAll:
      after.enabled_events.length === 1 && after.enabled_events[0] === ALL_WEBHOOK_EVENTS,
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
  if (after.enabled_events.length === 0)
    return "No category is subscribed: nothing will be delivered.";
  return null;
}

/** Plain http is allowed by the platform, but payloads then travel unencrypted. */
export function isPlainHttp(url: string): boolean {
  return /^http:\/\//i.test(url.trim());
}

export type SettingsField = keyof WebhookSettingsValues;
export const settingsFields: readonly SettingsField[] = [
  "enabled",
  "url",
  "include_members",
  "enabled_events",
];

/** A field the platform changed after the page loaded it: the three values, for the administrator to choose. */
export type StaleField = {
  field: SettingsField;
  loaded: WebhookSettingsValues[SettingsField];
  now: WebhookSettingsValues[SettingsField];
  yours: WebhookSettingsValues[SettingsField];
  /** The administrator changed it too; nothing is chosen for them. */
  editedHere: boolean;
};

/** Whose value a stale field takes: the platform's current one, or the one on the page. */
export type StaleChoice = "platform" | "yours";

function sameValue(
  field: SettingsField,
  a: WebhookSettingsValues,
  b: WebhookSettingsValues,
  allCategories: readonly string[],
) {
  if (field !== "enabled_events") return a[field] === b[field];
  const left = concreteCategories(a.enabled_events, allCategories).sort();
  const right = concreteCategories(b.enabled_events, allCategories).sort();
  return left.length === right.length && left.every((category, index) => category === right[index]);
}

/** The fields that changed on the platform between `loaded` (when the page read it) and `now`. */
export function staleFields(
  loaded: WebhookSettingsValues,
  now: WebhookSettingsValues,
  yours: WebhookSettingsValues,
  allCategories: readonly string[],
): StaleField[] {
  return settingsFields
    .filter((field) => !sameValue(field, loaded, now, allCategories))
    .map((field) => ({
      field,
      loaded: loaded[field],
      now: now[field],
      yours: yours[field],
      editedHere: !sameValue(field, loaded, yours, allCategories),
    }));
}

/**
 * The choice made for each stale field before anyone clicks: the platform's value where the
 * page left the field alone, none where both sides changed it.
 */
export function initialChoices(
  stale: readonly StaleField[],
): Partial<Record<SettingsField, StaleChoice>> {
  return Object.fromEntries(
    stale.filter((item) => !item.editedHere).map((item) => [item.field, "platform"]),
  );
}

/** What a save sends: the page's values, with the platform's where the administrator chose them. */
export function resolveStale(
  yours: WebhookSettingsValues,
  now: WebhookSettingsValues,
  choices: Partial<Record<SettingsField, StaleChoice>>,
): WebhookSettingsValues {
  const resolved = { ...yours };
  for (const field of settingsFields) {
    if (choices[field] === "platform")
      (resolved as Record<SettingsField, unknown>)[field] = now[field];
  }
  return resolved;
}
