"use client";

import { useId, useState, type FormEvent } from "react";
import { Alert } from "@/components/ui/alert";
import { Badge, type BadgeProps } from "@/components/ui/badge";
import { Button } from "@/components/ui/button";
import { ConfirmDialog } from "@/components/ui/confirm-dialog";
import { Input } from "@/components/ui/input";
import { Label } from "@/components/ui/label";
import { Select } from "@/components/ui/select";
import { Skeleton } from "@/components/ui/skeleton";
import { Table } from "@/components/ui/table";
import { classNames } from "@/components/ui/class-names";
import { webhookCategories } from "@/lib/schemas/webhooks";
import {
  attemptSummary,
  deliveryOutcomeLabels,
  deliveryOutcomes,
  hasPendingDeliveries,
  type DeliveryLogEntry,
  type DeliveryLogFilter,
  type DeliveryOutcome,
} from "@/lib/webhooks/delivery-log";
import {
  useDeliveryCounts,
  useResendDelivery,
  useResendSelected,
  useWebhookDeliveries,
} from "./webhook-queries";

export type DeliveryLogProps = { allCategories: string[] };

const outcomeTones: Record<DeliveryOutcome, NonNullable<BadgeProps["tone"]>> = {
  delivered: "success",
  failed: "danger",
  no_response: "warning",
  refused: "danger",
  pending: "accent",
};

/** `datetime-local` text to milliseconds, in the browser's time zone. */
const fromLocalInput = (value: FormDataEntryValue | null) => {
  const time = typeof value === "string" && value ? new Date(value).getTime() : NaN;
  return Number.isFinite(time) ? time : undefined;
};
const text = (value: FormDataEntryValue | null) =>
  typeof value === "string" && value.trim() ? value.trim() : undefined;

/** The filters that wait for Apply: ids to look for, and the window deliveries were accepted in. */
const textFilters = [
  { name: "search", label: "call_id or room_id", kind: "id" },
  { name: "event_id", label: "Event id", kind: "id" },
  { name: "since", label: "Accepted from", kind: "datetime-local" },
  { name: "until", label: "Accepted until", kind: "datetime-local" },
] as const;

