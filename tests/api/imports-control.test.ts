import { randomBytes } from "node:crypto";
import { eq, and } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { DatabaseHandle } from "@/lib/db/client";
import { importRows } from "@/lib/db/schema";
import { controlJob } from "@/lib/imports/jobs/run/control";
import { startImportRunner } from "@/lib/imports/jobs/worker/runner";
import { failuresCsv } from "@/lib/imports/jobs/report/report";
import { requireJob, rowCounts } from "@/lib/imports/jobs/store/jobs";
import { usersFile, usersMapping } from "@/tests/fixtures/imports";
import { call, sharedSandbox } from "./support/http";
import {
  clientFor,
  createPlannedJob,
  finishMigration,
  openJobDatabase,
  runJob,
  useJobDatabase,
  waitForJob,
} from "./imports-harness";
import { startSandboxServer, type SandboxServer } from "./support/sandbox-server";
import { sleep, waitFor } from "../support/wait";

describe("import jobs: retries that meet 400202, channels, refusals", () => {
  const sandbox = sharedSandbox();
  const jobs = useJobDatabase();

  it("counts a 400202 as created after a lost answer of ours, as existed after someone else's creation", async () => {
    const prefix = `dup_${randomBytes(4).toString("hex")}`;
    const planned = await createPlannedJob(
      jobs.handle,
      sandbox,
      "users",
      usersFile(10, prefix),
      usersMapping,
    );
    const client = clientFor(sandbox);
    // After the plan: user 1 made by an attempt of ours whose answer was lost, user 2 by someone else.
    await client.users.create({ user_id: `${prefix}_1`, nickname: "Lost answer", profile_url: "" });
    await client.users.create({
      user_id: `${prefix}_2`,
      nickname: "Someone else",
      profile_url: "",
    });
    await jobs.handle.db
      .update(importRows)
      .set({ attempts: 1 })
      .where(and(eq(importRows.jobId, planned.id), eq(importRows.rowIndex, 1)));

    const { job } = await runJob(jobs.handle, sandbox, planned.id);
    const counts = await rowCounts(jobs.handle.db, job.id);
    expect(counts).toMatchObject({ created: 9, existed: 1, failed: 0 });
    const rows = await jobs.handle.db.select().from(importRows).where(eq(importRows.jobId, job.id));
    expect(rows.find((row) => row.rowIndex === 1)?.state).toBe("created");
    expect(rows.find((row) => row.rowIndex === 2)?.state).toBe("existed");
  });

  it("imports group channels: derived channel_urls, members checked, strict refused in the plan, frozen after creation", async () => {
    const prefix = `ch_${randomBytes(4).toString("hex")}`;
    const users = await createPlannedJob(
      jobs.handle,
      sandbox,
      "users",
      usersFile(4, prefix),
      usersMapping,
    );
    await runJob(jobs.handle, sandbox, users.id);
    const columns = [
      "source_id",
      "channel_url",
      "name",
      "user_ids",
      "operator_ids",
      "frozen",
      "strict",
    ];
    const file = {
      columns,
      rows: [
        [`${prefix}-a`, "", "Derived", `${prefix}_0;${prefix}_1`, `${prefix}_0`, "true", ""],
        ["", `${prefix}_given`, "Given", `${prefix}_2|${prefix}_3`, "", "", ""],
        [`${prefix}-b`, "", "Unknown member", `${prefix}_0;ghost_${prefix}`, "", "", ""],
        [`${prefix}-c`, "", "Strict unknown", `ghost_${prefix}`, "", "", "true"],
      ],
    };
    const mapping = Object.fromEntries(columns.map((column) => [column, column]));
    const planned = await createPlannedJob(jobs.handle, sandbox, "group_channels", file, mapping);
    expect(planned.plan).toMatchObject({
      toCreate: 3,
      invalid: 1,
      missingMembers: 1,
      followUps: { freeze: 1 },
    });

    const { job } = await runJob(jobs.handle, sandbox, planned.id);
    expect(await rowCounts(jobs.handle.db, job.id)).toMatchObject({
      created: 3,
      invalid: 1,
      failed: 0,
      followUpsPending: 0,
    });
    const rows = await jobs.handle.db.select().from(importRows).where(eq(importRows.jobId, job.id));
    // A source id that is a valid channel URL is kept as the channel's URL.
    const derived = rows.find((row) => row.rowIndex === 0)!.resourceKey!;
    expect(derived).toBe(`${prefix}-a`);
    const channel = await call<{
      freeze: boolean;
      members: Array<{ user_id: string; role: string }>;
    }>(sandbox, "GET", `/v3/group_channels/${derived}`);
    // Frozen in the migration's last stage, not right after its creation.
    expect(channel.body.freeze).toBe(false);
    await finishMigration(jobs.handle, sandbox);
    expect(
      (await call<{ freeze: boolean }>(sandbox, "GET", `/v3/group_channels/${derived}`)).body
        .freeze,
    ).toBe(true);
    expect(channel.body.members.map((member) => member.user_id).sort()).toEqual([
      `${prefix}_0`,
      `${prefix}_1`,
    ]);
    expect((await call(sandbox, "GET", `/v3/group_channels/${prefix}_given`)).status).toBe(200);

    let csv = "";
    for await (const part of failuresCsv(jobs.handle.db, job.id)) csv += part;
    const lines = csv.trim().split("\r\n");
    expect(lines[0]).toBe(`${columns.join(",")},reason,row`);
    expect(lines).toHaveLength(2);
    expect(lines[1]).toContain(`${prefix}-c`);
    expect(lines[1]).toContain("strict");
  });

  it("refuses wrong state transitions and changes nothing", async () => {
    const planned = await createPlannedJob(
      jobs.handle,
      sandbox,
      "users",
      usersFile(2, `st_${randomBytes(3).toString("hex")}`),
      usersMapping,
    );
    await expect(controlJob(jobs.handle.db, planned.id, "pause")).rejects.toThrow(
      /planned, so it cannot be paused/,
    );
    await expect(controlJob(jobs.handle.db, planned.id, "resume")).rejects.toThrow(
      /cannot be run|cannot/,
    );
    await expect(
      controlJob(jobs.handle.db, "00000000-0000-4000-8000-000000000000", "run"),
    ).rejects.toThrow(/no such import/);
    expect((await requireJob(jobs.handle.db, planned.id)).status).toBe("planned");
    await controlJob(jobs.handle.db, planned.id, "cancel");
    await expect(controlJob(jobs.handle.db, planned.id, "run")).rejects.toThrow(
      /cancelled, so it cannot be run/,
    );
  });
});

