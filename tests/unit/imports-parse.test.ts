import { describe, expect, it } from "vitest";
import { autoMap } from "@/lib/imports/mapping";
import { PreviewSession } from "@/lib/imports/parse/preview-session";
import { FileProblem, readRecords } from "@/lib/imports/parse/read-file";
import {
  JsonColumns,
  raggedMessage,
  raggedRows,
  suggestHeaderRow,
  UnclosedQuoteFinder,
  unclosedQuoteMessage,
  uniqueHeaders,
} from "@/lib/imports/parse/records";
import {
  firstInvalidUtf8,
  notUtf8Message,
  sniffFile,
  Utf8Checker,
} from "@/lib/imports/parse/sniff";
import { readReactions } from "@/lib/imports/reactions";
import { latin1Csv, pngFile, utf16Csv } from "@/tests/fixtures/imports";

const bytes = (text: string) => new TextEncoder().encode(text);

describe("sniffFile", () => {
  it("refuses empty, binary and UTF-16 files with a reason", () => {
    expect(sniffFile("a.csv", 0, new Uint8Array())).toMatchObject({
      ok: false,
      message: expect.stringContaining("empty (0 bytes)"),
    });
    expect(sniffFile("a.csv", 16, pngFile)).toMatchObject({
      ok: false,
      message: expect.stringContaining("a PNG image"),
    });
    expect(sniffFile("a.csv", 40, utf16Csv)).toMatchObject({
      ok: false,
      message: expect.stringContaining("UTF-16"),
    });
    expect(sniffFile("a.csv", 4, new Uint8Array([0x61, 0, 0x62, 0x0a]))).toMatchObject({
      ok: false,
      message: expect.stringContaining("binary data"),
    });
    expect(sniffFile("a.zip", 4, new Uint8Array([0x50, 0x4b, 3, 4]))).toMatchObject({
      ok: false,
      message: expect.stringContaining("a ZIP archive"),
    });
  });

  it("tells the formats apart by content and name", () => {
    expect(sniffFile("a.csv", 10, bytes("a,b\n1,2\n"))).toEqual({ ok: true, format: "csv" });
    expect(sniffFile("a.tsv", 10, bytes("a\tb\n"))).toEqual({ ok: true, format: "tsv" });
    expect(sniffFile("a.txt", 10, bytes("a\tb\n"))).toEqual({ ok: true, format: "tsv" });
    expect(sniffFile("a.json", 10, bytes(' [{"a":1}]'))).toEqual({ ok: true, format: "json" });
    expect(sniffFile("a.json", 10, bytes('{"a":1}\n{"a":2}'))).toEqual({
      ok: true,
      format: "ndjson",
    });
    expect(sniffFile("a.json", 10, bytes('{\n "a": 1\n}'))).toEqual({ ok: true, format: "json" });
    expect(sniffFile("a.jsonl", 10, bytes('{"a":1}'))).toEqual({ ok: true, format: "ndjson" });
    expect(sniffFile("a.json", 10, bytes("a,b"))).toMatchObject({ ok: false });
  });

  it("Utf8Checker refuses Latin-1 and accepts a character split across chunks", () => {
    expect(new Utf8Checker().decode(latin1Csv, true)).toBeNull();
    const checker = new Utf8Checker();
    const euro = bytes("€");
    expect(checker.decode(euro.subarray(0, 1), false)).toBe("");
    expect(checker.decode(euro.subarray(1), true)).toBe("€");
  });
});

