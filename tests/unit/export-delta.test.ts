import { describe, expect, it } from "vitest";
import { exportDelta } from "@/lib/imports/export-flow/delta";
import type { JobPlan } from "@/lib/imports/types";

const plan = (overrides: Partial<JobPlan>): JobPlan =>
  ({ toCreate: 0, existing: 0, invalid: 0, excluded: 0, warnings: 0, ...overrides }) as JobPlan;

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
    const messages = plan({
      toCreate: 412,
      existing: 38_000,
      invalid: 2,
      messages: {
        earlier: { imported: 38_000, changed: 3, newReactions: 5 },
      } as JobPlan["messages"],
    });
    expect(
      exportDelta({ users: plan({ toCreate: 3, existing: 120 }), messages, group_channels: null }),
    ).toEqual([
      { resource: "users", words: "3 new (120 already on the platform)" },
      {
        resource: "messages",
        words:
          "412 new (38,000 sent by an earlier import; 3 changed since, kept as first sent; 5 with new reactions, added; 2 left out (see the plan))",
      },
      { resource: "group_channels", words: "being planned…" },
    ]);
  });
});
