"use client";

import { useEffect, useReducer, useState, type KeyboardEvent, type RefObject } from "react";
import type { RowFilter, ViewRow } from "@/lib/imports/parse/protocol";

/** Keyboard columns: 0 the status, 1 the actions, then the file's columns. */
export const STATUS_COLUMN = 0;
export const ACTION_COLUMN = 1;
export const FIRST_DATA_COLUMN = 2;

/** The cell keyboard focus is on: a position in the filtered rows and a keyboard column. */
export type Active = { position: number; column: number };
/** The cell being edited: the row's index in the file, the file's column and the text so far. */
export type Editing = { index: number; column: number; value: string };

/** The rows and columns keys can reach: the section shown, and the file's columns. */
export type GridBounds = {
  firstRow: number;
  lastRow: number;
  /** The file's columns. */
  columns: number;
  /** Rows a Page Up or Page Down moves. */
  page: number;
};

/** A cell within the bounds: the nearest one to where a key would go. */
export function clampCell(position: number, column: number, bounds: GridBounds): Active {
  return {
    position: Math.max(bounds.firstRow, Math.min(bounds.lastRow, position)),
    column: Math.max(0, Math.min(FIRST_DATA_COLUMN + bounds.columns - 1, column)),
  };
}

/**
 * Where a key moves focus from the active cell, as in a spreadsheet: arrows by one, Page Up and
 * Down by a screen, Home and End to the row's ends (with Ctrl, the column's). Null for a key
 * that does not move.
 */
export function keyMove(
  key: string,
  ctrlKey: boolean,
  active: Active,
  bounds: GridBounds,
): Active | null {
  const { position, column } = active;
  const lastColumn = FIRST_DATA_COLUMN + bounds.columns - 1;
  const moves: Record<string, () => [number, number]> = {
    ArrowDown: () => [position + 1, column],
    ArrowUp: () => [position - 1, column],
    ArrowRight: () => [position, column + 1],
    ArrowLeft: () => [position, column - 1],
    PageDown: () => [position + bounds.page, column],
    PageUp: () => [position - bounds.page, column],
    Home: () => (ctrlKey ? [bounds.firstRow, column] : [position, 0]),
    End: () => (ctrlKey ? [bounds.lastRow, column] : [position, lastColumn]),
  };
  const move = moves[key];
  return move ? clampCell(...move(), bounds) : null;
}

/** Rows a Page Up or Down moves: a screen of them less one, so that one row stays in sight. */
export function pageRows(height: number | undefined, rowHeight: number): number {
  return Math.max(1, Math.floor((height ?? rowHeight * 5) / rowHeight) - 1);
}

/** The editor Enter or F2 opens on the active cell: only on the file's columns, of a loaded row. */
export function editorFor(active: Active, row: ViewRow | undefined): Editing | null {
  if (active.column < FIRST_DATA_COLUMN || !row) return null;
  const column = active.column - FIRST_DATA_COLUMN;
  return { index: row.index, column, value: row.values[column] ?? "" };
}

export type GridFocus = {
  active: Active | null;
  editing: Editing | null;
  /** A keyboard move or a closed editor waits for its cell to be rendered, to focus it. */
  focusPending: boolean;
};

export type GridFocusEvent =
  /** Focus arrived at a cell by itself (a click, Tab). */
  | { type: "cell-focused"; cell: Active }
  | { type: "moved"; cell: Active }
  | { type: "edit-started"; cell: Active; editing: Editing }
  | { type: "editor-changed"; value: string }
  /** Saved or cancelled: focus goes back to the cell. */
  | { type: "edit-closed" }
  | { type: "focus-given" }
  /** Other rows show (a filter, a section): the remembered cell would point at a stranger. */
  | { type: "forgotten" };

export const initialGridFocus: GridFocus = { active: null, editing: null, focusPending: false };

export function gridFocusReducer(focus: GridFocus, event: GridFocusEvent): GridFocus {
  switch (event.type) {
    case "cell-focused":
      return { ...focus, active: event.cell };
    case "moved":
      return { ...focus, active: event.cell, focusPending: true };
    case "edit-started":
      return { ...focus, active: event.cell, editing: event.editing };
    case "editor-changed":
      return focus.editing
        ? { ...focus, editing: { ...focus.editing, value: event.value } }
        : focus;
    case "edit-closed":
      return { ...focus, editing: null, focusPending: true };
    case "focus-given":
      return { ...focus, focusPending: false };
    case "forgotten":
      return { ...focus, active: null };
  }
}