describe("exact file errors", () => {
  it("names the byte offset and line of the first bytes that are not UTF-8", () => {
    const checker = new Utf8Checker();
    expect(checker.decode(latin1Csv, true)).toBeNull();
    // "user_id,nickname\nu1,Ren" is 23 bytes: the é (0xe9) is byte 23, on line 2.
    expect([checker.failedAt, checker.failedLine]).toEqual([23, 2]);
    expect(notUtf8Message(checker.failedAt, checker.failedLine)).toContain(
      "at byte 23 (counting from 0), on line 2",
    );
  });

  it("finds the bad byte across chunks, after a character split between them", () => {
    const text = bytes("a,b\n€,1\nx,2\n");
    const bad = new Uint8Array([...text, 0x79, 0xc3, 0x28]); // 0xc3 0x28: a lead byte without its continuation
    const checker = new Utf8Checker();
    expect(checker.decode(bad.subarray(0, 5), false)).toBe("a,b\n"); // ends inside the €
    expect(checker.decode(bad.subarray(5), true)).toBeNull();
    expect([checker.failedAt, checker.failedLine]).toEqual([text.length + 1, 4]);
    expect(firstInvalidUtf8(bytes("ok €"))).toBe(-1);
    expect(firstInvalidUtf8(new Uint8Array([0x61, 0xed, 0xa0, 0x80]))).toBe(1); // a surrogate
    expect(firstInvalidUtf8(new Uint8Array([0x61, 0xe2, 0x82]), false)).toBe(-1); // cut off, more to come
    expect(firstInvalidUtf8(new Uint8Array([0x61, 0xe2, 0x82]), true)).toBe(1);
  });

  it("names the row and line where a quote that is never closed starts", () => {
    const finder = new UnclosedQuoteFinder(",");
    // Row 3 holds a quoted cell over two lines ("" inside is a quote); the quote on line 7 (row 6) never closes.
    const text =
      'user_id,nickname\nu1,"Ann ""A"""\nu2,"two\nlines"\nu3,x"y\nu4,C\nu5,"open\nu6,F\n';
    finder.feed(text.slice(0, 20));
    finder.feed(text.slice(20));
    expect(finder.finish()).toEqual({ row: 6, line: 7 });
    expect(unclosedQuoteMessage({ row: 6, line: 7 })).toContain(
      "Row 6 (line 7 of the file) opens a quote that is never closed",
    );
    const closed = new UnclosedQuoteFinder(";");
    closed.feed('a;b\r\n1;"x;y"\r\n');
    expect(closed.finish()).toBeNull();
  });
});

describe("records", () => {
  it("names blank and repeated headers", () => {
    expect(uniqueHeaders(["\uFEFFid", "", "name", "name"])).toEqual([
      "id",
      "Column 2",
      "name",
      "name (2)",
    ]);
  });

  it("suggests the first row as wide as most rows", () => {
    expect(
      suggestHeaderRow([
        ["a", "b"],
        ["1", "2"],
      ]),
    ).toBe(0);
    expect(suggestHeaderRow([["Export"], [""], ["id", "name"], ["1", "a"], ["2", "b"]])).toBe(2);
  });

  it("suggests the header below a title as wide as the table (a workbook, or a CSV Excel padded)", () => {
    const table = [
      ["user_id", "nickname", "profile_url", "is_active"],
      ["u1", "Ann", "", "true"],
      ["u2", "Bob", "https://example.com/b.png", ""],
    ];
    expect(suggestHeaderRow([["Users export", "", "", ""], ...table])).toBe(1);
    expect(
      suggestHeaderRow([
        ["Users export", "", "", ""],
        [],
        ["Exported by", "Ann", "", ""],
        ...table,
      ]),
    ).toBe(3);
    // Two columns: a title fills one of the two.
    expect(
      suggestHeaderRow([
        ["People", ""],
        ["id", "name"],
        ["1", "Ann"],
      ]),
    ).toBe(1);
    // Data rows with empty cells do not move the header.
    expect(suggestHeaderRow([...table, ["u3", "", "", ""]])).toBe(0);
  });

  it("finds ragged rows and says which", () => {
    const ragged = raggedRows([["a", "b"], ["1", "2"], ["1"], ["1", "2", "3"]], 0);
    expect(ragged).toEqual({ rows: [3, 4], total: 2, width: 2 });
    expect(raggedMessage(ragged)).toBe(
      "Rows 3, 4 have a different number of cells than the header (2). Check the quotes and separators on those rows, or choose another header row.",
    );
  });

  it("JSON objects become cells: nested objects as dotted columns, lists joined with ;", () => {
    const columns = new JsonColumns();
    expect(
      columns.cells({
        id: "a",
        metadata: { team: "red" },
        members: ["x", "y"],
        active: false,
        note: null,
      }),
    ).toEqual(["a", "red", "x;y", "false", ""]);
    expect(columns.cells({ extra: 1, id: "b" })).toEqual(["b", "", "", "", "", "1"]);
    expect(columns.columns).toEqual(["id", "metadata.team", "members", "active", "note", "extra"]);
  });

  it("a list of objects stays a JSON list, as an NDJSON message's reactions are written", () => {
    const reactions = [
      { key: "thumbsup", user_ids: ["ann", "bob"] },
      { key: "heart", user_ids: ["cy"] },
    ];
    const [cell] = new JsonColumns().cells({ reactions });
    expect(cell).toBe(JSON.stringify(reactions));
    expect(readReactions(cell!)).toEqual({ reactions });
  });
});

