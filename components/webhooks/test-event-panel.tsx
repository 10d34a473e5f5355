"use client";

import { useState } from "react";
import { Alert } from "@/components/ui/alert";
import { Button } from "@/components/ui/button";
import { CopyButton } from "@/components/ui/copy-button";
import { Label } from "@/components/ui/label";
import { Select } from "@/components/ui/select";
import { TextField } from "@/components/ui/text-field";
import { useSingleFlight } from "@/components/ui/use-single-flight";
import type { WebhookSettingsView } from "@/lib/webhooks/reads";
import { webhookCategories, type WebhookCategory } from "@/lib/schemas/webhooks";
import { categoryDescription } from "@/lib/webhooks/category-selection";
import {
  buildTestPayload,
  invalidIds,
  newTestEventDraft,
  nextTestEventSeed,
  payloadToOverrides,
  testEventFields,
  testEventIdError,
} from "@/lib/webhooks/test-event";
import { useSendTestEvent } from "./webhook-queries";

export type TestEventPanelProps = {
  view: WebhookSettingsView;
  /** The first sample's ids and time, made by the server so the browser hydrates the same JSON. */
  initialDraft: ReturnType<typeof newTestEventDraft>;
};

/** Pick a category, edit its ids, read the exact JSON, send it. */
export function TestEventPanel({ view, initialDraft }: TestEventPanelProps) {
  const { settings, target } = view;
  // Only categories the console can build; a category the platform adds later has no builder yet.
  const categories = webhookCategories.filter((category) => view.allCategories.includes(category));
  const [category, setCategory] = useState<WebhookCategory>(categories[0] ?? "direct_call:dial");
  const [draft, setDraft] = useState(initialDraft);
  const send = useSendTestEvent();
  // Once sent, the preview moves on to the next event, a distinct one: the page always shows
  // the exact JSON the next press sends.
  const sendOnce = useSingleFlight({
    mutateAsync: async (variables: Parameters<typeof send.mutateAsync>[0]) => {
      const result = await send.mutateAsync(variables);
      setDraft((previous) => ({ ...previous, seed: nextTestEventSeed(previous.seed) }));
      return result;
    },
  });

  const payload = buildTestPayload(category, target.appId, draft.ids, draft.seed);
  const json = JSON.stringify(payload, null, 2);
  const invalid = invalidIds(category, draft.ids);
  const subscribed =
    settings.enabled && settings.url !== "" && settings.enabled_events.includes(category);

  return (
    <div className="grid grid-cols-1 gap-6 lg:grid-cols-2">
      <div className="space-y-4">
        <div>
          <Label htmlFor="test-event-category">Category</Label>
          <Select
            id="test-event-category"
            value={category}
            onChange={(event) => {
              setCategory(event.target.value as WebhookCategory);
              send.reset();
            }}
            className="w-full font-mono"
            aria-describedby="test-event-category-hint"
          >
            {categories.map((option) => (
              <option key={option} value={option}>
                {option}
              </option>
            ))}
          </Select>
          <p id="test-event-category-hint" className="mt-1 text-xs text-slate-500">
            {categoryDescription(category)}
          </p>
        </div>
        <fieldset>
          <legend className="text-sm font-medium text-slate-800">Ids in the payload</legend>
          <div className="mt-2 grid grid-cols-1 gap-x-3 sm:grid-cols-2">
            {testEventFields(category).map((field) => (
              <TextField
                key={field.path}
                id={`test-event-${field.path.replace(".", "-")}`}
                label={field.label}
                labelClassName="font-mono text-xs"
                inputClassName="font-mono"
                spellCheck={false}
                value={draft.ids[field.path]}
                error={testEventIdError(draft.ids[field.path])}
                onChange={(event) =>
                  setDraft((previous) => ({
                    ...previous,
                    ids: { ...previous.ids, [field.path]: event.target.value },
                  }))
                }
              />
            ))}
          </div>
          <Button variant="ghost" size="sm" onClick={() => setDraft(newTestEventDraft())}>
            New ids and time
          </Button>
        </fieldset>
        {target.kind === "sandbox" ? (
          !subscribed && (
            <Alert tone="info">
              The sandbox delivers only subscribed categories of enabled webhooks: {category} would
              not be sent. Enable webhooks, subscribe to it and save first.
            </Alert>
          )
        ) : (
          <Alert tone="info">
            The console is connected to a remote platform, which cannot emit test events. The
            console itself posts this payload to {settings.url || "the saved endpoint URL"} with the
            platform&apos;s rules: 5 seconds&apos; wait, up to 3 attempts. Its attempts appear in
            the log below.
          </Alert>
        )}
        <Button
          pending={send.isPending}
          disabled={invalid.length > 0}
          onClick={() => sendOnce({ category, ...payloadToOverrides(payload) })}
        >
          Send test event
        </Button>
        {send.isError && <Alert tone="error">{send.error.message}</Alert>}
        {send.data && (
          <Alert tone={send.data.delivered ? "success" : "error"}>
            {send.data.message}
            {send.data.deliveryId && (
              <span className="mt-1 block font-mono text-xs">Event {send.data.deliveryId}</span>
            )}
          </Alert>
        )}
      </div>
      <div>
        <div className="flex items-center justify-between">
          <h3 id="test-event-preview-title" className="text-sm font-medium text-slate-800">
            Exact JSON to be sent
          </h3>
          <CopyButton value={json} label="Copy the test event's JSON" />
        </div>
        <p id="test-event-preview-hint" className="mt-1 text-xs text-slate-500">
          {category.startsWith("direct_call:")
            ? "After each send, occurred_at and message_id move on"
            : "After each send, occurred_at moves on"}
          : no two test events have the same bytes, or the same signature.
        </p>
        <pre
          aria-labelledby="test-event-preview-title"
          aria-describedby="test-event-preview-hint"
          data-testid="test-event-preview"
          tabIndex={0}
          className="mt-2 max-h-96 overflow-auto rounded-md bg-slate-900 p-3 font-mono text-xs text-slate-100"
        >
          {json}
        </pre>
      </div>
    </div>
  );
}
