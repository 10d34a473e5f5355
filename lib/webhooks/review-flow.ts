import {
  initialChoices,
  staleFields,
  type SettingsField,
  type StaleChoice,
  type WebhookSettingsValues,
} from "./settings-diff";

/** What the platform held when Save was pressed, and what the guard thinks of the URL. */
export type Review = {
  now: WebhookSettingsValues;
  nowCategories: string[];
  urlWarning: { warning: string; allowed: boolean } | null;
};

/**
 * The webhook form's save, from "Review and save" to the platform's answer: the settings read
 * again, the diff confirmed (choosing, field by field, between the platform's change and yours
 * where both changed), then saved.
 */
export type ReviewFlow = {
  /**
   * The values the form was made from. Not the live query: a refetch on focus must not move the
   * base under the administrator's edits, or a stale save would look like a fresh one.
   */
  base: WebhookSettingsValues;
  phase: "editing" | "reading" | "confirming";
  review: Review | null;
  choices: Partial<Record<SettingsField, StaleChoice>>;
  /** The platform's answer to the last save. */
  answer: WebhookSettingsValues | null;
};

export type ReviewEvent =
  | { type: "review-started" }
  | { type: "review-ready"; review: Review; submitted: Partial<WebhookSettingsValues> }
  | { type: "review-failed" }
  | { type: "chosen"; field: SettingsField; choice: StaleChoice }
  | { type: "dialog-closed" }
  | { type: "saved"; settings: WebhookSettingsValues }
  | { type: "save-refused" }
  | { type: "discarded" };

export const startReviewFlow = (base: WebhookSettingsValues): ReviewFlow => ({
  base,
  phase: "editing",
  review: null,
  choices: {},
  answer: null,
});

export function reviewFlowReducer(state: ReviewFlow, event: ReviewEvent): ReviewFlow {
  switch (event.type) {
    case "review-started":
      return { ...state, phase: "reading" };
    case "review-ready": {
      const { review, submitted } = event;
      const yours = { ...state.base, ...submitted };
      const stale = staleFields(state.base, review.now, yours, review.nowCategories);
      return { ...state, phase: "confirming", review, choices: initialChoices(stale) };
    }
    case "review-failed":
    case "save-refused":
    case "dialog-closed":
      return { ...state, phase: "editing" };
    case "chosen":
      return { ...state, choices: { ...state.choices, [event.field]: event.choice } };
    case "saved":
      return startReviewFlowWith(event.settings);
    case "discarded":
      return { ...state, answer: null };
  }
}

const startReviewFlowWith = (settings: WebhookSettingsValues): ReviewFlow => ({
  ...startReviewFlow(settings),
  answer: settings,
});
