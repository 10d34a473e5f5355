import { describe, expect, it } from "vitest";
import { webhookCategories } from "@/lib/schemas/webhooks";
import {
  concreteCategories,
  diffWebhookSettings,
  hasChanges,
  initialChoices,
  resolveStale,
  staleFields,
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
    const diff = diffWebhookSettings(
      { ...before, enabled_events: ["room:create"] },
      { ...before, enabled_events: ["*"] },
      all,
    );
    expect(diff.subscribesToAll).toBe(true);
    expect(diff.added).toEqual(all.filter((category) => category !== "room:create"));
    expect(diff.removed).toEqual([]);
  });

  it("finds no change when nothing changed, whatever the order of the categories", () => {
    const settings = { ...before, enabled_events: ["room:create", "direct_call:dial"] };
    const diff = diffWebhookSettings(
      settings,
      { ...settings, enabled_events: ["direct_call:dial", "room:create"] },
      all,
    );
    expect(hasChanges(diff)).toBe(false);
  });

  it("keeps a category the platform no longer lists, so removing it shows", () => {
    expect(concreteCategories(["room:create", "room:retired"], all)).toEqual([
      "room:create",
      "room:retired",
    ]);
    const diff = diffWebhookSettings({ ...before, enabled_events: ["room:retired"] }, before, all);
    expect(diff.removed).toEqual(["room:retired"]);
  });
});

describe("warnings", () => {
  it("says why nothing would be delivered", () => {
    expect(nothingDeliveredReason({ ...before, enabled_events: ["room:create"] })).toMatch(/off/);
    expect(nothingDeliveredReason({ ...before, enabled: true, url: "https://x.test" })).toMatch(
      /No category/,
    );
    expect(
      nothingDeliveredReason({
        ...before,
        enabled: true,
        url: "https://x.test",
        enabled_events: ["*"],
      }),
    ).toBeNull();
  });

  it("spots plain http only", () => {
    expect(isPlainHttp("http://127.0.0.1:9000/hooks")).toBe(true);
    expect(isPlainHttp(" HTTP://example.com")).toBe(true);
    expect(isPlainHttp("https://example.com")).toBe(false);
    expect(isPlainHttp("")).toBe(false);
  });
});

describe("a save from a stale page", () => {
  const all = ["direct_call:dial", "direct_call:end", "room:create"];
  const loaded = {
    enabled: true,
    url: "https://old.example/hooks",
    include_members: false,
    enabled_events: ["direct_call:dial"],
  };
  const now = { ...loaded, url: "https://new.example/hooks", enabled_events: ["room:create"] };

  it("finds the fields the platform changed, with loaded, current and page values", () => {
    const yours = { ...loaded, include_members: true };
    const stale = staleFields(loaded, now, yours, all);
    expect(stale).toEqual([
      { field: "url", loaded: loaded.url, now: now.url, yours: loaded.url, editedHere: false },
      {
        field: "enabled_events",
        loaded: loaded.enabled_events,
        now: now.enabled_events,
        yours: loaded.enabled_events,
        editedHere: false,
      },
    ]);
    // Left alone on the page: the platform's values are kept; the page's own edit goes through.
    const choices = initialChoices(stale);
    expect(resolveStale(yours, now, choices)).toEqual({ ...now, include_members: true });
  });

  it("chooses nothing for a field both sides changed", () => {
    const yours = { ...loaded, url: "https://mine.example/hooks" };
    const stale = staleFields(loaded, now, yours, all);
    expect(stale.find((item) => item.field === "url")).toMatchObject({ editedHere: true });
    expect(initialChoices(stale)).toEqual({ enabled_events: "platform" });
    expect(resolveStale(yours, now, { url: "yours", enabled_events: "platform" }).url).toBe(
      "https://mine.example/hooks",
    );
  });

  it("sees no change when * and the full list mean the same categories", () => {
    expect(
      staleFields(
        { ...loaded, enabled_events: ["*"] },
        { ...loaded, enabled_events: all },
        loaded,
        all,
      ),
    ).toEqual([]);
  });
});
