import { drizzle } from "drizzle-orm/pglite";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Database } from "@/lib/db/client";
import { preparedQuery } from "@/lib/db/raw";
import { scratchPglite } from "../support/pglite-template";

// One PGlite for the file, on a copy of a new database (tests/support/pglite-template.ts).
// Starting PGlite took 5-8 s on a slow machine, over a test's 5 s: it is set-up, not the test.
let scratch: Awaited<ReturnType<typeof scratchPglite>>;
beforeAll(async () => {
  scratch = await scratchPglite();
}, 60_000);
afterAll(() => scratch.close());

describe("preparedQuery on PGlite", () => {
  const client = () => scratch.client;
  let drizzled: Database | undefined;
  const db = () => (drizzled ??= drizzle(scratch.client) as unknown as Database);

  const text = "select $1::text as value, $2::int as number, $3::boolean as flag";

  it("passes values as literals that are never read as SQL", async () => {
    const awkward = `O'Brien '' \\ $1 '); drop table x; -- 😀`;
    const [row] = await preparedQuery<{ value: string; number: number; flag: boolean }>(
      db(),
      "raw_query_test",
      text,
      [awkward, 42, true],
    );
    expect(row).toEqual({ value: awkward, number: 42, flag: true });
    const [empty] = await preparedQuery<{ value: string | null }>(db(), "raw_query_test", text, [
      null,
      0,
      false,
    ]);
    expect(empty).toEqual({ value: null, number: 0, flag: false });
  });

  it("runs a statement another copy of the module already prepared on the same instance", async () => {
    // The console reaches one PGlite from Next.js's bundle and from the sandbox's listener.
    await client().exec(`prepare raw_query_elsewhere as ${text}`);
    const forget = client() as unknown as Record<symbol, Set<string> | undefined>;
    forget[Symbol.for("switchboard.preparedStatements")]?.delete("raw_query_elsewhere");
    const [row] = await preparedQuery<{ value: string }>(db(), "raw_query_elsewhere", text, [
      "x",
      1,
      false,
    ]);
    expect(row?.value).toBe("x");
  });
});

describe("text values read back from PGlite", () => {
  const client = () => scratch.client;

  // Its protocol reader decoded every value with a TextDecoder that drops a leading U+FEFF
  // (patched in lib/db/patches until PGlite does it itself).
  const values = ["\ufeff", "\ufeffc1", "\ufeff\ufeffx", "a\ufeff"];

  it("keeps a leading byte order mark, through parameters, literals and prepared statements", async () => {
    for (const value of values) {
      const { rows } = await client().query<{ value: string }>("select $1::text as value", [value]);
      expect(rows[0]?.value, JSON.stringify(value)).toBe(value);
      const [result] = await client().exec(`select '${value}'::text as value`);
      expect(result?.rows[0]?.value, JSON.stringify(value)).toBe(value);
      const [prepared] = await preparedQuery<{ value: string }>(
        drizzle(client()) as unknown as Database,
        "raw_query_bom",
        "select $1::text as value",
        [value],
      );
      expect(prepared?.value, JSON.stringify(value)).toBe(value);
    }
  });

  it("keeps it in column names too", async () => {
    const [result] = await client().exec(`select 1 as "\ufeffname"`);
    expect(result?.fields[0]?.name).toBe("\ufeffname");
  });
});