describe("readRecords (JSON and NDJSON)", () => {
  const file = (name: string, content: string | Uint8Array) =>
    new File([content as BlobPart], name);
  const noProgress = () => {};

  it("reads an array of objects", async () => {
    const result = await readRecords(
      file(
        "u.json",
        JSON.stringify([
          { user_id: "a", nickname: "A" },
          { user_id: "b", metadata: { t: "1" } },
        ]),
      ),
      noProgress,
    );
    expect(result).toEqual({
      format: "json",
      headerFixed: true,
      records: [
        ["user_id", "nickname", "metadata.t"],
        ["a", "A", ""],
        ["b", "", "1"],
      ],
    });
  });

  it("reads NDJSON line by line, a blank line keeping its place", async () => {
    const result = await readRecords(
      file("u.ndjson", '{"user_id":"a"}\r\n\n{"user_id":"b","nickname":"B"}\n{}\n\n'),
      noProgress,
    );
    expect(result.records).toEqual([["user_id", "nickname"], ["a", ""], [], ["b", "B"], ["", ""]]);
  });

  it("says which line or item is wrong", async () => {
    await expect(readRecords(file("u.ndjson", '{"a":1}\n{oops}\n'), noProgress)).rejects.toThrow(
      "Line 2 is not valid JSON",
    );
    await expect(readRecords(file("u.json", '[{"a":1}, 2]'), noProgress)).rejects.toThrow(
      "Item 2 of the JSON array is not an object",
    );
    await expect(readRecords(file("u.json", '[{"a":1},'), noProgress)).rejects.toThrow(FileProblem);
    await expect(readRecords(file("u.json", '{\n"a":1\n}'), noProgress)).rejects.toThrow(
      "holds one object",
    );
  });

  it("refuses a NUL or half a surrogate pair, which JSON can escape but no cell can hold", async () => {
    await expect(
      readRecords(
        file("u.ndjson", '{"user_id":"a"}\n{"user_id":"b","x":"A\\u0000B"}\n'),
        noProgress,
      ),
    ).rejects.toThrow("Line 2 holds a NUL character");
    await expect(
      readRecords(file("u.json", '[{"user_id":"a"},{"user_id":"b"},{"n\\ud800":"c"}]'), noProgress),
    ).rejects.toThrow(
      "Item 3 of the JSON array holds a NUL character (\\u0000) or half of a surrogate pair",
    );
  });

  it("an empty array, or objects without keys, say so", async () => {
    const empty: Array<[string, string]> = [
      ["u.json", "[]"],
      ["u.json", "[\n]\n"],
      ["u.ndjson", "\n\n"],
    ];
    for (const [name, content] of empty)
      await expect(readRecords(file(name, content), noProgress)).rejects.toThrow(
        "The file holds no rows.",
      );
    const keyless: Array<[string, string]> = [
      ["u.json", "[{}, {}]"],
      ["u.ndjson", "{}\n\n{}\n"],
    ];
    for (const [name, content] of keyless)
      await expect(readRecords(file(name, content), noProgress)).rejects.toThrow(
        "The file's objects have no keys",
      );
  });

  it("refuses JSON that is not UTF-8", async () => {
    await expect(
      readRecords(file("u.json", new Uint8Array([0x5b, 0x22, 0xe9, 0x22, 0x5d])), noProgress),
    ).rejects.toThrow("not UTF-8");
  });
});

