"use client";

import { useId, useState } from "react";
import { Alert } from "@/components/ui/alert";
import { Badge, type BadgeProps } from "@/components/ui/badge";
import { Button } from "@/components/ui/button";
import { Label } from "@/components/ui/label";
import { Select } from "@/components/ui/select";
import { Skeleton } from "@/components/ui/skeleton";
import {
  deliveryOutcome,
  deliveryOutcomeLabels,
  deliveryOutcomes,
  type DeliveryLogEntry,
  type DeliveryOutcome,
} from "@/lib/webhooks/delivery-log";
import { useResendDelivery, useWebhookDeliveries, type DeliveryFilter } from "./webhook-queries";

export type DeliveryLogProps = { allCategories: string[] };

const outcomeTones: Record<DeliveryOutcome, NonNullable<BadgeProps["tone"]>> = {
  delivered_2xx: "success",
  delivered_non_2xx: "danger",
  no_response: "warning",
  pending: "accent",
};

/** Every delivery, newest first, filterable, each row opening onto its payload and attempts. */
export function DeliveryLog({ allCategories }: DeliveryLogProps) {
  const [filter, setFilter] = useState<DeliveryFilter>({});
  const deliveries = useWebhookDeliveries(filter);
  const entries = deliveries.data?.entries ?? [];
  const filtered = !!(filter.category || filter.outcome);

  return (
    <div className="space-y-4">
      <div className="flex flex-wrap items-end gap-4">
        <div>
          <Label htmlFor="delivery-filter-category">Category</Label>
          <Select
            id="delivery-filter-category"
            className="font-mono"
            value={filter.category ?? ""}
            onChange={(event) => setFilter({ ...filter, category: event.target.value || undefined })}
          >
            <option value="">All categories</option>
            {allCategories.map((category) => (
              <option key={category} value={category}>
                {category}
              </option>
            ))}
          </Select>
        </div>
        <div>
          <Label htmlFor="delivery-filter-outcome">Outcome</Label>
          <Select
            id="delivery-filter-outcome"
            value={filter.outcome ?? ""}
            onChange={(event) =>
              setFilter({ ...filter, outcome: (event.target.value || undefined) as DeliveryOutcome | undefined })
            }
          >
            <option value="">Any outcome</option>
            {deliveryOutcomes.map((outcome) => (
              <option key={outcome} value={outcome}>
                {deliveryOutcomeLabels[outcome]}
              </option>
            ))}
          </Select>
        </div>
        <Button variant="secondary" pending={deliveries.isFetching} onClick={() => deliveries.refetch()}>
          Refresh
        </Button>
        {deliveries.data?.entries.some((entry) => entry.status === "pending") && (
          <span className="text-xs text-slate-500" role="status">
            Deliveries pending: refreshing every 2 seconds.
          </span>
        )}
      </div>
      {deliveries.data?.source === "console" && (
        <p className="text-sm text-slate-600">
          Connected to a remote platform, which has no delivery log to read: these are the test events the console posted
          itself.
        </p>
      )}

      {deliveries.isPending ? (
        <div className="space-y-2" aria-label="Loading deliveries" role="status">
          <Skeleton className="h-10" />
          <Skeleton className="h-10" />
          <Skeleton className="h-10" />
        </div>
      ) : deliveries.isError ? (
        <Alert tone="error" title="The delivery log could not be read">
          {deliveries.error.message}{" "}
          <button type="button" className="underline" onClick={() => deliveries.refetch()}>
            Try again
          </button>
        </Alert>
      ) : entries.length === 0 ? (
        <p className="rounded-md border border-dashed border-slate-300 p-6 text-center text-sm text-slate-600">
          {filtered
            ? "No delivery matches these filters."
            : "No deliveries yet. Send a test event or play a call, with webhooks enabled and the category subscribed."}
        </p>
      ) : (
        <ul aria-label="Deliveries" className="divide-y divide-slate-100 rounded-md border border-slate-200">
          {entries.map((entry) => (
            <DeliveryRow key={entry.id} entry={entry} />
          ))}
        </ul>
      )}
    </div>
  );
}

