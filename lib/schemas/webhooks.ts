import { z } from "zod";
import { queryBoolean } from "./text-values";

/** The 13 event categories of platform interface section 6, in that section's order. */
export const webhookCategories = [
  "direct_call:dial",
  "direct_call:accept",
  "direct_call:end",
  "room:create",
  "room:delete",
  "room:participant_enter",
  "room:participant_exit",
  "room:participant_disconnect",
  "room:invitation_send",
  "room:invitation_cancel",
  "room:invitation_accept",
  "room:invitation_decline",
  "room:invitation_no_answer",
] as const;

export type WebhookCategory = (typeof webhookCategories)[number];

/** When each category fires (section 6, "Triggered when"), for the console's event picker. */
export const webhookCategoryDescriptions: Record<WebhookCategory, string> = {
  "direct_call:dial": "A direct call's signal is forwarded to the callee.",
  "direct_call:accept": "The callee accepts a direct call.",
  "direct_call:end": "The caller or callee ends a direct call.",
  "room:create": "A room is created.",
  "room:delete": "A room is deleted.",
  "room:participant_enter": "A participant enters a room.",
  "room:participant_exit": "A participant exits a room.",
  "room:participant_disconnect": "A participant is disconnected from a room.",
  "room:invitation_send": "An invitation to join a room is sent.",
  "room:invitation_cancel": "An invitation is canceled.",
  "room:invitation_accept": "A participant accepts an invitation.",
  "room:invitation_decline": "A participant declines an invitation.",
  "room:invitation_no_answer": "A participant neither accepts nor declines an invitation.",
};

export type WebhookCategoryGroup = {
  id: "direct_calls" | "group_calls";
  label: string;
  categories: readonly WebhookCategory[];
};

export const webhookCategoryGroups: readonly WebhookCategoryGroup[] = [
  {
    id: "direct_calls",
    label: "Direct calls",
    categories: webhookCategories.filter(isDirectCallCategory),
  },
  {
    id: "group_calls",
    label: "Group calls",
    categories: webhookCategories.filter((category) => !isDirectCallCategory(category)),
  },
];

function isDirectCallCategory(category: WebhookCategory): boolean {
  return category.startsWith("direct_call:");
}

/** The single `enabled_events` element that subscribes to every category. */
export const ALL_WEBHOOK_EVENTS = "*";
export const WEBHOOK_URL_MAX = 2048;

const knownCategories: ReadonlySet<string> = new Set(webhookCategories);

/** An absolute http(s) URL, or "" for none. */
export const webhookUrlSchema = z
  .string()
  .max(WEBHOOK_URL_MAX, { error: `"url" must be at most ${WEBHOOK_URL_MAX} characters long.` })
  .refine((url) => url === "" || isHttpUrl(url), {
    error: '"url" must be an absolute http or https URL, or empty.',
  });

function isHttpUrl(value: string): boolean {
  if (!/^https?:\/\/\S+$/i.test(value)) return false;
  return URL.canParse(value) && new URL(value).hostname !== "";
}

/**
 * Subscribed categories. `["*"]` alone means every category; the result is always the
 * concrete list, without duplicates, in section 6 order, so what is stored and shown
 * never depends on how the client spelled it.
 */
export const enabledEventsSchema = z
  .array(z.string())
  .superRefine((events, ctx) => {
    if (events.includes(ALL_WEBHOOK_EVENTS) && events.length > 1) {
      ctx.addIssue({
        code: "custom",
        path: [events.indexOf(ALL_WEBHOOK_EVENTS)],
        message: '"enabled_events": "*" must be the only element to subscribe to all events.',
      });
      return;
    }
    events.forEach((event, index) => {
      if (event !== ALL_WEBHOOK_EVENTS && !knownCategories.has(event)) {
        ctx.addIssue({
          code: "custom",
          path: [index],
          message: `"enabled_events": unknown event category "${event}".`,
        });
      }
    });
  })
  .transform((events): WebhookCategory[] =>
    events.includes(ALL_WEBHOOK_EVENTS)
      ? [...webhookCategories]
      : webhookCategories.filter((category) => events.includes(category)),
  );

