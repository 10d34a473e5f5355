import { PGlite } from "@electric-sql/pglite";
import { drizzle } from "drizzle-orm/pglite";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Database } from "@/lib/db/client";
import { preparedQuery } from "@/lib/db/raw";

describe("preparedQuery on PGlite", () => {
  const client = new PGlite();
  const db = drizzle(client) as unknown as Database;
  // Starting PGlite took 5-8 s on a slow machine, over a test's 5 s: it is set-up, not the test.
  beforeAll(() => client.waitReady, 60_000);
  afterAll(() => client.close());

  const text = "select $1::text as value, $2::int as number, $3::boolean as flag";

  it("passes values as literals that are never read as SQL", async () => {
    const awkward = `O'Brien '' \\ $1 '); drop table x; -- 😀`;
    const [row] = await preparedQuery<{ value: string; number: number; flag: boolean }>(
      db,
      "raw_query_test",
      text,
      [awkward, 42, true],
    );
    expect(row).toEqual({ value: awkward, number: 42, flag: true });
    const [empty] = await preparedQuery<{ value: string | null }>(db, "raw_query_test", text, [
      null,
      0,
      false,
    ]);
    expect(empty).toEqual({ value: null, number: 0, flag: false });
  });

  it("runs a statement another copy of the module already prepared on the same instance", async () => {
    // The console reaches one PGlite from Next.js's bundle and from the sandbox's listener.
    await client.exec(`prepare raw_query_elsewhere as ${text}`);
    const forget = client as unknown as Record<symbol, Set<string> | undefined>;
    forget[Symbol.for("switchboard.preparedStatements")]?.delete("raw_query_elsewhere");
    const [row] = await preparedQuery<{ value: string }>(db, "raw_query_elsewhere", text, [
      "x",
      1,
      false,
    ]);
    expect(row?.value).toBe("x");
  });
});
