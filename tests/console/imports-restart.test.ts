import { randomBytes } from "node:crypto";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openDatabase, type DatabaseHandle } from "@/lib/db/client";
import { controlJob } from "@/lib/imports/jobs/run/control";
import { rowCounts } from "@/lib/imports/jobs/store/jobs";
import { usersFile, usersMapping } from "@/tests/fixtures/imports";
import { clientFor, createPlannedJob, rowsDone, waitForJob } from "../api/imports-harness";
import { startConsoleServer, type ConsoleServer } from "../support/console-server";
import { waitFor } from "../support/wait";

const databaseUrl = process.env.TEST_DATABASE_URL;
const USERS = 5000;

/**
 * The console itself runs the job (its runner starts with the server) against its embedded
 * sandbox with faults, and is restarted mid-run. The test shares the console's PostgreSQL
 * schema to create the job, so it needs TEST_DATABASE_URL (the PGlite form of this test is
 * tests/api/imports-reliability.test.ts, which kills `npm run worker` instead).
 */
describe.skipIf(!databaseUrl)("an import survives a console restart", () => {
  const schemaName = `t_${randomBytes(6).toString("hex")}`;
  const token = `restart_${randomBytes(12).toString("hex")}`;
  let server: ConsoleServer;
  let handle: DatabaseHandle;

  beforeAll(async () => {
    server = await startConsoleServer({
      DATABASE_URL: databaseUrl!,
      DATABASE_SCHEMA: schemaName,
      SANDBOX_API_TOKEN: token,
      SANDBOX_FAULTS: "error_rate=0.05,hang_rate=0.01",
      PLATFORM_TIMEOUT_MS: "1000",
    });
    handle = await openDatabase({ url: databaseUrl, schemaName });
  });
  afterAll(async () => {
    await handle?.close();
    await server?.stop();
    const client = new pg.Client({ connectionString: databaseUrl });
    await client.connect();
    await client.query(`drop schema if exists ${schemaName} cascade`).finally(() => client.end());
  });

  it("completes after the restart with every valid user created once", async () => {
    const target = { baseUrl: `${server.origin}/sandbox/local`, token, appId: "local" };
    const prefix = `restart_${randomBytes(4).toString("hex")}`;
    const file = usersFile(USERS, prefix);
    file.rows.push(["", "No id", "true"]);
    const planned = await createPlannedJob(handle, target, "users", file, usersMapping, {
      clientTimeoutMs: 1000,
    });
    expect(planned.plan).toMatchObject({ toCreate: USERS, invalid: 1 });
    await controlJob(handle.db, planned.id, "run");

    const deadline = Date.now() + 150_000;
    await waitFor(
      () => rowsDone(handle.db, planned.id),
      (done) => done >= USERS / 3,
      {
        deadline,
        intervalMs: 100,
        failure: "the console did not start the job",
      },
    );
    await server.restart();
    await waitForJob(handle.db, planned.id, (job) => job.status === "completed", {
      timeoutMs: deadline - Date.now(),
      pollMs: 250,
      still: () => `the job did not complete:\n${server.output().slice(-2000)}`,
    });
    expect(await rowCounts(handle.db, planned.id)).toMatchObject({
      created: USERS,
      existed: 0,
      failed: 0,
      invalid: 1,
      pending: 0,
    });

    const client = clientFor(target, { timeoutMs: 1000 });
    let found = 0;
    for (let i = 0; i < USERS; i += 100) {
      const ids = Array.from({ length: 100 }, (_, k) => `${prefix}_${i + k}`);
      for (let attempt = 1; ; attempt++) {
        try {
          found += (await client.users.list({ userIds: ids, limit: 100, activeMode: "all" })).users
            .length;
          break;
        } catch (error) {
          if (attempt >= 10) throw error;
        }
      }
    }
    expect(found).toBe(USERS);
  }, 180_000);
});
