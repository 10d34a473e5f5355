import { describe, expect, it } from "vitest";
import { preparedQuery } from "@/lib/db/raw";
import { useTestDatabase } from "./support/test-database";

/**
 * preparedQuery (lib/db/raw.ts) on the database this run tests: parameters of a named prepared
 * statement on PostgreSQL, `EXECUTE` with literals written by `pg`'s escapeLiteral on PGlite.
 * Whatever a value holds, it comes back as itself and is never read as SQL.
 */
describe("preparedQuery with hostile values", () => {
  const database = useTestDatabase();
  const text = "select $1::text as value, $2::int as number, $3::boolean as flag";
  type Row = { value: string | null; number: number; flag: boolean };

  const hostile = [
    "O'Brien",
    "''",
    "'",
    "\\",
    "\\'",
    "'\\",
    "a\\'); drop table import_jobs; --",
    "E'\\x41'",
    "$1 $$ $tag$ ?",
    "\\0 is not NUL",
    "line\nbreak\r\ttab",
    "\ufeffbyte order mark",
    "😀 emoji, 中文, ñ, \u200b\u202e",
    "\u{10ffff}",
    "x".repeat(10_000) + "'",
    "",
  ];

  it("returns every value as itself", async () => {
    for (const value of hostile) {
      const [row] = await preparedQuery<Row>(database.db, "hostile_values", text, [
        value,
        -7,
        false,
      ]);
      expect(row, JSON.stringify(value.slice(0, 40))).toEqual({
        value,
        number: -7,
        flag: false,
      });
    }
    const [empty] = await preparedQuery<Row>(database.db, "hostile_values", text, [null, 0, true]);
    expect(empty).toEqual({ value: null, number: 0, flag: true });
  });

  it("refuses NUL in text, and a number that is not finite, and the database is still usable", async () => {
    await expect(
      preparedQuery<Row>(database.db, "hostile_values", text, ["before\0after", 1, true]),
    ).rejects.toThrow("A text value cannot contain NUL (U+0000)");
    // PostgreSQL's driver sends a number as a text parameter, which the server refuses to cast.
    await expect(
      preparedQuery<Row>(database.db, "hostile_values", text, ["x", Number.NaN, true]),
    ).rejects.toThrow(process.env.TEST_DATABASE_URL ? /type integer/ : /Not a finite number/);
    const [row] = await preparedQuery<Row>(database.db, "hostile_values", text, ["after", 2, true]);
    expect(row).toEqual({ value: "after", number: 2, flag: true });
  });
});
