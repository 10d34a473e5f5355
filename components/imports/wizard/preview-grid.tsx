"use client";

import { useVirtualizer } from "@tanstack/react-virtual";
import { useEffect, useMemo, useRef, useState, type KeyboardEvent } from "react";
import { Badge } from "@/components/ui/badge";
import { Button } from "@/components/ui/button";
import { classNames, focusRing } from "@/components/ui/class-names";
import { isMetadataTarget, targetLabel, type ColumnMapping } from "@/lib/imports/fields";
import type { PreviewClient } from "@/lib/imports/parse/preview-client";
import type { RowFilter, ViewRow } from "@/lib/imports/parse/protocol";
import type { ImportResource, RowIssue } from "@/lib/imports/types";
import { usePreviewRows } from "./use-preview-rows";

const ROW_HEIGHT = 76;
const NUMBER_WIDTH = 72;
const STATUS_WIDTH = 200;
const CELL_WIDTH = 210;
const ACTION_WIDTH = 112;
/**
 * Rows per scrollable section. A browser cannot make an element taller than about 33 million
 * pixels, and the virtualizer measures every row of its count up front; 200,000 rows keep both
 * well in bounds (15 million pixels, a few milliseconds), and a million rows are five sections.
 */
const SECTION_ROWS = 200_000;

export type PreviewGridProps = {
  client: PreviewClient;
  resource: ImportResource;
  columns: string[];
  mapping: ColumnMapping;
  filter: RowFilter;
  /** Rows the filter should hold, from the counts; the worker's answer replaces it. */
  expectedTotal: number;
  /** Bumped after every fix or exclusion, so the window is fetched again. */
  version: number;
  onEdit: (index: number, column: number, value: string) => Promise<void>;
  onExclude: (index: number, excluded: boolean) => Promise<void>;
  busy: boolean;
};

type Editing = { index: number; column: number; value: string };

/**
 * Every row of the file in a virtualized grid: only the visible rows exist in the DOM, and
 * only their data leaves the worker. Errors sit under the cell they concern.
 */
