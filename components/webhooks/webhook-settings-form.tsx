"use client";

import { zodResolver } from "@hookform/resolvers/zod";
import { useReducer } from "react";
import { Controller, useForm, useWatch, type Control } from "react-hook-form";
import { Alert } from "@/components/ui/alert";
import { Button } from "@/components/ui/button";
import { FieldError } from "@/components/ui/field-error";
import { Label } from "@/components/ui/label";
import { Switch } from "@/components/ui/switch";
import { TextField } from "@/components/ui/text-field";
import { useHydratedMarker } from "@/components/ui/use-hydrated-marker";
import { applyActionResult, unreachedMessage } from "@/lib/actions/action-result";
import type { WebhookSettingsView } from "@/lib/webhooks/reads";
import {
  ALL_WEBHOOK_EVENTS,
  webhookSettingsRequestSchema,
  type WebhookSettingsInput,
} from "@/lib/schemas/webhooks";
import {
  diffWebhookSettings,
  isPlainHttp,
  nothingDeliveredReason,
  resolveStale,
  staleFields,
  type WebhookSettingsValues,
} from "@/lib/webhooks/settings-diff";
import { reviewFlowReducer, startReviewFlow, type Review } from "@/lib/webhooks/review-flow";
import { CategoryPicker } from "./category-picker";
import { SaveSettingsDialog } from "./save-settings-dialog";
import { fetchFreshSettings, fetchUrlWarning, useSaveWebhookSettings } from "./webhook-queries";

export type WebhookSettingsFormProps = { view: WebhookSettingsView };

const fieldNames = ["enabled", "url", "include_members", "enabled_events"] as const;

const isAllEvents = (events: readonly string[]) =>
  events.length === 1 && events[0] === ALL_WEBHOOK_EVENTS;