/** Every delivery, newest first, filtered and paged where it is stored, each row opening onto its attempts. */
export function DeliveryLog({ allCategories }: DeliveryLogProps) {
  // Both logs hold only the categories this console can build; filtering by another is refused.
  const loggedCategories = webhookCategories.filter((category) => allCategories.includes(category));
  const [filter, setFilter] = useState<DeliveryLogFilter>({});
  const deliveries = useWebhookDeliveries(filter);
  const entries = deliveries.data?.pages.flatMap((page) => page.entries) ?? [];
  const counts = useDeliveryCounts(filter, hasPendingDeliveries(entries));
  const resendSelected = useResendSelected();
  const source = deliveries.data?.pages[0]?.source;
  const filtered = Object.values(filter).some((value) => value !== undefined);
  const countsByOutcome = counts.data?.counts ?? null;
  const selectedCount = countsByOutcome
    ? filter.outcome
      ? countsByOutcome[filter.outcome]
      : Object.values(countsByOutcome).reduce((sum, count) => sum + count, 0)
    : null;

  function applyFilter(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const form = new FormData(event.currentTarget);
    setFilter({
      category: text(form.get("category")),
      outcome: text(form.get("outcome")) as DeliveryOutcome | undefined,
      event_id: text(form.get("event_id")),
      search: text(form.get("search")),
      since: fromLocalInput(form.get("since")),
      until: fromLocalInput(form.get("until")),
    });
  }

  return (
    <div className="space-y-4">
      <form
        aria-label="Delivery filters"
        onSubmit={applyFilter}
        onReset={() => setFilter({})}
        className="grid grid-cols-1 gap-3 sm:grid-cols-2 lg:grid-cols-4"
      >
        <FilterSelect
          name="category"
          label="Category"
          anyLabel="All categories"
          values={loggedCategories}
          className="font-mono"
          onSelect={(category) => setFilter({ ...filter, category })}
        />
        <FilterSelect
          name="outcome"
          label="Outcome"
          anyLabel="Any outcome"
          values={deliveryOutcomes}
          labels={deliveryOutcomeLabels}
          onSelect={(outcome) => setFilter({ ...filter, outcome })}
        />
        {textFilters.map(({ name, label, kind }) => (
          <div key={name}>
            <Label htmlFor={`delivery-filter-${name}`}>{label}</Label>
            {kind === "id" ? (
              <Input
                id={`delivery-filter-${name}`}
                name={name}
                className="w-full font-mono"
                spellCheck={false}
              />
            ) : (
              <Input id={`delivery-filter-${name}`} name={name} type={kind} className="w-full" />
            )}
          </div>
        ))}
        <div className="flex items-end gap-2 lg:col-span-2">
          <Button type="submit" variant="secondary">
            Apply filters
          </Button>
          <Button type="reset" variant="ghost">
            Clear
          </Button>
          <Button
            variant="ghost"
            pending={deliveries.isFetching}
            onClick={() => deliveries.refetch()}
          >
            Refresh
          </Button>
        </div>
      </form>

      {countsByOutcome && (
        <div
          className="flex flex-wrap items-center gap-2 text-sm"
          role="status"
          aria-label="Deliveries per outcome"
        >
          {deliveryOutcomes.map((outcome) => (
            <Badge key={outcome} tone={outcomeTones[outcome]}>
              {deliveryOutcomeLabels[outcome]}: {countsByOutcome[outcome].toLocaleString("en")}
            </Badge>
          ))}
          {selectedCount !== null && selectedCount > 0 && (
            <ConfirmDialog
              trigger={
                <Button variant="secondary" size="sm" className="ml-auto">
                  Send again all {selectedCount.toLocaleString("en")} selected…
                </Button>
              }
              title={`Send ${selectedCount.toLocaleString("en")} deliveries again?`}
              description={`Every delivery this filter selects (${selectedCount.toLocaleString("en")}) is sent again as a new delivery, with the same payload, to the endpoint configured now; those of a category no longer subscribed are not.`}
              confirmLabel={`Send ${selectedCount.toLocaleString("en")} again`}
              tone="primary"
              onConfirm={() => resendSelected.mutateAsync(filter)}
            />
          )}
          {resendSelected.data && (
            <span className="text-slate-700">
              {resendSelected.data.count.toLocaleString("en")} deliveries sent again.
            </span>
          )}
        </div>
      )}
      {hasPendingDeliveries(entries) && (
        <p className="text-xs text-slate-500" role="status">
          Deliveries pending: refreshing every 2 seconds.
        </p>
      )}
      {source === "console" && (
        <p className="text-sm text-slate-600">
          Connected to a remote platform, which has no delivery log to read: these are the test
          events the console posted itself.
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
        <>
          <ul
            aria-label="Deliveries"
            className="divide-y divide-slate-100 rounded-md border border-slate-200"
          >
            {entries.map((entry) => (
              <DeliveryRow key={entry.id} entry={entry} />
            ))}
          </ul>
          {deliveries.hasNextPage && (
            <Button
              variant="secondary"
              pending={deliveries.isFetchingNextPage}
              onClick={() => deliveries.fetchNextPage()}
            >
              Load older deliveries
            </Button>
          )}
        </>
      )}
    </div>
  );
}

type FilterSelectProps<Value extends string> = {
  /** The filter it sets, and the form field's name. */
  name: "category" | "outcome";
  label: string;
  /** The first choice, which sets no filter. */
  anyLabel: string;
  values: readonly Value[];
  /** What each value is called; the value itself where absent. */
  labels?: Record<Value, string>;
  className?: string;
  onSelect: (value: Value | undefined) => void;
};

/** A filter that applies as soon as it is chosen (the text filters wait for Apply). */
function FilterSelect<Value extends string>({
  name,
  label,
  anyLabel,
  values,
  labels,
  className,
  onSelect,
}: FilterSelectProps<Value>) {
  const id = `delivery-filter-${name}`;
  return (
    <div>
      <Label htmlFor={id}>{label}</Label>
      <Select
        id={id}
        name={name}
        className={classNames("w-full", className)}
        defaultValue=""
        onChange={(event) => onSelect((event.target.value || undefined) as Value | undefined)}
      >
        <option value="">{anyLabel}</option>
        {values.map((value) => (
          <option key={value} value={value}>
            {labels?.[value] ?? value}
          </option>
        ))}
      </Select>
    </div>
  );
}

