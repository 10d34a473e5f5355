import { randomBytes } from "node:crypto";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { controlJob } from "@/lib/imports/jobs/run/control";
import { requireJob, rowCounts } from "@/lib/imports/jobs/store/jobs";
import { openDatabase } from "@/lib/db/client";
import { usersFile, usersMapping } from "@/tests/fixtures/imports";
import { clientFor, createPlannedJob, openJobDatabase } from "./imports-harness";
import { startSandboxServer, type SandboxServer } from "./support/sandbox-server";
import { sized } from "../support/test-size";
import { doneRows, retrying, startWorker } from "./support/worker-process";

/** 1,500 users put about 75 failures and 15 unanswered requests on either side of the kill. */
const USERS = sized(1_500, 5_000);

/**
 * `npm run worker` against a sandbox that fails 5% of requests and leaves 1% unanswered
 * (half of those after doing the work), killed with SIGKILL mid-run and started again:
 * in the end every valid user exists exactly once and the report agrees with the platform.
 */
describe("import reliability under faults and a crash", () => {
  let sandbox: SandboxServer;

  beforeAll(async () => {
    sandbox = await startSandboxServer({
      SANDBOX_FAULTS: "error_rate=0.05,hang_rate=0.01",
      // Paced to the write limit, the run lasts at least five seconds however fast the machine,
      // so the worker (which reports progress every second) is killed in the middle of it.
      SANDBOX_RATE_LIMIT: `write=${Math.ceil(USERS / 5)}`,
    });
  });
  afterAll(async () => {
    await sandbox?.stop();
  });

  it("creates every valid user exactly once and reports what the platform holds", async () => {
    const prefix = `rel_${randomBytes(4).toString("hex")}`;
    const file = usersFile(USERS, prefix);
    file.rows.push(["", "No id", "true"], [`${prefix}_1`, "Duplicate", "true"]);
    const client = clientFor(sandbox, { timeoutMs: 1000 });
    const existing = [`${prefix}_10`, `${prefix}_20`, `${prefix}_30`];
    for (const userId of existing)
      await retrying(() =>
        client.users.create({ user_id: userId, nickname: "Before", profile_url: "" }),
      );

    const handle = await openJobDatabase();
    const planned = await createPlannedJob(handle, sandbox, "users", file, usersMapping, {
      clientTimeoutMs: 1000,
    });
    expect(planned.plan).toMatchObject({ toCreate: USERS - 3, existing: 3, invalid: 2 });
    await controlJob(handle.db, planned.id, "run");
    await handle.close();

    const worker = () => startWorker(handle.dataDir, sandbox);
    const first = worker();
    await first.waitFor((output) => (doneRows(output) ?? 0) >= USERS / 3);
    first.kill();
    await first.exited;
    const second = worker();
    const code = await second.exited;
    expect(code, second.output()).toBe(0);

    const reopened = await openDatabase({ dataDir: path.join(handle.dataDir, "pglite") });
    try {
      const job = await requireJob(reopened.db, planned.id);
      expect(job.status).toBe("completed");
      const counts = await rowCounts(reopened.db, planned.id);
      expect(counts).toMatchObject({
        created: USERS - 3,
        existed: 3,
        invalid: 2,
        failed: 0,
        pending: 0,
      });

      // The platform holds each valid user once (ids are unique there), and nothing else of ours.
      const ids = file.rows.slice(0, USERS).map((row) => row[0]!);
      const found: string[] = [];
      for (let i = 0; i < ids.length; i += 100) {
        const page = await retrying(() =>
          client.users.list({ userIds: ids.slice(i, i + 100), limit: 100 }),
        );
        found.push(...page.users.map((user) => user.user_id));
      }
      expect(found.length).toBe(USERS);
      expect(new Set(found).size).toBe(USERS);
      const kept = await retrying(() => client.users.get(`${prefix}_10`));
      expect(kept.nickname).toBe("Before");
    } finally {
      await reopened.close();
    }
  }, 180_000);
});
