import { describe, expect, it } from "vitest";
import { findReplaceSchema } from "@/lib/imports/find-replace";

const schema = findReplaceSchema(3);

describe("the preview's find and replace form", () => {
  it("hands on the column as a number", () => {
    expect(
      schema.parse({ column: "2", find: "maybe", replacement: "yes", wholeCell: false }),
    ).toEqual({ column: 2, find: "maybe", replacement: "yes", wholeCell: false });
  });

  it("finds empty cells only when matching whole cells", () => {
    expect(
      schema.safeParse({ column: "0", find: "", replacement: "x", wholeCell: true }).success,
    ).toBe(true);
    const empty = schema.safeParse({ column: "0", find: "", replacement: "x", wholeCell: false });
    expect(empty.error?.issues).toEqual([
      expect.objectContaining({
        path: ["find"],
        message: "Type what to find, or match whole cells only to fill the empty ones.",
      }),
    ]);
  });

  it("refuses a column the file does not have", () => {
    for (const column of ["3", "-1", "1.5", "x"])
      expect(
        schema.safeParse({ column, find: "a", replacement: "", wholeCell: false }).success,
      ).toBe(false);
  });
});
