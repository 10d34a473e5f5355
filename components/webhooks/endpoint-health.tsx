"use client";

import { useEffect, useRef } from "react";
import uPlot from "uplot";
import "uplot/dist/uPlot.min.css";
import { Alert } from "@/components/ui/alert";
import { Skeleton } from "@/components/ui/skeleton";
import type { EndpointHealth, EndpointWindow } from "@/lib/schemas/sandbox-events";
import { useEndpointHealth } from "./webhook-queries";

/** Success rate, latency and volume of the configured endpoint, with a chart per 5 minutes over the day. */
export function EndpointHealthPanel() {
  const query = useEndpointHealth();
  if (query.isPending) return <Skeleton className="h-48" aria-label="Loading endpoint health" />;
  if (query.isError) {
    return (
      <Alert tone="error" title="The endpoint's health could not be read">
        {query.error.message}{" "}
        <button type="button" className="underline" onClick={() => query.refetch()}>
          Try again
        </button>
      </Alert>
    );
  }
  const health = query.data.health;
  if (!health) return null;
  if (health.url === "")
    return <p className="text-sm text-slate-600">No endpoint is configured.</p>;
  return (
    <div className="space-y-4">
      <dl className="grid grid-cols-1 gap-4 sm:grid-cols-2" aria-label="Endpoint health">
        <WindowStats label="Last hour" window={health.hour} />
        <WindowStats label="Last day" window={health.day} />
      </dl>
      {health.day.volume === 0 ? (
        <p className="text-sm text-slate-600">No attempt to {health.url} in the last day.</p>
      ) : (
        <HealthChart series={health.series} />
      )}
      <div className="text-sm" aria-label="Last failure">
        <h4 className="font-medium text-slate-800">Last failure</h4>
        {health.last_failure ? (
          <p className="text-slate-700">
            <time
              dateTime={new Date(health.last_failure.at).toISOString()}
              suppressHydrationWarning
            >
              {new Date(health.last_failure.at).toLocaleString()}
            </time>{" "}
            · <span className="font-mono">{health.last_failure.category}</span> ·{" "}
            {health.last_failure.reason}
          </p>
        ) : health.day.volume === 0 ? (
          <p className="text-slate-600">None.</p>
        ) : (
          <p className="text-slate-600">
            None: every attempt to this endpoint was answered with 2xx.
          </p>
        )}
      </div>
    </div>
  );
}

const percent = (rate: number | null) =>
  rate === null ? "—" : `${(rate * 100).toFixed(rate === 1 ? 0 : 1)}%`;
const ms = (value: number | null) => (value === null ? "—" : `${value} ms`);

function WindowStats({ label, window }: { label: string; window: EndpointWindow }) {
  return (
    <div className="rounded-md border border-slate-200 p-3">
      <dt className="text-xs font-medium text-slate-500">{label}</dt>
      <dd className="mt-1 text-sm text-slate-800">
        <span className="text-lg font-semibold" aria-label={`${label} success rate`}>
          {percent(window.success_rate)}
        </span>{" "}
        answered 2xx · {window.volume} {window.volume === 1 ? "attempt" : "attempts"} · p50{" "}
        {ms(window.p50_ms)} · p95 {ms(window.p95_ms)}
      </dd>
    </div>
  );
}

const SLICE_SECONDS = 5 * 60;
const DAY_SECONDS = 24 * 3600;

/** Attempts per 5 minutes (answered 2xx and not) and p95 latency, drawn with uPlot. */
function HealthChart({ series }: { series: EndpointHealth["series"] }) {
  const container = useRef<HTMLDivElement>(null);

  useEffect(() => {
    const element = container.current;
    if (!element) return;
    // The server sends only the slices that had attempts; the chart shows the whole day, one
    // slot per slice, empty ones at zero (left to themselves, uPlot's axis spanned years around
    // a single slice and its lines bridged the quiet hours).
    const end = Math.ceil(Date.now() / 1000 / SLICE_SECONDS) * SLICE_SECONDS;
    const start = end - DAY_SECONDS;
    const bySlot = new Map(series.map((slice) => [slice.at / 1000, slice]));
    const slots = Array.from(
      { length: DAY_SECONDS / SLICE_SECONDS },
      (_, i) => start + i * SLICE_SECONDS,
    );
    const data: uPlot.AlignedData = [
      slots,
      slots.map((at) => bySlot.get(at)?.succeeded ?? 0),
      slots.map((at) => {
        const slice = bySlot.get(at);
        return slice ? slice.volume - slice.succeeded : 0;
      }),
      slots.map((at) => bySlot.get(at)?.p95_ms ?? null),
    ];
    const chart = new uPlot(
      {
        width: Math.max(300, element.clientWidth),
        height: 200,
        scales: { x: { time: true, range: [start, end] } },
        hooks: {
          // What the time axis spans, in seconds, for the browser test (uPlot draws its labels
          // on the canvas).
          setScale: [
            (plot, key) => {
              if (key === "x")
                element.dataset.spanSeconds = String(
                  (plot.scales.x?.max ?? 0) - (plot.scales.x?.min ?? 0),
                );
            },
          ],
        },
        series: [
          {},
          { label: "Answered 2xx", stroke: "#059669", fill: "rgba(5,150,105,0.15)" },
          { label: "Not 2xx or no answer", stroke: "#dc2626", fill: "rgba(220,38,38,0.15)" },
          { label: "p95 latency (ms)", stroke: "#4f46e5", scale: "ms", dash: [4, 4] },
        ],
        axes: [
          {},
          { label: "attempts" },
          { side: 1, scale: "ms", label: "ms", grid: { show: false } },
        ],
      },
      data,
      element,
    );
    element.dataset.drawn = "true";
    const resize = new ResizeObserver(() =>
      chart.setSize({ width: Math.max(300, element.clientWidth), height: 200 }),
    );
    resize.observe(element);
    return () => {
      resize.disconnect();
      chart.destroy();
      delete element.dataset.drawn;
      delete element.dataset.spanSeconds;
    };
  }, [series]);

  return (
    <figure>
      <div
        ref={container}
        role="img"
        aria-label="Attempts and p95 latency per 5 minutes, last day"
        data-testid="health-chart"
      />
      <figcaption className="sr-only">
        {series.length} five-minute slices; {series.reduce((sum, slice) => sum + slice.volume, 0)}{" "}
        attempts.
      </figcaption>
    </figure>
  );
}