export type GridKeyboardOptions = {
  scrollRef: RefObject<HTMLDivElement | null>;
  rowHeight: number;
  /** The first and last position of the section shown; last is first - 1 when it is empty. */
  firstRow: number;
  lastRow: number;
  columns: number;
  filter: RowFilter;
  /** The window of rows rendered now, which a moved-to cell must be in before it takes focus. */
  rendered: { first: number; last: number };
  rowAt: (position: number) => ViewRow | undefined;
  busy: boolean;
  /** Scrolls the section so that its row at `index` shows. */
  scrollToIndex: (index: number) => void;
  onEdit: (index: number, column: number, value: string) => Promise<void>;
  /** Told when a cell editor opens or closes: its text is not saved until it closes. */
  onEditorOpen: (open: boolean) => void;
};

/**
 * The preview grid's keyboard: the active cell and its editor, moves by key, and focus that
 * follows a move once the target cell is rendered (scrolled into the window, its page loaded,
 * the wizard no longer busy).
 */
export function useGridKeyboard(options: GridKeyboardOptions) {
  const { scrollRef, firstRow, lastRow, filter, rowAt, busy, onEdit, onEditorOpen } = options;
  const [focus, dispatch] = useReducer(gridFocusReducer, initialGridFocus);
  const { active, editing, focusPending } = focus;

  const [shownFilter, setShownFilter] = useState(filter);
  if (shownFilter !== filter) {
    setShownFilter(filter);
    dispatch({ type: "forgotten" });
  }

  useEffect(() => onEditorOpen(editing !== null), [editing, onEditorOpen]);

  const activeLoaded = active !== null && rowAt(active.position) !== undefined;
  const { first, last } = options.rendered;
  useEffect(() => {
    if (!focusPending || !active || !activeLoaded || busy) return;
    const target = scrollRef.current?.querySelector<HTMLElement>(
      `[data-nav="${active.position}:${active.column}"]`,
    );
    if (target) {
      target.focus();
      dispatch({ type: "focus-given" });
    }
  }, [focusPending, active, activeLoaded, busy, first, last, scrollRef]);

  async function save() {
    if (!editing) return;
    const { index, column, value } = editing;
    dispatch({ type: "edit-closed" });
    await onEdit(index, column, value);
  }

  function onEditorKey(event: KeyboardEvent<HTMLInputElement>) {
    event.stopPropagation();
    if (event.key === "Enter") {
      event.preventDefault();
      void save();
    } else if (event.key === "Escape") {
      event.preventDefault();
      dispatch({ type: "edit-closed" });
    }
  }

  function onGridKey(event: KeyboardEvent<HTMLDivElement>) {
    if (!active || editing) return;
    const bounds: GridBounds = {
      firstRow,
      lastRow,
      columns: options.columns,
      page: pageRows(scrollRef.current?.clientHeight, options.rowHeight),
    };
    const cell = keyMove(event.key, event.ctrlKey, active, bounds);
    if (cell) {
      event.preventDefault();
      dispatch({ type: "moved", cell });
      options.scrollToIndex(cell.position - firstRow);
      return;
    }
    if (event.key === "F2" || event.key === "Enter") {
      const opened = editorFor(active, rowAt(active.position));
      if (!opened || busy) return;
      event.preventDefault();
      dispatch({ type: "edit-started", cell: active, editing: opened });
    }
  }

  return {
    active,
    editing,
    onGridKey,
    onEditorKey,
    save,
    focusCell: (cell: Active) => dispatch({ type: "cell-focused", cell }),
    /** A click on a cell of the file: it becomes active, with its editor open. */
    startEdit: (position: number, row: ViewRow, column: number) =>
      dispatch({
        type: "edit-started",
        cell: { position, column: FIRST_DATA_COLUMN + column },
        editing: { index: row.index, column, value: row.values[column] ?? "" },
      }),
    changeEditor: (value: string) => dispatch({ type: "editor-changed", value }),
    forget: () => dispatch({ type: "forgotten" }),
  };
}