function DeliveryRow({ entry }: { entry: DeliveryLogEntry }) {
  const [open, setOpen] = useState(false);
  const detailsId = useId();
  const resend = useResendDelivery();
  const outcome = deliveryOutcome(entry);
  const last = entry.attempts.at(-1);

  return (
    <li aria-label={`Delivery of ${entry.category}`} data-outcome={outcome}>
      <button
        type="button"
        aria-expanded={open}
        aria-controls={detailsId}
        onClick={() => setOpen(!open)}
        className="flex w-full flex-wrap items-center gap-3 px-3 py-2.5 text-left text-sm hover:bg-slate-50 focus-visible:bg-slate-50 focus-visible:outline-none"
      >
        <span aria-hidden="true" className="w-3 text-slate-400">
          {open ? "▾" : "▸"}
        </span>
        <span className="font-mono text-slate-900">{entry.category}</span>
        <Badge tone={outcomeTones[outcome]}>{deliveryOutcomeLabels[outcome]}</Badge>
        <span className="text-slate-600">{last ? describeAttempt(last) : "Not attempted yet"}</span>
        <span className="ml-auto text-xs text-slate-500">
          {entry.attempts.length} {entry.attempts.length === 1 ? "attempt" : "attempts"} ·{" "}
          <time dateTime={new Date(entry.createdAt).toISOString()}>{new Date(entry.createdAt).toLocaleString()}</time>
        </span>
      </button>
      {open && (
        <div id={detailsId} className="space-y-3 border-t border-slate-100 bg-slate-50 px-3 py-3 text-sm">
          <p className="text-slate-700">
            To <span className="font-mono break-all">{entry.url}</span> · event <span className="font-mono">{entry.id}</span>
            {entry.source === "console" && " · posted by the console"}
          </p>
          <table className="w-full text-left text-xs">
            <caption className="sr-only">Attempts</caption>
            <thead className="text-slate-500">
              <tr>
                <th scope="col" className="py-1 pr-3 font-medium">Attempt</th>
                <th scope="col" className="py-1 pr-3 font-medium">At</th>
                <th scope="col" className="py-1 pr-3 font-medium">Status or error</th>
                <th scope="col" className="py-1 pr-3 font-medium">Latency</th>
                <th scope="col" className="py-1 font-medium">Response (first 2 KiB)</th>
              </tr>
            </thead>
            <tbody className="align-top text-slate-800">
              {entry.attempts.length === 0 && (
                <tr>
                  <td colSpan={5} className="py-1 text-slate-500">
                    No attempt yet; the first one is on its way.
                  </td>
                </tr>
              )}
              {entry.attempts.map((attempt) => (
                <tr key={attempt.attempt}>
                  <td className="py-1 pr-3">{attempt.attempt}</td>
                  <td className="py-1 pr-3 whitespace-nowrap">{new Date(attempt.at).toLocaleTimeString()}</td>
                  <td className="py-1 pr-3">{attempt.status !== null ? `HTTP ${attempt.status}` : attempt.error}</td>
                  <td className="py-1 pr-3">{attempt.latency_ms} ms</td>
                  <td className="py-1">
                    <code className="break-all whitespace-pre-wrap">{attempt.response_excerpt || "—"}</code>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
          <div>
            <h4 className="text-xs font-medium text-slate-600">Payload</h4>
            <pre className="mt-1 max-h-72 overflow-auto rounded bg-slate-900 p-3 font-mono text-xs text-slate-100" tabIndex={0}>
              {JSON.stringify(entry.payload, null, 2)}
            </pre>
          </div>
          <div className="flex flex-wrap items-center gap-3">
            <Button
              variant="secondary"
              size="sm"
              pending={resend.isPending}
              onClick={() => resend.mutate(entry.id)}
              aria-label={`Send again: ${entry.category} ${entry.id}`}
            >
              Send again
            </Button>
            {resend.isError && <span className="text-red-700">{resend.error.message}</span>}
            {resend.data && <span role="status" className="text-slate-700">{resend.data.message}</span>}
          </div>
        </div>
      )}
    </li>
  );
}

function describeAttempt(attempt: DeliveryLogEntry["attempts"][number]): string {
  const result = attempt.status !== null ? `HTTP ${attempt.status}` : (attempt.error ?? "No response");
  return `${result} in ${attempt.latency_ms} ms`;
}