const settingsObject = z.object({
  enabled: z.boolean(),
  url: webhookUrlSchema,
  include_members: z.boolean(),
  enabled_events: enabledEventsSchema,
});
const enabledNeedsUrl = (settings: { enabled: boolean; url: string }) =>
  !(settings.enabled && settings.url === "");
const urlRequired = { path: ["url"], error: '"url" is required to enable webhooks.' };

/** The stored configuration (section 2.1), whole. */
export const webhookSettingsSchema = settingsObject.refine(enabledNeedsUrl, urlRequired);

/**
 * The configuration as the console sends it to a platform: the same rules, except that the
 * categories are the platform's to judge. It may list categories added after this was written,
 * which the form offers like any other, and `["*"]` reaches it as typed.
 */
export const webhookSettingsRequestSchema = settingsObject
  .extend({ enabled_events: z.array(z.string()) })
  .refine(enabledNeedsUrl, urlRequired);

export type WebhookSettings = z.output<typeof webhookSettingsSchema>;
/** As stored or typed in: `enabled_events` may still hold `*` or any order. */
export type WebhookSettingsInput = z.input<typeof webhookSettingsSchema>;

/**
 * `PUT .../settings/webhook` body (section 4.2). Properties left out keep their stored
 * values, so the "enabled needs a url" rule is checked again on the merged result with
 * `mergeWebhookSettings`. That the body's `application_id` equals the path's is the
 * caller's check: a form knows the application, the sandbox knows the path.
 */
export const webhookSettingsUpdateSchema = z
  .object({
    application_id: z.string(),
    enabled: z.boolean().optional(),
    url: webhookUrlSchema.optional(),
    include_members: z.boolean().optional(),
    enabled_events: enabledEventsSchema.optional(),
  })
  .refine((update) => !(update.enabled === true && update.url === ""), {
    path: ["url"],
    error: '"url" is required to enable webhooks.',
  });

export type WebhookSettingsUpdateInput = z.input<typeof webhookSettingsUpdateSchema>;
export type WebhookSettingsUpdate = z.output<typeof webhookSettingsUpdateSchema>;

/** The stored settings with an update applied; validate the result with `webhookSettingsSchema`. */
export function mergeWebhookSettings(
  stored: WebhookSettingsInput,
  update: WebhookSettingsUpdate,
): WebhookSettingsInput {
  return {
    enabled: update.enabled ?? stored.enabled,
    url: update.url ?? stored.url,
    include_members: update.include_members ?? stored.include_members,
    enabled_events: update.enabled_events ?? stored.enabled_events,
  };
}

/** `GET .../settings/webhook` query; the flag arrives as text. */
export const webhookSettingsQuerySchema = z.object({
  display_all_webhook_categories: queryBoolean().default(false),
});

/** `GET .../settings/webhook` response (section 4.1). */
export type WebhookSettingsResponse = {
  webhook: WebhookSettings & { all_webhook_categories?: WebhookCategory[] };
};

/** `PUT .../settings/webhook` response: the bare object, not wrapped in `webhook` (section 4.2). */
export type WebhookSettingsUpdateResponse = WebhookSettings;

/**
 * The settings as any platform may answer them, for the console's client: categories are
 * plain strings, since a platform may know categories added after this was written.
 */
export const webhookSettingsAnswerSchema = z.object({
  enabled: z.boolean(),
  url: z.string(),
  include_members: z.boolean(),
  enabled_events: z.array(z.string()),
});

export const webhookSettingsAnswerResponseSchema = z.object({
  webhook: webhookSettingsAnswerSchema.extend({
    all_webhook_categories: z.array(z.string()).optional(),
  }),
});
