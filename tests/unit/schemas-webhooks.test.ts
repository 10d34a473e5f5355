import { describe, expect, it } from "vitest";
import { firstPlatformIssue } from "@/lib/schemas/platform-errors";
import {
  enabledEventsSchema,
  mergeWebhookSettings,
  webhookCategories,
  webhookCategoryDescriptions,
  webhookCategoryGroups,
  webhookSettingsQuerySchema,
  webhookSettingsSchema,
  webhookSettingsUpdateSchema,
  webhookUrlSchema,
} from "@/lib/schemas/webhooks";
import type { z } from "zod";

function issueOf(schema: z.ZodType, input: unknown) {
  const result = schema.safeParse(input);
  if (result.success) throw new Error(`expected ${JSON.stringify(input)} to be refused`);
  return firstPlatformIssue(result.error, input);
}

const stored = { enabled: false, url: "", include_members: false, enabled_events: [] };

describe("webhook categories", () => {
  it("are the 13 of section 6, in its order", () => {
    expect(webhookCategories).toEqual([
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
    ]);
  });

  it("each have a description and belong to exactly one group", () => {
    for (const category of webhookCategories)
      expect(webhookCategoryDescriptions[category]).toMatch(/\.$/);
    expect(webhookCategoryGroups.map((group) => group.id)).toEqual(["direct_calls", "group_calls"]);
    expect(webhookCategoryGroups.flatMap((group) => group.categories)).toEqual(webhookCategories);
    expect(webhookCategoryGroups[0]?.categories).toEqual([
      "direct_call:dial",
      "direct_call:accept",
      "direct_call:end",
    ]);
  });
});

describe("enabledEventsSchema", () => {
  it('expands ["*"] to every category', () => {
    expect(enabledEventsSchema.parse(["*"])).toEqual([...webhookCategories]);
  });

  it("accepts [] and lists categories once, in section 6 order", () => {
    expect(enabledEventsSchema.parse([])).toEqual([]);
    expect(enabledEventsSchema.parse(["room:delete", "direct_call:dial", "room:delete"])).toEqual([
      "direct_call:dial",
      "room:delete",
    ]);
  });

  it.each([
    [["*", "room:create"], 400111],
    [["room:create", "*"], 400111],
    [["*", "*"], 400111],
    [["room:explode"], 400111],
    [["ROOM:CREATE"], 400111],
    [[3], 400100],
    ["*", 400100],
  ])("refuses %j", (input, code) => {
    expect(issueOf(enabledEventsSchema, input).code).toBe(code);
  });
});

describe("webhookUrlSchema", () => {
  it.each([
    "",
    "http://example.com",
    "https://hooks.example.com:8443/a?b=c",
    "HTTPS://EXAMPLE.COM/x",
  ])("accepts %j", (url) => {
    expect(webhookUrlSchema.parse(url)).toBe(url);
  });

  it.each([
    "example.com",
    "/hook",
    "ftp://example.com",
    "https://",
    "http:example.com",
    " https://example.com",
    "https://a b.com",
  ])("refuses %j with 400111", (url) => {
    expect(issueOf(webhookUrlSchema, url).code).toBe(400111);
  });

  it("refuses more than 2048 characters with 400110", () => {
    const url = `https://example.com/${"a".repeat(2048 - 20)}`;
    expect(webhookUrlSchema.safeParse(url).success).toBe(true);
    expect(issueOf(webhookUrlSchema, `${url}a`).code).toBe(400110);
  });
});

describe("webhookSettingsUpdateSchema", () => {
  it("requires application_id and leaves the other properties out when not sent", () => {
    expect(webhookSettingsUpdateSchema.parse({ application_id: "local", extra: 1 })).toEqual({
      application_id: "local",
    });
    expect(issueOf(webhookSettingsUpdateSchema, {})).toMatchObject({
      code: 400105,
      field: "application_id",
    });
  });

  it("refuses enabling with an empty url in the same body", () => {
    expect(
      issueOf(webhookSettingsUpdateSchema, { application_id: "a", enabled: true, url: "" }),
    ).toMatchObject({
      code: 400111,
      field: "url",
    });
  });

  it.each([
    [{ application_id: "a", enabled: "yes" }, 400100, "enabled"],
    [{ application_id: "a", include_members: null }, 400100, "include_members"],
    [{ application_id: 1 }, 400100, "application_id"],
  ])("refuses %j", (input, code, field) => {
    expect(issueOf(webhookSettingsUpdateSchema, input)).toMatchObject({ code, field });
  });
});

describe("mergeWebhookSettings", () => {
  it("keeps stored values for properties left out", () => {
    const current = {
      enabled: true,
      url: "https://example.com",
      include_members: true,
      enabled_events: ["room:create"],
    };
    const update = webhookSettingsUpdateSchema.parse({ application_id: "a", enabled: false });
    expect(mergeWebhookSettings(current, update)).toEqual({ ...current, enabled: false });
  });

  it("leaves a merged result that enables webhooks without a url for the settings schema to refuse", () => {
    const update = webhookSettingsUpdateSchema.parse({ application_id: "a", enabled: true });
    const merged = mergeWebhookSettings(stored, update);
    expect(issueOf(webhookSettingsSchema, merged)).toMatchObject({ code: 400111, field: "url" });
  });
});

describe("webhookSettingsQuerySchema", () => {
  it("reads display_all_webhook_categories as true or false, default false", () => {
    expect(webhookSettingsQuerySchema.parse({})).toEqual({ display_all_webhook_categories: false });
    expect(webhookSettingsQuerySchema.parse({ display_all_webhook_categories: "true" })).toEqual({
      display_all_webhook_categories: true,
    });
    expect(issueOf(webhookSettingsQuerySchema, { display_all_webhook_categories: "1" }).code).toBe(
      400100,
    );
  });
});
