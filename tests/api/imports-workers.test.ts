import { randomBytes } from "node:crypto";
import { eq } from "drizzle-orm";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openDatabase, type DatabaseHandle } from "@/lib/db/client";
import { importRows } from "@/lib/db/schema";
import { controlJob } from "@/lib/imports/jobs/control";
import { startImportRunner } from "@/lib/imports/jobs/runner";
import { requireJob, rowCounts } from "@/lib/imports/jobs/store";
import { usersFile, usersMapping } from "@/tests/fixtures/imports";
import { sharedSandbox } from "./support/http";
import { clientFor, createPlannedJob } from "./imports-harness";

const databaseUrl = process.env.TEST_DATABASE_URL;

/**
 * Two workers, each with its own connection pool (as two processes would have), share one
 * job on PostgreSQL: SKIP LOCKED claims mean no row is sent twice. Needs TEST_DATABASE_URL.
 */
describe.skipIf(!databaseUrl)("two workers on one PostgreSQL job", () => {
  const sandbox = sharedSandbox();
  const schemaName = `t_${randomBytes(6).toString("hex")}`;
  let first: DatabaseHandle;
  let second: DatabaseHandle;

  beforeAll(async () => {
    first = await openDatabase({ url: databaseUrl, schemaName });
    second = await openDatabase({ url: databaseUrl, schemaName });
  });
  afterAll(async () => {
    await Promise.all([first?.close(), second?.close()]);
    const client = new pg.Client({ connectionString: databaseUrl });
    await client.connect();
    await client.query(`drop schema if exists ${schemaName} cascade`).finally(() => client.end());
  });

  it("sends every row exactly once between them", async () => {
    const planned = await createPlannedJob(
      first,
      sandbox,
      "users",
      usersFile(1500, `pg_${randomBytes(4).toString("hex")}`),
      usersMapping,
    );
    await controlJob(first.db, planned.id, "run");
    const posts = [0, 0];
    const runners = [first, second].map((handle, i) =>
      startImportRunner({
        getDb: async () => handle.db,
        createClient: async (hooks) =>
          clientFor(sandbox, {
            ...hooks,
            onResponse: (info) => {
              if (info.method === "POST") posts[i]!++;
              hooks.onResponse(info);
            },
          }),
        workerId: `worker-${i}`,
        concurrency: 8,
        pollMs: 50,
        log: () => {},
      }),
    );
    try {
      const deadline = Date.now() + 60_000;
      while ((await requireJob(first.db, planned.id)).status !== "completed") {
        if (Date.now() > deadline) throw new Error("the job did not complete");
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
    } finally {
      await Promise.all(runners.map((runner) => runner.stop()));
    }
    expect(await rowCounts(first.db, planned.id)).toMatchObject({
      created: 1500,
      existed: 0,
      failed: 0,
    });
    // Both worked, and between them sent each row once.
    expect(posts[0]).toBeGreaterThan(100);
    expect(posts[1]).toBeGreaterThan(100);
    expect(posts[0]! + posts[1]!).toBe(1500);
    const rows = await first.db.select().from(importRows).where(eq(importRows.jobId, planned.id));
    // One request per row: no retry, no 400202 met.
    expect(rows.every((row) => row.attempts === 1 && row.resultMessage === null)).toBe(true);
    const written = await clientFor(sandbox).users.list({
      userIds: [rows[0]!.resourceKey!],
      limit: 1,
    });
    expect(written.users).toHaveLength(1);
  });
});
