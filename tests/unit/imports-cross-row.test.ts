import { describe, expect, it } from "vitest";
import { crossRowIssues, CrossRowIndex } from "@/lib/imports/cross-row";
import { prepareRow } from "@/lib/imports/prepare";
import type { ImportResource, PreparedRow } from "@/lib/imports/types";

function rows(resource: ImportResource, columns: string[], values: string[][]): PreparedRow[] {
  const mapping = Object.fromEntries(columns.map((column) => [column, column]));
  return values.map((row, index) => prepareRow(resource, columns, mapping, row, index));
}

describe("crossRowIssues", () => {
  it("a user_id given twice: the later rows are errors naming the first", () => {
    const prepared = rows(
      "users",
      ["user_id", "nickname"],
      [
        ["a", "A"],
        ["b", "B"],
        ["a", "A2"],
        ["a", "A3"],
      ],
    );
    const issues = crossRowIssues("users", prepared);
    expect([...issues.keys()]).toEqual([2, 3]);
    expect(issues.get(2)).toEqual([
      {
        field: "user_id",
        severity: "error",
        code: 400202,
        message: "The same user id as row 1: each user is created once, so this row would fail.",
      },
    ]);
  });

  it("a dedup id twice in one channel names the first row by the file's row number", () => {
    const prepared = rows(
      "messages",
      ["channel_url", "user_id", "message", "timestamp", "dedup_id"],
      [
        ["c1", "u1", "hi", "1700000000000", "d1"],
        ["c2", "u1", "hi", "1700000000000", "d1"],
        ["c1", "u1", "again", "1700000001000", "d1"],
      ],
    );
    // The header is on line 1, so the file's first data row is row 2.
    const issues = crossRowIssues("messages", prepared, { firstRow: 2 });
    expect([...issues.keys()]).toEqual([2]);
    expect(issues.get(2)![0]!.message).toBe(
      "The same dedup id in the same channel as row 2: the platform would store only one of them.",
    );
  });

  it("excluded rows take no part", () => {
    const prepared = rows(
      "users",
      ["user_id", "nickname"],
      [
        ["a", "A"],
        ["a", "A2"],
      ],
    );
    prepared[0]!.excluded = true;
    expect(crossRowIssues("users", prepared).size).toBe(0);
  });

  it("channel_urls and source ids given twice", () => {
    const prepared = rows(
      "group_channels",
      ["channel_url", "source_id", "user_ids"],
      [
        ["room-1", "", "a"],
        ["room-1", "", "a"],
        ["", "old-1", "a"],
        ["", "old-1", "a"],
      ],
    );
    const issues = crossRowIssues("group_channels", prepared);
    expect(issues.get(1)?.[0]).toMatchObject({
      field: "channel_url",
      severity: "error",
      message: expect.stringContaining("row 1"),
    });
    expect(issues.get(3)?.[0]).toMatchObject({
      field: "source_id",
      severity: "error",
      message: expect.stringContaining("row 3"),
    });
    expect(issues.has(0)).toBe(false);
    expect(issues.has(2)).toBe(false);
  });

  it("members and operators outside this import's users are warnings when the users are known", () => {
    const prepared = rows(
      "group_channels",
      ["channel_url", "user_ids", "operator_ids"],
      [["room-1", "a;x;y;z;w", "a"]],
    );
    expect(crossRowIssues("group_channels", prepared).size).toBe(0);
    const issues = crossRowIssues("group_channels", prepared, { importedUserIds: new Set(["a"]) });
    expect(issues.get(0)).toEqual([
      {
        field: "user_ids",
        severity: "warning",
        message:
          '"x", "y", "z" and 1 more not in this import\'s users — the plan checks the platform.',
      },
    ]);
  });
});

describe("CrossRowIndex", () => {
  it("says which rows to check again when a key moves", () => {
    const index = new CrossRowIndex("users");
    expect(index.add({ index: 0, key: "a" })).toEqual([]);
    expect(index.add({ index: 1, key: "a" })).toEqual([0]);
    expect(index.add({ index: 2, key: "b" })).toEqual([]);
    // Row 1 is fixed to "b": row 0 is alone again, row 2 now has a twin.
    expect(index.remove({ index: 1, key: "a" })).toEqual([0]);
    expect(index.add({ index: 1, key: "b" })).toEqual([2]);
    const [row1, row2] = rows(
      "users",
      ["user_id", "nickname"],
      [
        ["b", "B"],
        ["b", "B"],
      ],
    ).map((row, at) => ({ ...row, index: at + 1 }));
    expect(index.issuesFor(row1!)).toEqual([]);
    expect(index.issuesFor(row2!)[0]!.message).toContain("row 2");
  });
});
