import Papa from "papaparse";
import { describe, expect, it } from "vitest";
import { autoMap } from "@/lib/imports/mapping";
import { PreviewSession } from "@/lib/imports/parse/preview-session";
import { readRecords } from "@/lib/imports/parse/read-file";
import { sniffFile } from "@/lib/imports/parse/sniff";
import { usersCsv, usersWithMistakes, userColumns } from "@/tests/fixtures/imports";
import { xlsxWorkbook, type XlsxCell } from "@/tests/fixtures/xlsx";

const noProgress = () => {};
const workbookFile = (bytes: Uint8Array, name = "users.xlsx") =>
  Object.assign(new Blob([bytes as BlobPart]), { name });

/** Everything the preview shows of a file: header, counts, and each row's cells and issues. */
function preview(records: string[][]) {
  const session = new PreviewSession("users", records);
  const header = session.chooseHeader(0);
  const counts = session.validate(autoMap("users", header.columns));
  return { header, counts, rows: session.rows("all", 0, 100).rows };
}

describe("XLSX files", () => {
  it("an empty row of a sheet keeps its place: the rows under it keep their numbers", async () => {
    const rows: XlsxCell[][] = [
      [null, null],
      ["user_id", "nickname"],
      ["u1", "A"],
      [null, null],
      [],
      ["u2", null],
      [null],
    ];
    const read = await readRecords(
      workbookFile(xlsxWorkbook([{ name: "Users", rows }])),
      noProgress,
    );
    expect(read.records).toEqual([[], ["user_id", "nickname"], ["u1", "A"], [], [], ["u2", ""]]);
    const session = new PreviewSession("users", read.records);
    const header = session.chooseHeader(1);
    session.validate(autoMap("users", header.columns));
    expect(session.rows("all", 0, 10).rows.map((row) => row.rowNumber)).toEqual([3, 6]);
  });

  it("an XLSX file imports like its CSV twin", async () => {
    const { users } = usersWithMistakes("x");
    const csvText = usersCsv(users);
    const csvRecords = Papa.parse<string[]>(csvText, { skipEmptyLines: "greedy" }).data;
    // The same table as a spreadsheet program stores it: empty cells absent, strings shared.
    const rows: XlsxCell[][] = csvRecords.map((record) =>
      record.map((cell) => (cell === "" ? null : cell)),
    );
    const read = await readRecords(
      workbookFile(xlsxWorkbook([{ name: "Users", rows }])),
      noProgress,
    );

    expect(read).toMatchObject({
      format: "xlsx",
      headerFixed: false,
      sheets: ["Users"],
      sheet: "Users",
    });
    expect(read.records).toEqual(csvRecords);
    const fromXlsx = preview(read.records);
    const fromCsv = preview(csvRecords);
    expect(fromXlsx).toEqual(fromCsv);
    expect(fromXlsx.header.columns).toEqual([...userColumns]);
    expect(fromXlsx.counts).toMatchObject({ rows: 8, valid: 4, errors: 4 });
  });

  it("numbers keep their written form, booleans read as true/false, short rows are padded", async () => {
    const rows: XlsxCell[][] = [
      ["user_id", "nickname", "is_active", "metadata.score"],
      [1001, "Ann", true, 2.5],
      [1002, "Bob", false],
    ];
    const read = await readRecords(
      workbookFile(xlsxWorkbook([{ name: "Sheet1", rows }])),
      noProgress,
    );
    expect(read.records).toEqual([
      ["user_id", "nickname", "is_active", "metadata.score"],
      ["1001", "Ann", "true", "2.5"],
      ["1002", "Bob", "false", ""],
    ]);
    expect(preview(read.records).counts).toMatchObject({ rows: 2, valid: 2, errors: 0 });
  });

  it("reads the first sheet unless another is picked, and names a missing one", async () => {
    const bytes = xlsxWorkbook([
      { name: "Notes", rows: [["exported by", "someone"]] },
      {
        name: "People",
        rows: [
          ["user_id", "nickname"],
          ["p1", "Pat"],
        ],
      },
    ]);
    const first = await readRecords(workbookFile(bytes), noProgress);
    expect(first).toMatchObject({
      sheets: ["Notes", "People"],
      sheet: "Notes",
      records: [["exported by", "someone"]],
    });
    const picked = await readRecords(workbookFile(bytes), noProgress, undefined, "People");
    expect(picked).toMatchObject({
      sheet: "People",
      records: [
        ["user_id", "nickname"],
        ["p1", "Pat"],
      ],
    });
    await expect(readRecords(workbookFile(bytes), noProgress, undefined, "Gone")).rejects.toThrow(
      'The workbook has no sheet named "Gone".',
    );
  });

  it("a damaged workbook gets a message, and a ZIP that is not named .xlsx is refused as before", async () => {
    const damaged = new Uint8Array([0x50, 0x4b, 0x03, 0x04, 1, 2, 3, 4, 5, 6, 7, 8]);
    await expect(readRecords(workbookFile(damaged), noProgress)).rejects.toThrow(
      /The workbook could not be read/,
    );
    expect(sniffFile("a.zip", 4, new Uint8Array([0x50, 0x4b, 3, 4]))).toMatchObject({
      ok: false,
      message: expect.stringContaining("a ZIP archive"),
    });
    expect(sniffFile("a.xlsx", 4, new Uint8Array([0x50, 0x4b, 3, 4]))).toEqual({
      ok: true,
      format: "xlsx",
    });
  });
});
