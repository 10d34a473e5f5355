"use client";

import { queryOptions } from "@tanstack/react-query";
import type { JobProgress, ReportRow } from "@/lib/imports/jobs/report";
import type { RowState } from "@/lib/imports/types";

/** Query keys and fetchers of an import job, shared by the job page's components. */
export const importJobKeys = {
  all: (jobId: string) => ["imports", jobId] as const,
  progress: (jobId: string) => ["imports", jobId, "progress"] as const,
  rows: (jobId: string, state: RowState | "all") => ["imports", jobId, "rows", state] as const,
};

async function getJson<T>(url: string): Promise<T> {
  const response = await fetch(url, { cache: "no-store" });
  const body = (await response.json().catch(() => ({}))) as T & { error?: string };
  if (!response.ok) throw new Error(body.error ?? `The console answered HTTP ${response.status}.`);
  return body;
}

const isBusy = (progress: JobProgress | undefined) =>
  progress?.status === "planning" ||
  progress?.status === "running" ||
  progress?.status === "cancelling" ||
  progress?.rehearsal?.state === "running";

/** Polled every second while the job is planned or run (or rehearsed); still otherwise. */
export function jobProgressQuery(jobId: string, initialData?: JobProgress) {
  return queryOptions({
    queryKey: importJobKeys.progress(jobId),
    queryFn: () => getJson<JobProgress>(`/imports/${jobId}/progress`),
    initialData,
    staleTime: 0,
    refetchInterval: (query) => (isBusy(query.state.data) ? 1000 : false),
  });
}

/** `version` changes whenever the counts do, so a running job's report stays current. */
export function jobRowsQuery(jobId: string, state: RowState | "all", after: number, version: string) {
  const query = new URLSearchParams({ after: String(after), limit: "100" });
  if (state !== "all") query.set("state", state);
  return queryOptions({
    queryKey: [...importJobKeys.rows(jobId, state), after, version],
    placeholderData: (previous) => previous,
    queryFn: () => getJson<{ rows: ReportRow[]; nextAfter: number | null }>(`/imports/${jobId}/rows?${query}`),
  });
}
