"use client";

import { useVirtualizer } from "@tanstack/react-virtual";
import {
  useEffect,
  useId,
  useMemo,
  useRef,
  useState,
  type CSSProperties,
  type KeyboardEvent,
  type PointerEvent,
} from "react";
import { Badge } from "@/components/ui/badge";
import { Button } from "@/components/ui/button";
import { classNames, focusRing } from "@/components/ui/class-names";
import { isMetadataTarget, targetLabel, type ColumnMapping } from "@/lib/imports/fields";
import { describeTransform, type ColumnTransforms } from "@/lib/imports/transforms";
import type { PreviewClient } from "@/lib/imports/parse/preview-client";
import type { RowFilter, ViewRow } from "@/lib/imports/parse/protocol";
import type { ImportResource, RowIssue } from "@/lib/imports/types";
import {
  ACTION_COLUMN,
  FIRST_DATA_COLUMN,
  STATUS_COLUMN,
  useGridKeyboard,
  type Active,
  type Editing,
} from "./use-grid-keyboard";
import { usePreviewRows } from "./use-preview-rows";

const ROW_HEIGHT = 76;
const HEADER_HEIGHT = 44;
const NUMBER_WIDTH = 64;
const STATUS_WIDTH = 176;
const ACTION_WIDTH = 96;
/** Row number, status and actions stay on the left while the file's columns scroll under them. */
const PINNED_WIDTH = NUMBER_WIDTH + STATUS_WIDTH + ACTION_WIDTH;
const CELL_WIDTH = 200;
const MIN_CELL_WIDTH = 80;
const MAX_CELL_WIDTH = 800;
/**
 * Rows per scrollable section. A browser cannot make an element taller than about 33 million
 * pixels, and the virtualizer measures every row of its count up front; 200,000 rows keep both
 * well in bounds (15 million pixels, a few milliseconds), and a million rows are five sections.
 */
const SECTION_ROWS = 200_000;

export type PreviewGridProps = {
  client: PreviewClient;
  /** The loaded file; its pages are cached under it. */
  session: number;
  resource: ImportResource;
  columns: string[];
  mapping: ColumnMapping;
  /** Cells show the file's text; a transformed column says so in its header. */
  transforms: ColumnTransforms;
  filter: RowFilter;
  /** Rows the filter should hold, from the counts; the worker's answer replaces it. */
  expectedTotal: number;
  onEdit: (index: number, column: number, value: string) => Promise<void>;
  onExclude: (index: number, excluded: boolean) => Promise<void>;
  /** Told when a cell editor opens or closes: its text is not saved until it closes. */
  onEditorOpen: (open: boolean) => void;
  busy: boolean;
};

/**
 * Every row of the file in a virtualized grid: only the visible rows exist in the DOM, and
 * only their data leaves the worker. Errors sit under the cell they concern; the cell under
 * keyboard focus (or tapped) shows its value and every message in full above the grid.
 */
