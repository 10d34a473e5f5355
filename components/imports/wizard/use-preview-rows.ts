"use client";

import { useQueries, type QueryClient } from "@tanstack/react-query";
import { useMemo } from "react";
import type { PreviewClient } from "@/lib/imports/parse/preview-client";
import type { RowFilter, ViewRow } from "@/lib/imports/parse/protocol";

const PAGE_ROWS = 200;

/**
 * The preview's pages as react-query data: keyed by the loaded file (session), the filter and
 * the page, so a fix invalidates them all at once and the old rows stay on screen until fresh
 * ones arrive; a new filter starts with empty pages.
 */
export const previewKeys = {
  all: ["import-preview"] as const,
  session: (session: number) => ["import-preview", session] as const,
  page: (session: number, filter: RowFilter, page: number) =>
    ["import-preview", session, filter, page] as const,
};

/** After a fix or an exclusion: every page of the file may have changed (cross-row checks). */
export function invalidatePreview(queryClient: QueryClient, session: number): Promise<void> {
  return queryClient.invalidateQueries({ queryKey: previewKeys.session(session) });
}

/** The rows of the visible window [first, last], fetched from the worker page by page. */
export function usePreviewRows(
  client: PreviewClient,
  session: number,
  filter: RowFilter,
  first: number,
  last: number,
  expectedTotal: number,
) {
  const pages = useMemo(() => {
    const list: number[] = [];
    if (last >= first)
      for (let page = Math.floor(first / PAGE_ROWS); page <= Math.floor(last / PAGE_ROWS); page++)
        list.push(page);
    return list;
  }, [first, last]);
  const results = useQueries({
    queries: pages.map((page) => ({
      queryKey: previewKeys.page(session, filter, page),
      queryFn: () =>
        client.request({
          type: "rows",
          filter,
          start: page * PAGE_ROWS,
          end: (page + 1) * PAGE_ROWS,
        }),
      // The worker's rows change only through the wizard, which invalidates them.
      staleTime: Infinity,
      gcTime: 60_000,
      retry: false,
    })),
  });
  const byPage = new Map<number, ViewRow[]>();
  let total: number | null = null;
  let failure: string | null = null;
  results.forEach((result, position) => {
    if (result.data) {
      byPage.set(pages[position]!, result.data.rows);
      total = result.data.total;
    }
    if (result.error) failure = result.error.message;
  });
  const rowAt = (position: number): ViewRow | undefined =>
    byPage.get(Math.floor(position / PAGE_ROWS))?.[position % PAGE_ROWS];
  // Before the worker answers (a new filter), the counts say how many rows to expect.
  return { total: total ?? expectedTotal, rowAt, failure };
}
