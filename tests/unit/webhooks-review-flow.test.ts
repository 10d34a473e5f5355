import { describe, expect, it } from "vitest";
import { reviewFlowReducer, startReviewFlow, type Review } from "@/lib/webhooks/review-flow";
import type { WebhookSettingsValues } from "@/lib/webhooks/settings-diff";

const loaded: WebhookSettingsValues = {
  enabled: false,
  url: "https://a.example/hook",
  include_members: false,
  enabled_events: ["direct_call:dial"],
};
const categories = ["direct_call:dial", "direct_call:end"];
const reviewOf = (now: WebhookSettingsValues): Review => ({
  now,
  nowCategories: categories,
  urlWarning: null,
});

describe("the webhook form's review flow", () => {
  it("reads, then confirms with the platform's value chosen where only the platform changed", () => {
    let flow = reviewFlowReducer(startReviewFlow(loaded), { type: "review-started" });
    expect(flow.phase).toBe("reading");
    // Since the page loaded: the platform changed url and enabled; the page changed url too.
    const now = { ...loaded, url: "https://b.example/hook", enabled: true };
    flow = reviewFlowReducer(flow, {
      type: "review-ready",
      review: reviewOf(now),
      submitted: { url: "https://c.example/hook", include_members: true },
    });
    expect(flow.phase).toBe("confirming");
    expect(flow.choices).toEqual({ enabled: "platform" });
    flow = reviewFlowReducer(flow, { type: "chosen", field: "url", choice: "yours" });
    expect(flow.choices).toEqual({ enabled: "platform", url: "yours" });
  });

  it("goes back to editing when the read fails, the dialog closes or the save is refused", () => {
    const reading = reviewFlowReducer(startReviewFlow(loaded), { type: "review-started" });
    for (const type of ["review-failed", "dialog-closed", "save-refused"] as const)
      expect(reviewFlowReducer(reading, { type }).phase).toBe("editing");
  });

  it("takes the platform's answer as the new base once saved, and forgets it when discarded", () => {
    const answer = { ...loaded, enabled: true };
    const confirming = reviewFlowReducer(startReviewFlow(loaded), {
      type: "review-ready",
      review: reviewOf(loaded),
      submitted: { enabled: true },
    });
    const saved = reviewFlowReducer(confirming, { type: "saved", settings: answer });
    expect(saved).toEqual({ base: answer, phase: "editing", review: null, choices: {}, answer });
    expect(reviewFlowReducer(saved, { type: "discarded" }).answer).toBeNull();
  });
});
