import { describe, expect, it } from "vitest";
import { csvLine } from "@/lib/imports/jobs/report/csv";
import { readRecords } from "@/lib/imports/parse/read-file";

const noProgress = () => {};
const read = async (text: string, name = "failures.csv") =>
  (await readRecords(new File([text], name), noProgress)).records;

describe("the failures CSV, read back by the import wizard", () => {
  it("takes off the apostrophe that neutralised a formula, in a file written by hand", async () => {
    const text = [
      "user_id,nickname,=team,reason,row",
      'u1,\'@SUM(A1),\'-1,"\'=HYPERLINK(""http://x"")",\'-> refused,2',
      "u2,''quoted,'plain,Nickname too long,3",
      "",
    ].join("\r\n");
    expect(await read(text)).toEqual([
      ["user_id", "nickname", "=team", "reason", "row"],
      ["u1", "@SUM(A1)", "-1", '=HYPERLINK("http://x")', "-> refused", "2"],
      // Only what the console wrote is undone: an apostrophe before an ordinary character stays.
      ["u2", "'quoted", "'plain", "Nickname too long", "3"],
    ]);
  });

  it("restores every value the console wrote, whatever it begins with", async () => {
    const values = ["@SUM(A1)", "=1+2", "+33 6", "-5", "\tx", "\rx", "'", "''", "'=x", "plain", ""];
    const columns = ["nickname", "row"];
    const text = [
      csvLine([...columns, "reason", "row in file"]),
      ...values.map((value, i) => csvLine([value, "=A1", `-${value}`, String(i + 2)])),
    ].join("");
    const [header, ...rows] = await read(text);
    expect(header).toEqual([...columns, "reason", "row in file"]);
    expect(rows).toEqual(values.map((value, i) => [value, "=A1", `-${value}`, String(i + 2)]));
    // No cell of the file itself begins with a character a spreadsheet runs.
    for (const line of text.split("\r\n"))
      for (const cell of line.split(",")) expect(cell).not.toMatch(/^"?[=+\-@\t\r]/);
  });

  it("leaves the apostrophes of any other file as they are", async () => {
    expect(await read("user_id,nickname\r\nu1,'@SUM(A1)\r\n")).toEqual([
      ["user_id", "nickname"],
      ["u1", "'@SUM(A1)"],
    ]);
    expect(await read("user_id,reason\r\nu1,'=x\r\n")).toEqual([
      ["user_id", "reason"],
      ["u1", "'=x"],
    ]);
  });
});