/** The webhook configuration: edit, review the change as a diff, save, show the platform's answer. */
export function WebhookSettingsForm({ view }: WebhookSettingsFormProps) {
  const { allCategories } = view;
  const [flow, dispatch] = useReducer(reviewFlowReducer, view.settings, startReviewFlow);
  const { base: settings, review, choices, answer } = flow;
  const save = useSaveWebhookSettings();
  const formRef = useHydratedMarker<HTMLFormElement>();
  const form = useForm<WebhookSettingsInput>({
    // Not the sandbox's schema: the platform judges the categories it listed, `["*"]` included.
    resolver: zodResolver(webhookSettingsRequestSchema),
    defaultValues: settings,
  });
  const { errors, isDirty } = form.formState;
  const values = useWatch({ control: form.control }) as WebhookSettingsInput;
  const current: WebhookSettingsValues = {
    ...settings,
    ...values,
    enabled_events: values.enabled_events ?? [],
  };
  const allEvents = isAllEvents(current.enabled_events);
  // The confirmation compares with the platform as read when Save was pressed, not as loaded.
  const stale = review ? staleFields(settings, review.now, current, review.nowCategories) : [];
  const toSave = review ? resolveStale(current, review.now, choices) : current;
  const diff = diffWebhookSettings(
    review?.now ?? settings,
    toSave,
    review?.nowCategories ?? allCategories,
  );
  const warning = nothingDeliveredReason(toSave);

  const startReview = form.handleSubmit(async (submitted) => {
    save.reset();
    dispatch({ type: "review-started" });
    try {
      const [fresh, urlCheck] = await Promise.all([
        fetchFreshSettings(),
        submitted.url ? fetchUrlWarning(submitted.url).catch(() => null) : Promise.resolve(null),
      ]);
      const review: Review = {
        now: fresh.settings,
        nowCategories: fresh.allCategories,
        urlWarning: urlCheck?.warning
          ? { warning: urlCheck.warning, allowed: urlCheck.allowed }
          : null,
      };
      dispatch({ type: "review-ready", review, submitted });
    } catch (error) {
      dispatch({ type: "review-failed" });
      form.setError("root.server", {
        type: "server",
        message: `The platform's current settings could not be read, so nothing was saved: ${error instanceof Error ? error.message : "unknown error"}`,
      });
    }
  });

  async function confirm() {
    const submitted = review
      ? resolveStale(form.getValues(), review.now, choices)
      : form.getValues();
    const result = await save
      .mutateAsync({ ...submitted, targetId: view.target.id })
      .catch(() => ({ serverError: unreachedMessage }));
    if (applyActionResult(result, form.setError, fieldNames)) {
      dispatch({ type: "saved", settings: result.data.settings });
      form.reset(result.data.settings);
      return;
    }
    // Field errors are shown beside their fields once the dialog is gone.
    dispatch({ type: "save-refused" });
  }

  return (
    <form
      ref={formRef}
      onSubmit={startReview}
      noValidate
      aria-label="Webhook settings"
      className="space-y-5"
    >
      <div className="flex flex-wrap gap-8">
        <SwitchField control={form.control} name="enabled" label="Enabled" />
        <SwitchField
          control={form.control}
          name="include_members"
          label="Include members"
          hint="Adds group channel member information to payloads."
        />
      </div>

      <div>
        <TextField
          id="webhook-url"
          label="Endpoint URL"
          type="url"
          inputMode="url"
          autoComplete="off"
          spellCheck={false}
          placeholder="https://example.com/webhooks/calls"
          hint="An absolute http or https address that answers POST with 200 quickly. Redirects are not followed."
          error={errors.url?.message}
          {...form.register("url")}
        />
        {isPlainHttp(current.url) && !errors.url && (
          <p role="status" className="-mt-3 text-sm text-amber-800">
            Plain http: payloads travel unencrypted. Use https for anything but a local receiver.
          </p>
        )}
      </div>

      <Controller
        control={form.control}
        name="enabled_events"
        render={({ field }) => (
          <fieldset className="space-y-3">
            <legend className="text-sm font-medium text-slate-800">Subscribed events</legend>
            <div className="flex flex-wrap gap-6 text-sm">
              <label className="flex items-center gap-2">
                <input
                  type="radio"
                  name="webhook-subscription"
                  checked={allEvents}
                  onChange={() => field.onChange([ALL_WEBHOOK_EVENTS])}
                  className="size-4 accent-indigo-600"
                />
                All events
              </label>
              <label className="flex items-center gap-2">
                <input
                  type="radio"
                  name="webhook-subscription"
                  checked={!allEvents}
                  // Switching back keeps every category ticked, so nothing is lost by a stray click.
                  onChange={() => field.onChange([...allCategories])}
                  className="size-4 accent-indigo-600"
                />
                Selected categories
              </label>
            </div>
            {allEvents ? (
              <p className="rounded-md bg-slate-50 px-3 py-2 text-sm text-slate-700">
                Sends <code className="font-mono">enabled_events: [&quot;*&quot;]</code>: the
                platform subscribes to every category it supports and answers with the concrete
                list, which this page then shows.
              </p>
            ) : (
              <CategoryPicker
                allCategories={allCategories}
                selected={field.value}
                onChange={field.onChange}
                errorId="webhook-events-error"
              />
            )}
            {!allEvents && field.value.length === 0 && (
              <p role="status" className="text-sm text-amber-800">
                No category is selected: once saved, nothing will be delivered.
              </p>
            )}
            <FieldError
              id="webhook-events-error"
              message={errors.enabled_events?.message ?? errors.enabled_events?.root?.message}
            />
          </fieldset>
        )}
      />

      {errors.root?.server && <Alert tone="error">{errors.root.server.message}</Alert>}
      {answer && !isDirty && (
        <Alert tone="success" title="Saved. The platform answered:">
          <pre
            className="mt-1 overflow-x-auto font-mono text-xs whitespace-pre-wrap"
            data-testid="webhook-save-answer"
          >
            {JSON.stringify(answer, null, 2)}
          </pre>
        </Alert>
      )}

      <div className="flex gap-2">
        <Button type="submit" pending={flow.phase === "reading"}>
          Review and save
        </Button>
        <Button
          variant="secondary"
          disabled={!isDirty}
          onClick={() => {
            form.reset(settings);
            dispatch({ type: "discarded" });
          }}
        >
          Discard changes
        </Button>
      </div>

      <SaveSettingsDialog
        open={flow.phase === "confirming"}
        onOpenChange={(open) => {
          if (!open) dispatch({ type: "dialog-closed" });
        }}
        diff={diff}
        warning={warning}
        urlWarning={review?.urlWarning ?? null}
        stale={stale}
        choices={choices}
        onChoose={(field, choice) => dispatch({ type: "chosen", field, choice })}
        pending={save.isPending}
        onConfirm={confirm}
        target={view.target}
      />
    </form>
  );
}

type SwitchFieldProps = {
  control: Control<WebhookSettingsInput>;
  name: "enabled" | "include_members";
  label: string;
  hint?: string;
};

function SwitchField({ control, name, label, hint }: SwitchFieldProps) {
  const id = `webhook-${name.replace("_", "-")}`;
  return (
    <Controller
      control={control}
      name={name}
      render={({ field }) => (
        <div className="flex items-center gap-3">
          <Switch
            id={id}
            checked={field.value}
            onCheckedChange={field.onChange}
            onBlur={field.onBlur}
            aria-describedby={hint ? `${id}-hint` : undefined}
          />
          <div>
            <Label htmlFor={id}>{label}</Label>
            {hint && (
              <p id={`${id}-hint`} className="text-xs text-slate-500">
                {hint}
              </p>
            )}
          </div>
        </div>
      )}
    />
  );
}
