import { describe, expect, it } from "vitest";
import {
  editorFor,
  FIRST_DATA_COLUMN,
  gridFocusReducer,
  initialGridFocus,
  keyMove,
  pageRows,
  STATUS_COLUMN,
  type Active,
  type GridBounds,
  type GridFocusEvent,
} from "@/components/imports/wizard/use-grid-keyboard";
import type { ViewRow } from "@/lib/imports/parse/protocol";

/**
 * The preview grid's keyboard (components/imports/wizard/use-grid-keyboard.ts): where each key
 * moves, within the section shown, and the active cell and its editor as one reducer.
 */

// The second section of a long file: positions 200,000 to 200,099, three file columns.
const bounds: GridBounds = { firstRow: 200_000, lastRow: 200_099, columns: 3, page: 8 };
const lastColumn = FIRST_DATA_COLUMN + 2;
const at = (position: number, column: number): Active => ({ position, column });
const move = (key: string, from: Active, ctrlKey = false) => keyMove(key, ctrlKey, from, bounds);

describe("the grid's keys", () => {
  const middle = at(200_050, 3);

  it("arrows move by one cell, Page Up and Down by a screen", () => {
    expect(move("ArrowDown", middle)).toEqual(at(200_051, 3));
    expect(move("ArrowUp", middle)).toEqual(at(200_049, 3));
    expect(move("ArrowRight", middle)).toEqual(at(200_050, 4));
    expect(move("ArrowLeft", middle)).toEqual(at(200_050, 2));
    expect(move("PageDown", middle)).toEqual(at(200_058, 3));
    expect(move("PageUp", middle)).toEqual(at(200_042, 3));
  });

  it("Home and End go to the row's ends, and with Ctrl to the section's first and last row", () => {
    expect(move("Home", middle)).toEqual(at(200_050, STATUS_COLUMN));
    expect(move("End", middle)).toEqual(at(200_050, lastColumn));
    expect(move("Home", middle, true)).toEqual(at(200_000, 3));
    expect(move("End", middle, true)).toEqual(at(200_099, 3));
  });

  it("stops at the section's and the row's edges instead of leaving them", () => {
    expect(move("ArrowUp", at(200_000, 2))).toEqual(at(200_000, 2));
    expect(move("PageUp", at(200_003, 2))).toEqual(at(200_000, 2));
    expect(move("PageDown", at(200_095, 2))).toEqual(at(200_099, 2));
    expect(move("ArrowLeft", at(200_010, STATUS_COLUMN))).toEqual(at(200_010, STATUS_COLUMN));
    expect(move("ArrowRight", at(200_010, lastColumn))).toEqual(at(200_010, lastColumn));
  });

  it("other keys do not move", () => {
    expect(move("Enter", middle)).toBeNull();
    expect(move("a", middle)).toBeNull();
    expect(move("Tab", middle)).toBeNull();
  });

  it("a page is a screen of rows less one, and at least one row", () => {
    expect(pageRows(760, 76)).toBe(9);
    expect(pageRows(50, 76)).toBe(1);
    // Before the grid is measured: five rows' height.
    expect(pageRows(undefined, 76)).toBe(4);
  });
});

describe("the grid's editor", () => {
  const row = {
    index: 41,
    rowNumber: 43,
    values: ["u1", "", "Ann"],
    issues: [],
  } as unknown as ViewRow;

  it("opens on the file's columns of a loaded row, with the cell's text", () => {
    expect(editorFor(at(7, FIRST_DATA_COLUMN + 2), row)).toEqual({
      index: 41,
      column: 2,
      value: "Ann",
    });
    expect(editorFor(at(7, FIRST_DATA_COLUMN + 1), row)).toEqual({
      index: 41,
      column: 1,
      value: "",
    });
    expect(editorFor(at(7, STATUS_COLUMN), row)).toBeNull();
    expect(editorFor(at(7, FIRST_DATA_COLUMN), undefined)).toBeNull();
  });

  const play = (events: GridFocusEvent[]) => events.reduce(gridFocusReducer, initialGridFocus);

  it("a move waits to give focus; a cell focused by itself does not", () => {
    expect(play([{ type: "moved", cell: at(3, 2) }])).toEqual({
      active: at(3, 2),
      editing: null,
      focusPending: true,
    });
    expect(play([{ type: "moved", cell: at(3, 2) }, { type: "focus-given" }]).focusPending).toBe(
      false,
    );
    expect(play([{ type: "cell-focused", cell: at(5, 0) }]).focusPending).toBe(false);
  });

  it("typing changes the editor's text; closing it gives focus back to its cell", () => {
    const editing = { index: 41, column: 2, value: "Ann" };
    const typed = play([
      { type: "edit-started", cell: at(7, 4), editing },
      { type: "editor-changed", value: "Anne" },
    ]);
    expect(typed).toMatchObject({ active: at(7, 4), editing: { value: "Anne" } });
    expect(gridFocusReducer(typed, { type: "edit-closed" })).toEqual({
      active: at(7, 4),
      editing: null,
      focusPending: true,
    });
    // Text arriving after the editor closed changes nothing.
    expect(play([{ type: "editor-changed", value: "x" }])).toBe(initialGridFocus);
  });

  it("other rows shown forget the active cell", () => {
    expect(
      play([{ type: "cell-focused", cell: at(5, 3) }, { type: "forgotten" }]).active,
    ).toBeNull();
  });
});
