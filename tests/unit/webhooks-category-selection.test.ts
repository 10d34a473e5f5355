import { describe, expect, it } from "vitest";
import { webhookCategories } from "@/lib/schemas/webhooks";
import {
  categoryDescription,
  filterCategories,
  groupCategories,
  nextSelectAll,
  selectionState,
  setCategories,
} from "@/lib/webhooks/category-selection";

const all = [...webhookCategories];
const direct = ["direct_call:dial", "direct_call:accept", "direct_call:end"];

describe("groupCategories", () => {
  it("groups what the platform lists by prefix into Direct calls and Group calls, in its order", () => {
    const groups = groupCategories(all);
    expect(groups.map((group) => group.label)).toEqual(["Direct calls", "Group calls"]);
    expect(groups[0]!.categories).toEqual(direct);
    expect(groups[1]!.categories).toHaveLength(10);
  });

  it("shows a category the console does not know in a group of its own, with a fallback description", () => {
    const groups = groupCategories([...all, "recording:ready"]);
    expect(groups.at(-1)).toEqual({
      id: "recording",
      label: "Other (recording)",
      categories: ["recording:ready"],
    });
    expect(categoryDescription("recording:ready")).toMatch(/no description/);
    expect(categoryDescription("room:create")).toBe("A room is created.");
  });
});

describe("select-all state", () => {
  it("is tri-state: none, some, all", () => {
    expect(selectionState([], direct)).toBe(false);
    expect(selectionState(["direct_call:end", "room:create"], direct)).toBe("indeterminate");
    expect(selectionState(direct, direct)).toBe(true);
    expect(selectionState(["room:create"], [])).toBe(false);
  });

  it("selects all from none or some, and clears from all", () => {
    expect(nextSelectAll(false)).toBe(true);
    expect(nextSelectAll("indeterminate")).toBe(true);
    expect(nextSelectAll(true)).toBe(false);
  });

  it("changes only the given categories and keeps the platform's order", () => {
    expect(setCategories(["room:delete"], direct, true, all)).toEqual([...direct, "room:delete"]);
    expect(setCategories([...direct, "room:delete"], direct, false, all)).toEqual(["room:delete"]);
    expect(setCategories(["room:create"], ["direct_call:end"], true, all)).toEqual([
      "direct_call:end",
      "room:create",
    ]);
  });
});

describe("filterCategories", () => {
  it("matches every word against the name and the description, ignoring case", () => {
    expect(filterCategories(all, "")).toEqual(all);
    expect(filterCategories(all, "DIAL")).toEqual(["direct_call:dial"]);
    // "neither accepts nor declines" mentions accepting too.
    expect(filterCategories(all, "invitation accept")).toEqual([
      "room:invitation_accept",
      "room:invitation_no_answer",
    ]);
    expect(filterCategories(all, "callee")).toEqual([
      "direct_call:dial",
      "direct_call:accept",
      "direct_call:end",
    ]);
    expect(filterCategories(all, "nothing-like-this")).toEqual([]);
  });
});
