import { describe, expect, it } from "vitest";
import { exportDelta } from "@/lib/imports/export-flow/delta";
import type { EarlierMessages, JobPlan } from "@/lib/imports/types";

const plan = (overrides: Partial<JobPlan>): JobPlan =>
  ({ toCreate: 0, existing: 0, invalid: 0, excluded: 0, warnings: 0, ...overrides }) as JobPlan;

const messagesPlan = (toCreate: number, earlier: EarlierMessages, invalid = 0) =>
  plan({
    toCreate,
    existing: earlier.imported,
    invalid,
    messages: { earlier } as JobPlan["messages"],
  });

describe("what an export adds, from its imports' plans", () => {
  it("says everything is new for a first export", () => {
    expect(
      exportDelta({ users: plan({ toCreate: 120 }), group_channels: plan({ toCreate: 12 }) }),
    ).toEqual([
      { resource: "users", words: "120 new" },
      { resource: "group_channels", words: "12 new" },
    ]);
  });

  it("says what a newer export adds beside what is there, and what changed", () => {
    const messages = messagesPlan(
      412,
      { imported: 38_000, changed: 3, keptAsSent: 1, newReactions: 5 },
      2,
    );
    expect(
      exportDelta({ users: plan({ toCreate: 3, existing: 120 }), messages, group_channels: null }),
    ).toEqual([
      { resource: "users", words: "3 new (120 already on the platform)" },
      {
        resource: "messages",
        words:
          "412 new, 3 changed (38,000 sent by an earlier import; 1 changed in what the platform cannot update (sender, kind or file), kept as first sent; 5 with new reactions, added; 2 left out (see the plan))",
      },
      { resource: "group_channels", words: "being planned…" },
    ]);
  });

  it("counts the edits a newer export carries as changed, and says 0 changed when there are none", () => {
    const words = (earlier: EarlierMessages) =>
      exportDelta({ messages: messagesPlan(2, earlier) })[0]!.words;
    expect(words({ imported: 40, changed: 1, keptAsSent: 0, newReactions: 0 })).toBe(
      "2 new, 1 changed (40 sent by an earlier import)",
    );
    expect(words({ imported: 40, changed: 0, keptAsSent: 0, newReactions: 0 })).toBe(
      "2 new, 0 changed (40 sent by an earlier import)",
    );
  });

  it("reads a plan made before edits were carried: its changes were all kept as first sent", () => {
    expect(
      exportDelta({ messages: messagesPlan(2, { imported: 40, changed: 3, newReactions: 0 }) })[0]!
        .words,
    ).toBe(
      "2 new, 0 changed (40 sent by an earlier import; 3 changed in what the platform cannot update (sender, kind or file), kept as first sent)",
    );
  });
});