function DeliveryRow({ entry }: { entry: DeliveryLogEntry }) {
  const [open, setOpen] = useState(false);
  const detailsId = useId();
  const resend = useResendDelivery();
  const outcome = entry.outcome;
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
        <span className="text-slate-600">{last ? attemptSummary(last) : "Not attempted yet"}</span>
        <span className="ml-auto text-xs text-slate-500">
          {entry.attempts.length} {entry.attempts.length === 1 ? "attempt" : "attempts"} ·{" "}
          <time dateTime={new Date(entry.createdAt).toISOString()} suppressHydrationWarning>
            {new Date(entry.createdAt).toLocaleString()}
          </time>
        </span>
      </button>
      {open && (
        <div
          id={detailsId}
          className="space-y-3 border-t border-slate-100 bg-slate-50 px-3 py-3 text-sm"
        >
          <p className="text-slate-700">
            To <span className="font-mono break-all">{entry.url}</span> · event{" "}
            <span className="font-mono">{entry.id}</span>
            {entry.source === "console" && " · posted by the console"}
          </p>
          <Table
            caption="Attempts"
            density="dense"
            columns={["Attempt", "At", "Status or error", "Latency"]}
          >
            {entry.attempts.length === 0 && (
              <tr>
                <td colSpan={4} className="py-1 text-slate-500">
                  No attempt yet; the first one is on its way.
                </td>
              </tr>
            )}
            {entry.attempts.map((attempt) => (
              <tr key={attempt.attempt} className="align-top text-slate-800">
                <td className="py-1 pr-3">{attempt.attempt}</td>
                <td className="py-1 pr-3 whitespace-nowrap" suppressHydrationWarning>
                  {new Date(attempt.at).toLocaleTimeString()}
                </td>
                <td className="py-1 pr-3">
                  {attempt.status !== null ? `HTTP ${attempt.status}` : attempt.error}
                  {attempt.outcome === "interrupted" && " (counts as one of the 3)"}
                </td>
                <td className="py-1 whitespace-nowrap">{attempt.latency_ms} ms</td>
              </tr>
            ))}
          </Table>
          {/* Below the table rather than in a column of it: headers and bodies need the width. */}
          {entry.attempts
            .filter((attempt) => attempt.request_headers || attempt.response_excerpt !== null)
            .map((attempt) => (
              <AttemptExchange key={attempt.attempt} attempt={attempt} />
            ))}
          <div>
            <h4 className="text-xs font-medium text-slate-600">Request body (the payload)</h4>
            <pre
              className="mt-1 max-h-72 overflow-auto rounded bg-slate-900 p-3 font-mono text-xs text-slate-100"
              tabIndex={0}
            >
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
            {resend.data && (
              <span role="status" className="text-slate-700">
                {resend.data.message}
              </span>
            )}
          </div>
        </div>
      )}
    </li>
  );
}

/** What one attempt sent and got back: the request's headers, the response's headers and body. */
function AttemptExchange({ attempt }: { attempt: DeliveryLogEntry["attempts"][number] }) {
  const title = `Attempt ${attempt.attempt}: request and response`;
  return (
    <section aria-label={title} className="space-y-1 text-xs text-slate-800">
      <h4 className="font-medium text-slate-600">{title}</h4>
      {attempt.request_headers && (
        <details>
          <summary className="cursor-pointer">Request headers</summary>
          <HeaderList headers={attempt.request_headers} />
        </details>
      )}
      {attempt.response_headers && (
        <details>
          <summary className="cursor-pointer">Response headers</summary>
          <HeaderList headers={attempt.response_headers} />
        </details>
      )}
      <div>
        <span className="text-slate-500">Response body (first 2 KiB): </span>
        <code className="break-all whitespace-pre-wrap">{attempt.response_excerpt || "—"}</code>
      </div>
    </section>
  );
}

function HeaderList({ headers }: { headers: Record<string, string> }) {
  return (
    <dl className="mt-1 grid grid-cols-[auto_1fr] gap-x-2 font-mono">
      {Object.entries(headers).map(([name, value]) => (
        <div key={name} className="contents">
          <dt className="text-slate-500">{name}</dt>
          <dd className="break-all">{value}</dd>
        </div>
      ))}
    </dl>
  );
}
