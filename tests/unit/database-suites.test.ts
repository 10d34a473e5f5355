import fs from "node:fs";
import { describe, expect, it } from "vitest";
import { bothDatabases, pgliteOnly, testFiles } from "@/tests/support/database-suites";

const folders = ["tests/api", "tests/console"];

describe("which test files run on PostgreSQL (tests/support/database-suites.ts)", () => {
  it("names every API and console test file once, with its reason", () => {
    const unclassified = folders
      .flatMap(testFiles)
      .filter((file) => !(file in bothDatabases) && !(file in pgliteOnly));
    expect(
      unclassified,
      `Classify ${unclassified.join(", ")} in tests/support/database-suites.ts: put it in ` +
        "`bothDatabases` if what it proves could differ on PostgreSQL (values through the " +
        "driver, text handling, leases, row locking, concurrent writes, NOTIFY, crash-restart, " +
        "migrations, the sandbox's writes), else in `pgliteOnly`, with the reason in a few " +
        "words. Until then it runs on both databases.",
    ).toEqual([]);
    const twice = Object.keys(bothDatabases).filter((file) => file in pgliteOnly);
    expect(twice, "in both lists of tests/support/database-suites.ts").toEqual([]);
  });

  it("names no file that is gone", () => {
    const gone = [...Object.keys(bothDatabases), ...Object.keys(pgliteOnly)].filter(
      (file) => !fs.existsSync(file),
    );
    expect(gone, "remove them from tests/support/database-suites.ts").toEqual([]);
  });

  it("gives a reason for every file", () => {
    for (const [file, reason] of Object.entries({ ...bothDatabases, ...pgliteOnly }))
      expect(reason.trim().length, file).toBeGreaterThan(10);
  });
});