export function PreviewGrid({
  client,
  resource,
  columns,
  mapping,
  filter,
  expectedTotal,
  version,
  onEdit,
  onExclude,
  busy,
}: PreviewGridProps) {
  const scrollRef = useRef<HTMLDivElement>(null);
  const { total, ensure, rowAt, failure } = usePreviewRows(client, filter, version, expectedTotal);
  const [editing, setEditing] = useState<Editing | null>(null);
  const [sectionChoice, setSection] = useState(0);
  const sections = Math.max(1, Math.ceil(total / SECTION_ROWS));
  const section = Math.min(sectionChoice, sections - 1);
  const offset = section * SECTION_ROWS;
  const virtualizer = useVirtualizer({
    count: Math.max(0, Math.min(SECTION_ROWS, total - offset)),
    getScrollElement: () => scrollRef.current,
    estimateSize: () => ROW_HEIGHT,
    overscan: 8,
  });
  const items = virtualizer.getVirtualItems();
  const first = offset + (items[0]?.index ?? 0);
  const last = offset + (items[items.length - 1]?.index ?? -1);
  useEffect(() => {
    if (last >= first) ensure(first, last);
  }, [ensure, first, last, version, filter]);

  // Which column shows an issue about a field; issues about unmapped fields go to the status cell.
  const columnOfField = useMemo(() => {
    const byField = new Map<string, number>();
    columns.forEach((column, position) => {
      const target = mapping[column];
      if (!target) return;
      if (!byField.has(target)) byField.set(target, position);
      if (isMetadataTarget(target) && !byField.has("metadata")) byField.set("metadata", position);
    });
    return byField;
  }, [columns, mapping]);

  const width = NUMBER_WIDTH + STATUS_WIDTH + columns.length * CELL_WIDTH + ACTION_WIDTH;

  async function save() {
    if (!editing) return;
    const { index, column, value } = editing;
    setEditing(null);
    await onEdit(index, column, value);
  }

  function onEditorKey(event: KeyboardEvent<HTMLInputElement>) {
    if (event.key === "Enter") {
      event.preventDefault();
      void save();
    } else if (event.key === "Escape") {
      event.preventDefault();
      setEditing(null);
    }
  }

  if (failure)
    return (
      <p role="alert" className="text-sm text-red-700">
        {failure}
      </p>
    );

  function showSection(next: number) {
    setSection(next);
    scrollRef.current?.scrollTo({ top: 0 });
  }

  return (
    <div className="space-y-2">
      {sections > 1 && (
        <nav
          aria-label="Sections of rows"
          className="flex items-center gap-3 text-sm text-slate-700"
        >
          <Button
            size="sm"
            variant="secondary"
            disabled={section === 0}
            onClick={() => showSection(section - 1)}
          >
            Previous {SECTION_ROWS.toLocaleString("en-US")}
          </Button>
          <span aria-live="polite">
            Rows {(offset + 1).toLocaleString("en-US")}–
            {Math.min(total, offset + SECTION_ROWS).toLocaleString("en-US")} of{" "}
            {total.toLocaleString("en-US")}
          </span>
          <Button
            size="sm"
            variant="secondary"
            disabled={section >= sections - 1}
            onClick={() => showSection(section + 1)}
          >
            Next {SECTION_ROWS.toLocaleString("en-US")}
          </Button>
        </nav>
      )}
      <div
        ref={scrollRef}
        className="relative h-[560px] overflow-auto rounded-lg border border-slate-200 bg-white"
        data-testid="preview-scroller"
      >
        <div
          role="table"
          aria-label="Rows of the file"
          aria-rowcount={total + 1}
          style={{ width, height: virtualizer.getTotalSize() + 40 }}
        >
          <div role="rowgroup" className="sticky top-0 z-10 border-b border-slate-200 bg-slate-50">
            <div
              role="row"
              aria-rowindex={1}
              className="flex h-10 items-center text-xs font-medium text-slate-600"
            >
              <div role="columnheader" className="shrink-0 px-3" style={{ width: NUMBER_WIDTH }}>
                Row
              </div>
              <div role="columnheader" className="shrink-0 px-3" style={{ width: STATUS_WIDTH }}>
                Status
              </div>
              {columns.map((column) => (
                <div
                  role="columnheader"
                  key={column}
                  className="shrink-0 truncate px-3"
                  style={{ width: CELL_WIDTH }}
                  title={column}
                >
                  <span className="text-slate-900">{column}</span>
                  <span className="block truncate font-normal text-slate-500">
                    {mapping[column] ? `→ ${targetLabel(resource, mapping[column])}` : "ignored"}
                  </span>
                </div>
              ))}
              <div role="columnheader" className="shrink-0 px-3" style={{ width: ACTION_WIDTH }}>
                <span className="sr-only">Actions</span>
              </div>
            </div>
          </div>
          <div role="rowgroup" className="relative" style={{ height: virtualizer.getTotalSize() }}>
            {items.map((item) => {
              const row = rowAt(offset + item.index);
              return (
                <div
                  key={item.key}
                  role="row"
                  aria-rowindex={offset + item.index + 2}
                  className="absolute left-0 flex border-b border-slate-100"
                  style={{ top: item.start, height: ROW_HEIGHT, width }}
                >
                  {row ? (
                    <PreviewRow
                      row={row}
                      columns={columns}
                      columnOfField={columnOfField}
                      editing={editing?.index === row.index ? editing : null}
                      onStartEdit={(column) =>
                        setEditing({ index: row.index, column, value: row.values[column] ?? "" })
                      }
                      onEditorChange={(value) =>
                        setEditing((current) => (current ? { ...current, value } : current))
                      }
                      onEditorKey={onEditorKey}
                      onEditorBlur={() => void save()}
                      onExclude={onExclude}
                      busy={busy}
                    />
                  ) : (
                    <div
                      role="cell"
                      className="flex items-center px-3 text-sm text-slate-400"
                      style={{ width }}
                    >
                      Loading row…
                    </div>
                  )}
                </div>
              );
            })}
          </div>
        </div>
        {total === 0 && (
          <p className="absolute inset-x-0 top-16 text-center text-sm text-slate-600">
            {filter === "errors"
              ? "No rows with errors."
              : filter === "warnings"
                ? "No rows with warnings."
                : filter === "excluded"
                  ? "No rows are excluded."
                  : "The file has no rows."}
          </p>
        )}
      </div>
    </div>
  );
}