describe("import jobs under a write limit of 50/s", () => {
  let limited: SandboxServer;
  let handle: DatabaseHandle;

  beforeAll(async () => {
    [limited, handle] = await Promise.all([
      startSandboxServer({ SANDBOX_RATE_LIMIT: "write=50" }),
      openJobDatabase(),
    ]);
  });
  afterAll(async () => {
    await Promise.all([limited?.stop(), handle?.close()]);
  });

  it("pauses, resumes and cancels; stays under the limit", async () => {
    const prefix = `pace_${randomBytes(4).toString("hex")}`;
    const planned = await createPlannedJob(
      handle,
      limited,
      "users",
      usersFile(400, prefix),
      usersMapping,
    );
    await controlJob(handle.db, planned.id, "run");
    const runner = startImportRunner({
      getDb: async () => handle.db,
      createClient: async (hooks) => clientFor(limited, hooks),
      pollMs: 100,
      log: () => {},
    });
    const created = () => rowCounts(handle.db, planned.id).then((counts) => counts.created);
    try {
      await waitFor(created, (n) => n > 20, {
        deadline: Date.now() + 20_000,
        intervalMs: 50,
        failure: (n) => `${n} rows created, not more than 20`,
      });
      await controlJob(handle.db, planned.id, "pause");
      // In-flight requests finish and are recorded: the count stops moving.
      let before = -1;
      await waitFor(
        async () => [before, (before = await created())] as const,
        ([previous, now]) => previous === now,
        { deadline: Date.now() + 20_000, intervalMs: 300, failure: "the count never settles" },
      );
      const paused = await rowCounts(handle.db, planned.id);
      expect(paused.created).toBeGreaterThan(20);
      expect(paused.pending).toBeGreaterThan(0);
      // Unpaused, the runner would create 25 users in this time at 50 a second.
      await sleep(500);
      expect(await created()).toBe(paused.created);

      await controlJob(handle.db, planned.id, "resume");
      runner.nudge();
      await waitFor(created, (n) => n > paused.created + 20, {
        deadline: Date.now() + 20_000,
        intervalMs: 50,
        failure: (n) => `${n} rows created after resuming, from ${paused.created}`,
      });
      await controlJob(handle.db, planned.id, "cancel");
      await waitForJob(handle.db, planned.id, (job) => job.status === "cancelled", {
        timeoutMs: 20_000,
        still: (job) => `job is ${job.status}, not cancelled`,
      });
      const counts = await rowCounts(handle.db, planned.id);
      expect(counts.created).toBeGreaterThan(paused.created);
      expect(counts.pending).toBeGreaterThan(0);
      expect(counts.created + counts.pending).toBe(400);

      // The platform holds exactly the rows reported created.
      const client = clientFor(limited);
      let found = 0;
      for (let i = 0; i < 400; i += 100) {
        const ids = Array.from({ length: 100 }, (_, k) => `${prefix}_${i + k}`);
        found += (await client.users.list({ userIds: ids, limit: 100 })).users.length;
      }
      expect(found).toBe(counts.created);
      const { responses, rateLimited } = runner.pacersOf(null).write.stats;
      expect(rateLimited / responses).toBeLessThan(0.02);
    } finally {
      await runner.stop();
    }
  });
});