describe("blank lines count in the row numbers", () => {
  const file = (name: string, content: string) => new File([content], name);
  const noProgress = () => {};

  /** The row numbers the preview shows and the indexes the upload sends. */
  function numbered(records: string[][], headerInFile = true) {
    const preview = new PreviewSession("users", records, {}, headerInFile);
    const header = preview.chooseHeader(headerInFile ? suggestHeaderRow(records) : 0);
    const counts = preview.validate(autoMap("users", header.columns));
    return {
      firstRow: header.firstRow,
      rows: counts.rows,
      rowNumbers: preview.rows("all", 0, 100).rows.map((row) => row.rowNumber),
      uploaded: preview.uploadRows(0, 100).map((row) => row.index),
      errors: preview.rows("errors", 0, 100).rows.map((row) => row.rowNumber),
    };
  }

  it("CSV: a blank line before the header, between rows and at the end", async () => {
    // Line 1 blank, 2 header, 3 u1, 4 and 5 blank, 6 no id, 7 only separators, 8 u3, then blanks.
    const text = "\nuser_id,nickname\nu1,A\n\n\n,No id\n, \nu3,C\n\n\n";
    const read = await readRecords(file("u.csv", text), noProgress);
    expect(read.records).toEqual([
      [],
      ["user_id", "nickname"],
      ["u1", "A"],
      [],
      [],
      ["", "No id"],
      [],
      ["u3", "C"],
    ]);
    expect(numbered(read.records)).toEqual({
      firstRow: 3,
      rows: 3,
      rowNumbers: [3, 6, 8],
      uploaded: [0, 3, 5],
      errors: [6],
    });
  });

  it("TSV and semicolons: the separator is still found among blank lines", async () => {
    const tsv = await readRecords(file("u.tsv", "user_id\tnickname\n\n\nu1\tA\n"), noProgress);
    expect(numbered(tsv.records).rowNumbers).toEqual([4]);
    const semicolons = await readRecords(
      file("u.csv", "user_id;nickname\n\n\n\n\n\n\nu1;A\n\nu2;B\n"),
      noProgress,
    );
    expect(semicolons.records[0]).toEqual(["user_id", "nickname"]);
    expect(numbered(semicolons.records).rowNumbers).toEqual([8, 10]);
  });

  it("NDJSON: each object's row number is its line", async () => {
    const read = await readRecords(
      file("u.ndjson", '{"user_id":"a"}\n\n\n{"user_id":"b"}\n\n'),
      noProgress,
    );
    expect(numbered(read.records, false)).toMatchObject({ rowNumbers: [1, 4], uploaded: [0, 3] });
  });

  it("uploads in chunks by rows, blank lines skipped, each row with its index", () => {
    const preview = new PreviewSession("users", [
      ["user_id", "nickname"],
      ["u1", "A"],
      [],
      [],
      ["u2", "B"],
      ["u3", "C"],
    ]);
    preview.validate(autoMap("users", preview.chooseHeader(0).columns));
    expect(preview.uploadRows(0, 2).map((row) => row.index)).toEqual([0, 3]);
    expect(preview.uploadRows(2, 2).map((row) => row.index)).toEqual([4]);
    expect(() => preview.edit(1, 0, "x")).toThrow("not in the file");
    expect(() => preview.chooseHeader(2)).toThrow("blank");
  });
});