export function PreviewGrid({
  client,
  session,
  resource,
  columns,
  mapping,
  transforms,
  filter,
  expectedTotal,
  onEdit,
  onExclude,
  onEditorOpen,
  busy,
}: PreviewGridProps) {
  const scrollRef = useRef<HTMLDivElement>(null);
  const detailsId = useId();
  const [widths, setWidths] = useState<number[]>(() => columns.map(() => CELL_WIDTH));
  const [sectionChoice, setSection] = useState(0);
  // On a narrow screen pinning status and actions would leave no room for the file's columns.
  const [pinAll, setPinAll] = useState(true);
  useEffect(() => {
    const element = scrollRef.current;
    if (!element) return;
    const observer = new ResizeObserver(([entry]) =>
      setPinAll((entry?.contentRect.width ?? 0) >= PINNED_WIDTH * 2),
    );
    observer.observe(element);
    return () => observer.disconnect();
  }, []);
  const [visible, setVisible] = useState({ first: 0, last: -1 });
  const { total, rowAt, failure } = usePreviewRows(
    client,
    session,
    filter,
    visible.first,
    visible.last,
    expectedTotal,
  );
  const sections = Math.max(1, Math.ceil(total / SECTION_ROWS));
  const section = Math.min(sectionChoice, sections - 1);
  const offset = section * SECTION_ROWS;
  const count = Math.max(0, Math.min(SECTION_ROWS, total - offset));
  const virtualizer = useVirtualizer({
    count,
    getScrollElement: () => scrollRef.current,
    estimateSize: () => ROW_HEIGHT,
    overscan: 8,
  });
  const items = virtualizer.getVirtualItems();
  const first = offset + (items[0]?.index ?? 0);
  const last = offset + (items[items.length - 1]?.index ?? -1);
  if (first !== visible.first || last !== visible.last) setVisible({ first, last });

  const keyboard = useGridKeyboard({
    scrollRef,
    rowHeight: ROW_HEIGHT,
    firstRow: offset,
    lastRow: offset + count - 1,
    columns: columns.length,
    filter,
    rendered: { first, last },
    rowAt,
    busy,
    scrollToIndex: (index) => virtualizer.scrollToIndex(index, { align: "auto" }),
    onEdit,
    onEditorOpen,
  });
  const { active, editing } = keyboard;

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

  const width = PINNED_WIDTH + widths.reduce((sum, value) => sum + value, 0);

  function showSection(next: number) {
    setSection(next);
    keyboard.forget();
    scrollRef.current?.scrollTo({ top: 0 });
  }

  function resize(column: number, next: number) {
    setWidths((current) =>
      current.map((value, at) =>
        at === column
          ? Math.max(MIN_CELL_WIDTH, Math.min(MAX_CELL_WIDTH, Math.round(next)))
          : value,
      ),
    );
  }

  if (failure)
    return (
      <p role="alert" className="text-sm text-red-700">
        {failure}
      </p>
    );

  const activeRow = active ? rowAt(active.position) : undefined;
  // Before any cell is chosen, Tab lands on the first visible row's first file column.
  const tabStop = active ?? {
    position: first,
    column: columns.length > 0 ? FIRST_DATA_COLUMN : STATUS_COLUMN,
  };

  return (
    <div className="space-y-2">
      {sections > 1 && (
        <SectionNav
          section={section}
          sections={sections}
          offset={offset}
          total={total}
          onShow={showSection}
        />
      )}
      <CellDetails
        id={detailsId}
        row={activeRow}
        active={active}
        columns={columns}
        columnOfField={columnOfField}
      />
      <div
        ref={scrollRef}
        className="relative max-h-[70vh] min-h-40 overflow-auto rounded-lg border border-slate-200 bg-white"
        // Keyboard moves scroll a cell into view beside the pinned columns, not under them.
        style={{
          scrollPaddingLeft: pinAll ? PINNED_WIDTH : NUMBER_WIDTH,
          scrollPaddingTop: HEADER_HEIGHT,
        }}
        data-testid="preview-scroller"
        onKeyDown={keyboard.onGridKey}
      >
        <div
          role="grid"
          aria-label="Rows of the file"
          aria-describedby={detailsId}
          aria-rowcount={total + 1}
          style={{ width, height: virtualizer.getTotalSize() + HEADER_HEIGHT }}
        >
          <GridHeader
            resource={resource}
            columns={columns}
            mapping={mapping}
            transforms={transforms}
            widths={widths}
            width={width}
            pinAll={pinAll}
            onResize={resize}
          />
          <div role="rowgroup" className="relative" style={{ height: virtualizer.getTotalSize() }}>
            {items.map((item) => {
              const position = offset + item.index;
              const row = rowAt(position);
              return (
                <div
                  key={item.key}
                  role="row"
                  aria-rowindex={position + 2}
                  className="absolute left-0 flex border-b border-slate-100 bg-white"
                  style={{ top: item.start, height: ROW_HEIGHT, width }}
                >
                  {row ? (
                    <PreviewRow
                      row={row}
                      position={position}
                      columns={columns}
                      widths={widths}
                      columnOfField={columnOfField}
                      tabStop={tabStop}
                      pinAll={pinAll}
                      editing={editing?.index === row.index ? editing : null}
                      onFocusCell={(column) => keyboard.focusCell({ position, column })}
                      onStartEdit={(column) => keyboard.startEdit(position, row, column)}
                      onEditorChange={keyboard.changeEditor}
                      onEditorKey={keyboard.onEditorKey}
                      onEditorBlur={() => void keyboard.save()}
                      onExclude={onExclude}
                      busy={busy}
                    />
                  ) : (
                    <div
                      role="gridcell"
                      className="sticky left-0 flex items-center px-3 text-sm text-slate-400"
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
          <p className="px-4 py-8 text-center text-sm text-slate-600">
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

/** The three left columns: `left` is where each sticks, when pinned. */
const pinnedColumns = {
  number: { left: 0, width: NUMBER_WIDTH },
  status: { left: NUMBER_WIDTH, width: STATUS_WIDTH },
  actions: { left: NUMBER_WIDTH + STATUS_WIDTH, width: ACTION_WIDTH },
};

function pinnedCell(
  column: keyof typeof pinnedColumns,
  pinnedNow: boolean,
  className: string,
): { className: string; style: CSSProperties } {
  return {
    className: classNames(pinnedNow ? "sticky z-10 shrink-0" : "shrink-0", className),
    style: pinnedColumns[column],
  };
}

/** A file of more than a section's rows is shown a section at a time. */
function SectionNav({
  section,
  sections,
  offset,
  total,
  onShow,
}: {
  section: number;
  sections: number;
  offset: number;
  total: number;
  onShow: (section: number) => void;
}) {
  return (
    <nav aria-label="Sections of rows" className="flex items-center gap-3 text-sm text-slate-700">
      <Button
        size="sm"
        variant="secondary"
        disabled={section === 0}
        onClick={() => onShow(section - 1)}
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
        onClick={() => onShow(section + 1)}
      >
        Next {SECTION_ROWS.toLocaleString("en-US")}
      </Button>
    </nav>
  );
}

type GridHeaderProps = {
  resource: ImportResource;
  columns: string[];
  mapping: ColumnMapping;
  transforms: ColumnTransforms;
  widths: number[];
  width: number;
  pinAll: boolean;
  onResize: (column: number, width: number) => void;
};

/** The grid's header row: each of the file's columns with the field it fills, and its width. */
function GridHeader({
  resource,
  columns,
  mapping,
  transforms,
  widths,
  width,
  pinAll,
  onResize,
}: GridHeaderProps) {
  return (
    <div role="rowgroup" className="sticky top-0 z-20" style={{ width }}>
      <div
        role="row"
        aria-rowindex={1}
        className="flex border-b border-slate-200 bg-slate-50 text-xs font-medium text-slate-600"
        style={{ height: HEADER_HEIGHT }}
      >
        <div role="columnheader" {...pinnedCell("number", true, "bg-slate-50 px-3 py-2")}>
          Row
        </div>
        <div role="columnheader" {...pinnedCell("status", pinAll, "bg-slate-50 px-3 py-2")}>
          Status
        </div>
        <div
          role="columnheader"
          {...pinnedCell("actions", pinAll, "border-r border-slate-200 bg-slate-50 px-3 py-2")}
        >
          Actions
        </div>
        {columns.map((column, position) => (
          <div
            role="columnheader"
            key={column}
            className="relative shrink-0 px-3 py-1.5"
            style={{ width: widths[position] }}
            title={[column, ...describeTransform(transforms[column])].join(": ")}
          >
            <span className="block truncate text-slate-900">{column}</span>
            <span className="block truncate font-normal text-slate-500">
              {mapping[column]
                ? `→ ${targetLabel(resource, mapping[column])}${Object.hasOwn(transforms, column) ? ", transformed" : ""}`
                : "ignored"}
            </span>
            <ResizeHandle
              column={column}
              width={widths[position]!}
              onResize={(next) => onResize(position, next)}
            />
          </div>
        ))}
      </div>
    </div>
  );
}

/** A column's right edge: drag it, or focus it and use the arrow keys. */
function ResizeHandle({
  column,
  width,
  onResize,
}: {
  column: string;
  width: number;
  onResize: (width: number) => void;
}) {
  const start = useRef<{ x: number; width: number } | null>(null);
  function onPointerDown(event: PointerEvent<HTMLDivElement>) {
    event.preventDefault();
    event.currentTarget.setPointerCapture(event.pointerId);
    start.current = { x: event.clientX, width };
  }
  function onPointerMove(event: PointerEvent<HTMLDivElement>) {
    if (start.current) onResize(start.current.width + event.clientX - start.current.x);
  }
  function onKeyDown(event: KeyboardEvent<HTMLDivElement>) {
    const step = event.shiftKey ? 64 : 16;
    if (event.key === "ArrowLeft" || event.key === "ArrowRight") {
      event.preventDefault();
      event.stopPropagation();
      onResize(width + (event.key === "ArrowRight" ? step : -step));
    }
  }
  return (
    <div
      role="separator"
      aria-orientation="vertical"
      aria-label={`Width of column ${column}`}
      aria-valuenow={width}
      aria-valuemin={MIN_CELL_WIDTH}
      aria-valuemax={MAX_CELL_WIDTH}
      tabIndex={0}
      onPointerDown={onPointerDown}
      onPointerMove={onPointerMove}
      onPointerUp={() => (start.current = null)}
      onPointerCancel={() => (start.current = null)}
      onKeyDown={onKeyDown}
      className={classNames(
        "absolute inset-y-1 -right-1 z-10 w-2 cursor-col-resize touch-none rounded hover:bg-indigo-300 focus-visible:bg-indigo-400",
        focusRing,
      )}
    />
  );
}

function placeIssues(row: ViewRow, columnOfField: Map<string, number>) {
  const byColumn = new Map<number, RowIssue[]>();
  const unplaced: RowIssue[] = [];
  for (const issue of row.issues) {
    const column = columnOfField.get(issue.field) ?? columnOfField.get(issue.field.split(".")[0]!);
    if (column === undefined) unplaced.push(issue);
    else byColumn.set(column, [...(byColumn.get(column) ?? []), issue]);
  }
  return { byColumn, unplaced };
}

/** The chosen cell in full: its value and every message, for keyboard, touch and screen readers alike. */
function CellDetails({
  id,
  row,
  active,
  columns,
  columnOfField,
}: {
  id: string;
  row: ViewRow | undefined;
  active: Active | null;
  columns: string[];
  columnOfField: Map<string, number>;
}) {
  let title = "";
  let value: string | null = null;
  let issues: RowIssue[] = [];
  if (row && active) {
    const { byColumn, unplaced } = placeIssues(row, columnOfField);
    if (active.column >= FIRST_DATA_COLUMN) {
      const column = active.column - FIRST_DATA_COLUMN;
      title = `Row ${row.rowNumber}, ${columns[column]}`;
      value = row.values[column] ?? "";
      issues = byColumn.get(column) ?? [];
    } else {
      title = `Row ${row.rowNumber}`;
      issues = active.column === STATUS_COLUMN ? unplaced : row.issues;
    }
  }
  return (
    <div
      id={id}
      aria-live="polite"
      data-testid="cell-details"
      className="h-24 overflow-y-auto rounded-md border border-slate-200 bg-slate-50 px-3 py-2 text-sm"
    >
      {title ? (
        <>
          <p className="font-medium text-slate-900">
            {title}
            {value !== null && (
              <span className="ml-2 font-normal break-all text-slate-700">
                {value === "" ? "(empty)" : value}
              </span>
            )}
          </p>
          {issues.length > 0 ? (
            <ul className="mt-1 space-y-0.5">
              {issues.map((issue, position) => (
                <li
                  key={position}
                  className={issue.severity === "error" ? "text-red-700" : "text-amber-700"}
                >
                  {issue.severity === "error" ? "Error: " : "Warning: "}
                  {issue.message}
                </li>
              ))}
            </ul>
          ) : (
            <p className="mt-1 text-slate-600">No problem in this cell.</p>
          )}
        </>
      ) : (
        <p className="text-slate-600">
          Select a cell to read its value and messages in full. Arrow keys move between cells, Enter
          edits, Escape cancels an edit.
        </p>
      )}
    </div>
  );
}

type PreviewRowProps = {
  row: ViewRow;
  position: number;
  columns: string[];
  widths: number[];
  columnOfField: Map<string, number>;
  tabStop: Active;
  /** Whether status and actions stay pinned beside the row number. */
  pinAll: boolean;
  editing: Editing | null;
  onFocusCell: (column: number) => void;
  onStartEdit: (column: number) => void;
  onEditorChange: (value: string) => void;
  onEditorKey: (event: KeyboardEvent<HTMLInputElement>) => void;
  onEditorBlur: () => void;
  onExclude: (index: number, excluded: boolean) => Promise<void>;
  busy: boolean;
};

function PreviewRow({
  row,
  position,
  columns,
  widths,
  columnOfField,
  tabStop,
  pinAll,
  editing,
  onFocusCell,
  onStartEdit,
  onEditorChange,
  onEditorKey,
  onEditorBlur,
  onExclude,
  busy,
}: PreviewRowProps) {
  const number = row.rowNumber;
  const { byColumn, unplaced } = placeIssues(row, columnOfField);
  const hasError = row.issues.some((issue) => issue.severity === "error");
  const hasWarning = row.issues.some((issue) => issue.severity === "warning");
  const tabIndex = (column: number) =>
    tabStop.position === position && tabStop.column === column ? 0 : -1;
  return (
    <>
      <div
        role="gridcell"
        {...pinnedCell("number", true, "bg-inherit px-3 py-2 text-sm text-slate-500 tabular-nums")}
      >
        {number.toLocaleString("en-US")}
      </div>
      <div
        role="gridcell"
        tabIndex={tabIndex(STATUS_COLUMN)}
        data-nav={`${position}:${STATUS_COLUMN}`}
        onFocus={() => onFocusCell(STATUS_COLUMN)}
        {...pinnedCell(
          "status",
          pinAll,
          classNames("space-y-1 overflow-hidden bg-inherit px-3 py-2", focusRing),
        )}
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
        {byColumn.size > 0 && (
          // Where to look, since the column may be scrolled out of sight.
          <p
            className="truncate text-xs text-slate-600"
            title={[...byColumn.keys()].map((at) => columns[at]).join(", ")}
          >
            In{" "}
            {[...byColumn.keys()]
              .sort((a, b) => a - b)
              .map((at) => columns[at])
              .join(", ")}
          </p>
        )}
        <IssueList issues={unplaced} />
      </div>
      <div
        role="gridcell"
        {...pinnedCell(
          "actions",
          pinAll,
          "flex items-start border-r border-slate-200 bg-inherit px-2 py-2",
        )}
      >
        <Button
          size="sm"
          variant="ghost"
          disabled={busy}
          tabIndex={tabIndex(ACTION_COLUMN)}
          data-nav={`${position}:${ACTION_COLUMN}`}
          onFocus={() => onFocusCell(ACTION_COLUMN)}
          onClick={() => void onExclude(row.index, !row.excluded)}
          aria-label={`${row.excluded ? "Include" : "Exclude"} row ${number}`}
        >
          {row.excluded ? "Include" : "Exclude"}
        </Button>
      </div>
      {columns.map((column, at) => {
        const issues = byColumn.get(at) ?? [];
        const value = row.values[at] ?? "";
        const keyboardColumn = FIRST_DATA_COLUMN + at;
        return (
          <div
            role="gridcell"
            key={column}
            className={classNames(
              "shrink-0 overflow-hidden px-3 py-1.5",
              issues.some((issue) => issue.severity === "error") && !row.excluded && "bg-red-50/70",
            )}
            style={{ width: widths[at] }}
          >
            {editing?.column === at ? (
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
                tabIndex={tabIndex(keyboardColumn)}
                data-nav={`${position}:${keyboardColumn}`}
                onFocus={() => onFocusCell(keyboardColumn)}
                className={classNames(
                  "block h-7 w-full truncate rounded px-1.5 text-left text-sm text-slate-900 hover:bg-slate-100",
                  focusRing,
                )}
                onClick={() => onStartEdit(at)}
              >
                {value || <span className="text-slate-400">empty</span>}
              </button>
            )}
            <IssueList issues={issues} />
          </div>
        );
      })}
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