type PreviewRowProps = {
  row: ViewRow;
  columns: string[];
  columnOfField: Map<string, number>;
  editing: Editing | null;
  onStartEdit: (column: number) => void;
  onEditorChange: (value: string) => void;
  onEditorKey: (event: KeyboardEvent<HTMLInputElement>) => void;
  onEditorBlur: () => void;
  onExclude: (index: number, excluded: boolean) => Promise<void>;
  busy: boolean;
};

function PreviewRow({
  row,
  columns,
  columnOfField,
  editing,
  onStartEdit,
  onEditorChange,
  onEditorKey,
  onEditorBlur,
  onExclude,
  busy,
}: PreviewRowProps) {
  const number = row.rowNumber;
  const byColumn = new Map<number, RowIssue[]>();
  const unplaced: RowIssue[] = [];
  for (const issue of row.issues) {
    const column = columnOfField.get(issue.field) ?? columnOfField.get(issue.field.split(".")[0]!);
    if (column === undefined) unplaced.push(issue);
    else byColumn.set(column, [...(byColumn.get(column) ?? []), issue]);
  }
  const hasError = row.issues.some((issue) => issue.severity === "error");
  const hasWarning = row.issues.some((issue) => issue.severity === "warning");
  return (
    <>
      <div
        role="cell"
        className="shrink-0 px-3 py-2 text-sm text-slate-500 tabular-nums"
        style={{ width: NUMBER_WIDTH }}
      >
        {number.toLocaleString("en-US")}
      </div>
      <div
        role="cell"
        className="shrink-0 space-y-1 overflow-hidden px-3 py-2"
        style={{ width: STATUS_WIDTH }}
      >
        {row.excluded ? (
          <Badge>Excluded</Badge>
        ) : hasError ? (
          <Badge tone="danger">Error</Badge>
        ) : hasWarning ? (
          <Badge tone="warning">Warning</Badge>
        ) : (
          <Badge tone="success">Valid</Badge>
        )}
        <IssueList issues={unplaced} />
      </div>
      {columns.map((column, position) => {
        const issues = byColumn.get(position) ?? [];
        const value = row.values[position] ?? "";
        const isEditing = editing?.column === position;
        return (
          <div
            role="cell"
            key={column}
            className={classNames(
              "shrink-0 overflow-hidden px-3 py-1.5",
              issues.some((issue) => issue.severity === "error") && !row.excluded && "bg-red-50/70",
            )}
            style={{ width: CELL_WIDTH }}
          >
            {isEditing ? (
              <input
                autoFocus
                aria-label={`Row ${number}, ${column}`}
                className="h-7 w-full rounded border border-indigo-400 px-1.5 text-sm outline-none focus:ring-2 focus:ring-indigo-500"
                value={editing.value}
                onChange={(event) => onEditorChange(event.target.value)}
                onKeyDown={onEditorKey}
                onBlur={onEditorBlur}
              />
            ) : (
              <button
                type="button"
                aria-label={`Edit row ${number}, ${column}: ${value || "empty"}`}
                title={value}
                disabled={busy}
                className={classNames(
                  "block h-7 w-full truncate rounded px-1.5 text-left text-sm text-slate-900 hover:bg-slate-100",
                  focusRing,
                )}
                onClick={() => onStartEdit(position)}
              >
                {value || <span className="text-slate-400">empty</span>}
              </button>
            )}
            <IssueList issues={issues} />
          </div>
        );
      })}
      <div
        role="cell"
        className="flex shrink-0 items-start px-3 py-2"
        style={{ width: ACTION_WIDTH }}
      >
        <Button
          size="sm"
          variant="ghost"
          disabled={busy}
          onClick={() => void onExclude(row.index, !row.excluded)}
          aria-label={`${row.excluded ? "Include" : "Exclude"} row ${number}`}
        >
          {row.excluded ? "Include" : "Exclude"}
        </Button>
      </div>
    </>
  );
}

function IssueList({ issues }: { issues: RowIssue[] }) {
  if (issues.length === 0) return null;
  return (
    <ul className="mt-0.5 space-y-0.5">
      {issues.map((issue, position) => (
        <li
          key={position}
          title={issue.message}
          className={classNames(
            "line-clamp-2 text-xs leading-4",
            issue.severity === "error" ? "text-red-700" : "text-amber-700",
          )}
        >
          {issue.message}
        </li>
      ))}
    </ul>
  );
}