describe("PreviewSession", () => {
  function session(values: string[][], header = ["user_id", "nickname"]) {
    const preview = new PreviewSession("users", [header, ...values]);
    const choice = preview.chooseHeader(0);
    const counts = preview.validate(autoMap("users", choice.columns));
    return { preview, counts };
  }

  it("counts rows, errors and warnings, and filters them", () => {
    const { preview, counts } = session([
      ["a", "A"],
      ["b", ""],
      ["a", "A again"],
    ]);
    expect(counts).toEqual({ rows: 3, valid: 1, errors: 2, warnings: 0, excluded: 0 });
    expect(preview.rows("errors", 0, 10).rows.map((row) => row.index)).toEqual([1, 2]);
    expect(preview.rows("all", 1, 2)).toMatchObject({
      total: 3,
      rows: [{ index: 1, excluded: false }],
    });
  });

  it("a fixed cell is checked again, with the rows that share its old and new user id", () => {
    const { preview } = session([
      ["a", "A"],
      ["a", "B"],
      ["c", "C"],
    ]);
    // Row 2 takes row 3's id: it is valid of row 1, and row 3 becomes the duplicate's first.
    let result = preview.edit(1, 0, "c");
    expect(result.counts).toMatchObject({ valid: 2, errors: 1 });
    expect(result.row.issues).toEqual([]);
    // Row numbers are the rows a spreadsheet shows: the header is row 1, index 1 is row 3.
    expect(preview.viewRow(2).issues[0]!.message).toContain("row 3");
    result = preview.edit(2, 0, "d");
    expect(result.counts).toMatchObject({ valid: 3, errors: 0 });
  });

  it("an excluded row is left out of the counts and of the duplicate check", () => {
    const { preview } = session([
      ["a", "A"],
      ["a", "B"],
    ]);
    expect(preview.exclude(0, true)).toEqual({
      rows: 2,
      valid: 1,
      errors: 0,
      warnings: 0,
      excluded: 1,
    });
    expect(preview.rows("excluded", 0, 10).rows.map((row) => row.index)).toEqual([0]);
    expect(preview.exclude(0, false)).toMatchObject({ valid: 1, errors: 1, excluded: 0 });
  });

  it("uploads rows in chunks bounded by rows and by size", () => {
    const { preview } = session(Array.from({ length: 10 }, (_, at) => [`u${at}`, "x".repeat(100)]));
    preview.exclude(3, true);
    expect(preview.uploadRows(2, 3).map((row) => [row.index, row.excluded])).toEqual([
      [2, undefined],
      [3, true],
      [4, undefined],
    ]);
    expect(preview.uploadRows(0, 10, 250)).toHaveLength(2);
    expect(preview.uploadRows(9, 10)).toHaveLength(1);
  });

  it("refuses ragged files, a header without rows, and says why", () => {
    expect(() => new PreviewSession("users", [["a", "b"], ["1"]]).chooseHeader(0)).toThrow(
      "Row 2 has a different number of cells",
    );
    expect(() => new PreviewSession("users", [["a", "b"]]).chooseHeader(0)).toThrow(
      "no rows under it",
    );
  });
});

describe("a CSV the reader stops on is refused, never read in part", () => {
  const noProgress = () => {};

  it("a quote not doubled inside a quoted cell names its row, in a small file and past the first 2 MB", async () => {
    await expect(
      readRecords(new File(['user_id,nickname\nu1,"A "B" C"\nu2,B\n'], "u.csv"), noProgress),
    ).rejects.toThrow(/^Row 2 has a quoted cell with a quote inside it that is not doubled/);
    // 150,000 rows are read in several chunks; the bad one is in a later chunk than the first.
    const rows = Array.from({ length: 150_000 }, (_, at) => `u${at},Name ${at}`);
    rows[120_000] = 'u120000,"Bob "the" Builder"';
    const text = `user_id,nickname\n${rows.join("\n")}\n`;
    expect(text.length).toBeGreaterThan(2 * 1024 * 1024);
    await expect(readRecords(new File([text], "u.csv"), noProgress)).rejects.toThrow(
      /^Row 120,002 has a quoted cell/,
    );
  });

  it("a character cut by the end of a slice of the file stays whole", async () => {
    // ASCII rows up to just before 2 MiB (a slice's end), then a name whose first 3-byte
    // character starts on the slice's last byte.
    const slice = 2 * 1024 * 1024;
    const lines = ["user_id,nickname"];
    let bytes = lines[0]!.length + 1;
    while (bytes < slice - 200) {
      const line = `u${lines.length},${"x".repeat(60)}`;
      lines.push(line);
      bytes += line.length + 1;
    }
    const name = `${"x".repeat(slice - 1 - bytes - "cut,".length)}名前`;
    lines.push(`cut,${name}`, "after,Ann");
    const read = await readRecords(new File([`${lines.join("\n")}\n`], "u.csv"), noProgress);
    expect(read.records.length).toBe(lines.length);
    expect(read.records.at(-2)).toEqual(["cut", name]);
    expect(read.records.at(-1)).toEqual(["after", "Ann"]);
  });

  it("more rows than the limit", async () => {
    const text = `user_id,nickname\n${Array.from({ length: 200 }, (_, at) => `u${at},N`).join("\n")}\n`;
    await expect(
      readRecords(new File([text], "u.csv"), noProgress, { bytes: 1_000_000, rows: 50 }),
    ).rejects.toThrow("The file has more than 50 rows");
  });
});
