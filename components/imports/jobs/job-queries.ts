"use client";

import { keepPreviousData, queryOptions, useMutation, useQueryClient } from "@tanstack/react-query";
import { useState } from "react";
import { failureSentence, unwrap } from "@/lib/actions/action-result";
import { readJson } from "@/lib/client/read-json";
import { controlImportJob, planImportJob, rehearseImportJob } from "@/lib/actions/imports";
import type {
  JobProgress,
  ReportRow,
  RowRequests,
  VerificationFindingRow,
  VerificationSummary,
} from "@/lib/imports/jobs";
import type { VerificationScope } from "@/lib/imports/types";
import type { RowState } from "@/lib/imports/types";

/**
 * An import job's data on the client, in one place: query keys, reads (route handlers under
 * /imports/{id}/, behind the administrator check) and the mutations (server actions), which
 * invalidate the job's keys.
 */
export const importJobKeys = {
  all: (jobId: string) => ["imports", jobId] as const,
  progress: (jobId: string) => ["imports", jobId, "progress"] as const,
  rows: (jobId: string, state: RowState | "all") => ["imports", jobId, "rows", state] as const,
  requests: (jobId: string, rowNumber: string) =>
    ["imports", jobId, "requests", rowNumber] as const,
  verifications: (jobId: string) => ["imports", jobId, "verifications"] as const,
  findings: (jobId: string, verificationId: string) =>
    ["imports", jobId, "verifications", verificationId, "findings"] as const,
};

const isBusy = (progress: JobProgress | undefined) =>
  progress?.status === "planning" ||
  progress?.status === "running" ||
  progress?.status === "cancelling" ||
  progress?.rehearsal?.state === "running";

/** Polled every second while the job is planned or run (or rehearsed); still otherwise. */
export function jobProgressQuery(jobId: string, initialData?: JobProgress) {
  return queryOptions({
    queryKey: importJobKeys.progress(jobId),
    queryFn: ({ signal }) => readJson<JobProgress>(`/imports/${jobId}/progress`, { signal }),
    initialData,
    staleTime: 0,
    refetchInterval: (query) => (isBusy(query.state.data) ? 1000 : false),
  });
}

/** `version` changes whenever the counts do, so a running job's report stays current. */
export function jobRowsQuery(
  jobId: string,
  state: RowState | "all",
  after: number,
  version: string,
) {
  const query = { after, limit: 100, state: state === "all" ? undefined : state };
  type Page = { rows: ReportRow[]; nextAfter: number | null };
  return queryOptions({
    queryKey: [...importJobKeys.rows(jobId, state), after, version],
    queryFn: ({ signal }) => readJson<Page>(`/imports/${jobId}/rows`, { query, signal }),
    placeholderData: keepPreviousData,
  });
}

/** The requests the file's row `rowNumber` (from 1) sends; fetched once asked for. */
export function rowRequestsQuery(jobId: string, rowNumber: string | null) {
  return queryOptions({
    queryKey: importJobKeys.requests(jobId, rowNumber ?? ""),
    queryFn: ({ signal }) =>
      readJson<RowRequests>(
        `/imports/${jobId}/rows/${encodeURIComponent(rowNumber ?? "")}/requests`,
        { signal },
      ),
    enabled: rowNumber !== null,
    retry: false,
  });
}

export type Verifications = Partial<Record<VerificationScope, VerificationSummary>>;

/** The job's newest Verify of its run and of its rehearsal: polled every second while one runs. */
export function verificationsQuery(jobId: string) {
  return queryOptions({
    queryKey: importJobKeys.verifications(jobId),
    queryFn: ({ signal }) => readJson<Verifications>(`/imports/${jobId}/verification`, { signal }),
    refetchInterval: (query) =>
      Object.values(query.state.data ?? {}).some((v) => v?.state === "running") ? 1000 : false,
  });
}

/** Findings shown at most in the page's table; the CSV holds every one. */
export const SHOWN_FINDINGS = 10_000;

/**
 * A Verify's findings, up to `SHOWN_FINDINGS`, read a thousand at a time; `version` changes as
 * the Verify goes on, so the table follows it.
 */
export function findingsQuery(jobId: string, verificationId: string, version: string) {
  return queryOptions({
    queryKey: [...importJobKeys.findings(jobId, verificationId), version],
    queryFn: async ({ signal }) => {
      const findings: VerificationFindingRow[] = [];
      let after = 0;
      while (findings.length < SHOWN_FINDINGS) {
        const page = await readJson<{
          findings: VerificationFindingRow[];
          nextAfter: number | null;
        }>(`/imports/${jobId}/verification/${verificationId}`, {
          query: { after, limit: 1000 },
          signal,
        });
        findings.push(...page.findings);
        if (page.nextAfter === null) break;
        after = page.nextAfter;
      }
      return findings.slice(0, SHOWN_FINDINGS);
    },
    placeholderData: keepPreviousData,
  });
}

export type JobCommand = "run" | "pause" | "resume" | "cancel" | "plan" | "rehearse";

/** Plan, rehearse, run, pause, resume or cancel; every answer refreshes the job's data. */
export function useJobCommand(jobId: string) {
  const queryClient = useQueryClient();
  const [error, setError] = useState<string | null>(null);
  const mutation = useMutation({
    mutationFn: (command: JobCommand): Promise<unknown> =>
      unwrap<unknown>(
        command === "plan"
          ? planImportJob({ jobId })
          : command === "rehearse"
            ? rehearseImportJob({ jobId })
            : controlImportJob({ jobId, command }),
      ),
    onSuccess: () => setError(null),
    onError: (error) => setError(failureSentence(error)),
    onSettled: () => queryClient.invalidateQueries({ queryKey: importJobKeys.all(jobId) }),
  });
  return { ...mutation, error };
}
