"use client";

import { useCallback, useState } from "react";
import type { PreviewClient } from "@/lib/imports/parse/preview-client";
import type { RowFilter, ViewRow } from "@/lib/imports/parse/protocol";

const PAGE_ROWS = 200;

class PageStore {
  pages = new Map<number, ViewRow[]>();
  /** The previous generation's pages, shown until fresh ones arrive, so a fix does not flicker. */
  stale = new Map<number, ViewRow[]>();
  inflight = new Set<number>();

  constructor(public key: string) {}

  /** Starts a generation: after a fix the old pages stay visible; after a filter change they do not. */
  renew(key: string, filter: RowFilter): void {
    if (this.key === key) return;
    this.stale = this.key.startsWith(`${filter}:`) ? this.pages : new Map();
    this.pages = new Map();
    this.inflight.clear();
    this.key = key;
  }

  row(position: number): ViewRow | undefined {
    const page = Math.floor(position / PAGE_ROWS);
    return (this.pages.get(page) ?? this.stale.get(page))?.[position % PAGE_ROWS];
  }
}

/** The rows of the visible window, fetched from the worker page by page. */
export function usePreviewRows(client: PreviewClient, filter: RowFilter, version: number, expectedTotal: number) {
  const key = `${filter}:${version}`;
  const [store] = useState(() => new PageStore(key));
  const [shownKey, setShownKey] = useState(key);
  const [total, setTotal] = useState(expectedTotal);
  const [, setTick] = useState(0);
  const [failure, setFailure] = useState<string | null>(null);
  if (shownKey !== key) {
    // A new filter or a fix: the counts say how many rows to expect until the worker answers.
    setShownKey(key);
    setTotal(expectedTotal);
  }

  const ensure = useCallback(
    (first: number, last: number) => {
      store.renew(key, filter);
      for (let page = Math.floor(first / PAGE_ROWS); page <= Math.floor(last / PAGE_ROWS); page++) {
        if (store.pages.has(page) || store.inflight.has(page)) continue;
        store.inflight.add(page);
        client
          .request({ type: "rows", filter, start: page * PAGE_ROWS, end: (page + 1) * PAGE_ROWS })
          .then((result) => {
            if (store.key !== key) return;
            store.inflight.delete(page);
            store.pages.set(page, result.rows);
            setTotal(result.total);
            setTick((tick) => tick + 1);
          })
          .catch((error: Error) => setFailure(error.message));
      }
    },
    [client, filter, key, store],
  );

  const rowAt = (position: number) => store.row(position);

  return { total, ensure, rowAt, failure };
}
