import { describe, expect, it } from "vitest";
import { failureReason, rowNotDone } from "@/lib/imports/jobs/report/report";
import type { ImportRow } from "@/lib/imports/jobs/store/jobs";

/** A sent message of a messages job, with what its replies stage left. */
function sentMessage(fields: Partial<ImportRow>): ImportRow {
  return {
    state: "created",
    followUpState: null,
    threadState: null,
    editState: null,
    issues: [],
    planIssues: [],
    resultCode: null,
    resultMessage: null,
    attempts: 1,
    ...fields,
  } as ImportRow;
}

describe("a sent message's replies and reactions in the failures CSV", () => {
  it("names a message whose reactions were never added because the import was cancelled", () => {
    for (const state of ["created", "existed"] as const) {
      const row = sentMessage({ state, threadState: "pending" });
      expect(rowNotDone(row, "running"), `${state}, still running`).toBe(false);
      expect(rowNotDone(row, "cancelled"), state).toBe(true);
      expect(failureReason(row, "cancelled")).toBe(
        "Sent, but its replies or reactions were not carried: the import was cancelled first.",
      );
    }
  });

  it("names a newer export's message whose new reactions the platform refused", () => {
    const row = sentMessage({
      state: "existed",
      threadState: "failed",
      resultMessage: '1 reaction refused: heart by "ann": the user is not a member',
    });
    expect(rowNotDone(row, "completed")).toBe(true);
    expect(failureReason(row, "completed")).toContain("1 reaction refused");
  });

  it("leaves out a message whose thread work is done, or that never had any", () => {
    for (const threadState of ["done", null] as const)
      for (const state of ["created", "existed"] as const)
        expect(rowNotDone(sentMessage({ state, threadState }), "cancelled")).toBe(false);
  });
});
