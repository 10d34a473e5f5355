import { describe, expect, it } from "vitest";
import { webhookCategories } from "@/lib/schemas/webhooks";
import {
  concreteCategories,
  diffWebhookSettings,
  hasChanges,
  isPlainHttp,
  nothingDeliveredReason,
} from "@/lib/webhooks/settings-diff";

const all = [...webhookCategories];
const before = { enabled: false, url: "", include_members: false, enabled_events: [] as string[] };

describe("diffWebhookSettings", () => {
  it("names every changed field and the categories added and removed, in the platform's order", () => {
    const diff = diffWebhookSettings(
      { ...before, enabled_events: ["room:create", "direct_call:end"] },
      {
        enabled: true,
        url: "https://hooks.example.com/calls",
        include_members: true,
        enabled_events: ["room:delete", "direct_call:dial", "room:create"],
      },
      all,
    );
    expect(diff).toEqual({
      enabled: { from: false, to: true },
      url: { from: "", to: "https://hooks.example.com/calls" },
      includeMembers: { from: false, to: true },
      added: ["direct_call:dial", "room:delete"],
      removed: ["direct_call:end"],
      subscribesToAll: false,
    });
    expect(hasChanges(diff)).toBe(true);
  });

  it("reads * as every category the platform listed", () => {
    const diff = diffWebhookSettings({ ...before, enabled_events: ["room:create"] }, { ...before, enabled_events: ["*"] }, all);
    expect(diff.subscribesToAll).toBe(true);
    expect(diff.added).toEqual(all.filter((category) => category !== "room:create"));
    expect(diff.removed).toEqual([]);
  });

  it("finds no change when nothing changed, whatever the order of the categories", () => {
    const settings = { ...before, enabled_events: ["room:create", "direct_call:dial"] };
    const diff = diffWebhookSettings(settings, { ...settings, enabled_events: ["direct_call:dial", "room:create"] }, all);
    expect(hasChanges(diff)).toBe(false);
  });

  it("keeps a category the platform no longer lists, so removing it shows", () => {
    expect(concreteCategories(["room:create", "room:retired"], all)).toEqual(["room:create", "room:retired"]);
    const diff = diffWebhookSettings({ ...before, enabled_events: ["room:retired"] }, before, all);
    expect(diff.removed).toEqual(["room:retired"]);
  });
});

describe("warnings", () => {
  it("says why nothing would be delivered", () => {
    expect(nothingDeliveredReason({ ...before, enabled_events: ["room:create"] })).toMatch(/off/);
    expect(nothingDeliveredReason({ ...before, enabled: true, url: "https://x.test" })).toMatch(/No category/);
    expect(nothingDeliveredReason({ ...before, enabled: true, url: "https://x.test", enabled_events: ["*"] })).toBeNull();
  });

  it("spots plain http only", () => {
    expect(isPlainHttp("http://127.0.0.1:9000/hooks")).toBe(true);
    expect(isPlainHttp(" HTTP://example.com")).toBe(true);
    expect(isPlainHttp("https://example.com")).toBe(false);
    expect(isPlainHttp("")).toBe(false);
  });
});
