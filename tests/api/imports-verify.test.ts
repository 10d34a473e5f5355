import { randomBytes } from "node:crypto";
import { asc, eq, sql } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { importJobs, importVerificationFindings } from "@/lib/db/schema";
import { StoppedEarly } from "@/lib/imports/jobs/plan/plan";
import { Pacer } from "@/lib/imports/jobs/run/pacer";
import { listRows, requireJob } from "@/lib/imports/jobs/store/jobs";
import { startRehearsal } from "@/lib/imports/jobs/rehearse/rehearsal";
import { findApplication } from "@/lib/sandbox";
import {
  cancelVerification,
  findVerification,
  requestVerification,
  runVerification,
} from "@/lib/imports/jobs/verify/verify";
import { verificationCsv } from "@/lib/imports/jobs/verify/report";
import type { ImportJob } from "@/lib/imports/jobs/store/jobs";
import { messageColumns, messagesMapping, type ImportFile } from "@/tests/fixtures/imports";
import {
  clientFor,
  createPlannedJob,
  runJob,
  startTestPlanner,
  useJobDatabase,
  verifyJob,
  waitForJob,
} from "./imports-harness";
import { call, sharedSandbox } from "./support/http";

type Listed = {
  messages: Array<{
    message_id: number;
    created_at: number;
    message: string;
    sorted_metaarray: Array<{ key: string; value: string[] }>;
  }>;
};

describe("Verify against the sandbox", () => {
  const sandbox = sharedSandbox();
  const jobs = useJobDatabase();
  const client = () => clientFor(sandbox, { rateLimitRetries: 3 });

  /** Runs the Verify of a job with a verifier of the test's own (claimed as in production) and returns its findings. */
  async function verify(job: ImportJob, scope: "run" | "rehearsal" = "run") {
    const done = await verifyJob(jobs.handle, sandbox, job.id, scope);
    expect(done).toMatchObject({ state: "done", error: null });
    const findings = await jobs.handle.db
      .select()
      .from(importVerificationFindings)
      .where(eq(importVerificationFindings.verificationId, done.id))
      .orderBy(asc(importVerificationFindings.id));
    return { verification: done, findings };
  }

  /** Users, a group channel with three members, and its messages: imported and run. */
  async function migrated(prefix: string) {
    const [ann, bob, cy] = ["ann", "bob", "cy"].map((name) => `${prefix}_${name}`) as [
      string,
      string,
      string,
    ];
    const users = await createPlannedJob(
      jobs.handle,
      sandbox,
      "users",
      {
        columns: ["id", "name", "team"],
        rows: [
          [ann, "Ann", "red"],
          [bob, "Bob", "blue"],
          [cy, "Cy", "red"],
        ],
      },
      { id: "user_id", name: "nickname", team: "metadata.team" },
    );
    await runJob(jobs.handle, sandbox, users.id);
    const room = `${prefix}_room`;
    const channels = await createPlannedJob(
      jobs.handle,
      sandbox,
      "group_channels",
      { columns: ["url", "name", "members"], rows: [[room, "Room", [ann, bob, cy].join(";")]] },
      { url: "channel_url", name: "name", members: "user_ids" },
    );
    await runJob(jobs.handle, sandbox, channels.id);
    const file: ImportFile = { columns: [...messageColumns], rows: [] };
    for (let n = 0; n < 6; n++)
      file.rows.push([
        room,
        "text",
        n % 2 ? bob : ann,
        `hello ${n}`,
        String(1_700_000_000 + n),
        `${prefix}-m${n}`,
        "",
      ]);
    const messages = await createPlannedJob(
      jobs.handle,
      sandbox,
      "messages",
      file,
      messagesMapping,
    );
    await runJob(jobs.handle, sandbox, messages.id);
    return { users, channels, messages, room, ann, bob, cy };
  }

  it("finds nothing on an intact target, then exactly a deleted message, a removed reaction and a removed member", async () => {
    const prefix = `ver_${randomBytes(4).toString("hex")}`;
    const { users, channels, messages, room, ann, cy } = await migrated(prefix);

    // A reaction the import put on the third message, as a threads stage would: added through
    // the platform's API, and held by the row's own reactions cell through the job's mapping.
    const listed = await call<Listed>(
      sandbox,
      "GET",
      `/v3/group_channels/${room}/messages?message_ts=1&prev_limit=0&next_limit=200&with_sorted_meta_array=true`,
    );
    expect(listed.body.messages.map((message) => message.message)).toEqual(
      [0, 1, 2, 3, 4, 5].map((n) => `hello ${n}`),
    );
    // Each message the run sent carries its row's dedup id, which Verify matches it by.
    const rows = await listRows(jobs.handle.db, messages.id, { limit: 10 });
    expect(listed.body.messages.map((message) => message.sorted_metaarray)).toEqual(
      rows.map((row) => [{ key: "import_dedup_id", value: [row.body!.dedup_id] }]),
    );
    const [, , reacted, , deleted] = listed.body.messages;
    expect(
      (
        await call(
          sandbox,
          "POST",
          `/v3/group_channels/${room}/messages/${reacted!.message_id}/reactions`,
          {
            user_id: ann,
            reaction: "thumbsup",
          },
        )
      ).status,
    ).toBe(200);
    await jobs.handle.db
      .update(importJobs)
      .set({
        columns: [...messageColumns, "likes"],
        mapping: { ...messagesMapping, likes: "reactions" },
      })
      .where(eq(importJobs.id, messages.id));
    await jobs.handle.db.execute(sql`
      update import_rows set values = values || ${JSON.stringify([`thumbsup:${ann}`])}::jsonb
      where job_id = ${messages.id} and row_index = 2`);

    for (const job of [users, channels, messages]) {
      const { verification, findings } = await verify(job);
      expect(findings).toEqual([]);
      expect(verification.counts).toEqual({
        matched: job === messages ? 6 : job === users ? 3 : 1,
        missing: 0,
        extra: 0,
        different: 0,
      });
    }

    // The damage, through the sandbox's API.
    expect(
      (await call(sandbox, "DELETE", `/v3/group_channels/${room}/messages/${deleted!.message_id}`))
        .status,
    ).toBe(200);
    expect(
      (
        await call(
          sandbox,
          "DELETE",
          `/v3/group_channels/${room}/messages/${reacted!.message_id}/reactions?user_id=${ann}&reaction=thumbsup`,
        )
      ).status,
    ).toBe(200);
    // The sandbox has no "leave": a deactivation that leaves every channel, then the user back as it was.
    await client().users.update(cy, { is_active: false, leave_all_when_deactivated: true });
    await client().users.update(cy, { is_active: true });

    const found = [];
    for (const job of [users, channels, messages]) found.push(...(await verify(job)).findings);
    expect(found.map(({ kind, rowIndex, field }) => ({ kind, rowIndex, field }))).toEqual([
      { kind: "different", rowIndex: 0, field: "members" },
      { kind: "different", rowIndex: 2, field: "reactions" },
      { kind: "missing", rowIndex: 4, field: null },
    ]);
    expect(found[0]!.reason).toBe(`members: "${cy}" is not a member on the target.`);
    expect(found[1]!.reason).toBe(`reactions: "thumbsup" by "${ann}" is missing.`);
    expect(found[2]!.reason).toContain(`is not in channel "${room}"`);

    // The report as CSV: the counts, then each finding with the file's row number.
    const last = (await verify(messages)).verification;
    let csv = "";
    for await (const chunk of verificationCsv(jobs.handle.db, messages.id, last.id)) csv += chunk;
    const lines = csv.trimEnd().split("\r\n");
    expect(lines[0]).toBe("outcome,row,key,field,reason");
    expect(lines[1]).toBe("matched,,,,4 rows match the target.");
    expect(lines.slice(2).map((line) => line.split(",").slice(0, 2).join(","))).toEqual([
      "different,4",
      "missing,6",
    ]);
  });

  it("refuses a Verify before the run, a second one while one runs, and stops, keeps and goes on from its cursor", async () => {
    const prefix = `vres_${randomBytes(4).toString("hex")}`;
    const { messages, room } = await migrated(prefix);
    const planned = await createPlannedJob(
      jobs.handle,
      sandbox,
      "messages",
      {
        columns: [...messageColumns],
        rows: [[room, "text", `${prefix}_ann`, "later", "1700000100", `${prefix}-x`, ""]],
      },
      messagesMapping,
    );
    await expect(
      requestVerification(jobs.handle.db, planned.id, "run", { sample: null }),
    ).rejects.toThrow(/has not run/);
    await expect(
      requestVerification(jobs.handle.db, planned.id, "rehearsal", { sample: null }),
    ).rejects.toThrow(/no rehearsal to verify/);

    // A users import of many pages, verified a page at a time.
    const users = await createPlannedJob(
      jobs.handle,
      sandbox,
      "users",
      {
        columns: ["id", "name"],
        rows: Array.from({ length: 250 }, (_, n) => [`${prefix}_u${n}`, `U${n}`]),
      },
      { id: "user_id", name: "nickname" },
    );
    await runJob(jobs.handle, sandbox, users.id);
    const requested = await requestVerification(jobs.handle.db, users.id, "run", { sample: null });
    await expect(
      requestVerification(jobs.handle.db, users.id, "run", { sample: null }),
    ).rejects.toThrow(/running already/);
    let units = 0;
    const options = { pacer: new Pacer(), workerId: null, shouldStop: () => ++units > 1 };
    await expect(
      runVerification(jobs.handle.db, client(), requested.id, options),
    ).rejects.toBeInstanceOf(StoppedEarly);
    expect(await findVerification(jobs.handle.db, requested.id)).toMatchObject({
      state: "running",
      total: 250,
      done: 100,
      cursor: "99",
      counts: { matched: 100 },
    });
    // A user gone meanwhile, behind the cursor and ahead of it: only the one ahead is found.
    await client().users.delete(`${prefix}_u5`);
    await client().users.delete(`${prefix}_u200`);
    await runVerification(jobs.handle.db, client(), requested.id, {
      pacer: new Pacer(),
      workerId: null,
    });
    const done = await findVerification(jobs.handle.db, requested.id);
    expect(done).toMatchObject({ state: "done", done: 250, counts: { matched: 249, missing: 1 } });
    const [row200] = await listRows(jobs.handle.db, users.id, { afterIndex: 199, limit: 1 });
    const findings = await jobs.handle.db
      .select()
      .from(importVerificationFindings)
      .where(eq(importVerificationFindings.verificationId, requested.id));
    expect(findings).toMatchObject([
      { kind: "missing", rowIndex: row200!.rowIndex, key: `${prefix}_u200` },
    ]);

    // Cancelled: the worker stops at its next unit, and what it found is kept.
    const second = await requestVerification(jobs.handle.db, messages.id, "run", { sample: null });
    await cancelVerification(jobs.handle.db, messages.id);
    await runVerification(jobs.handle.db, client(), second.id, {
      pacer: new Pacer(),
      workerId: null,
    });
    expect(await findVerification(jobs.handle.db, second.id)).toMatchObject({
      state: "cancelled",
      done: 0,
    });
    await expect(cancelVerification(jobs.handle.db, messages.id)).rejects.toThrow(/No Verify/);
  });

  it("verifies a rehearsal in its scratch application, which the run then deletes", async () => {
    const prefix = `vreh_${randomBytes(4).toString("hex")}`;
    const planned = await createPlannedJob(
      jobs.handle,
      sandbox,
      "users",
      {
        columns: ["id", "name", "active"],
        rows: [
          [`${prefix}_a`, "A", "true"],
          [`${prefix}_b`, "B", "false"],
        ],
      },
      { id: "user_id", name: "nickname", active: "is_active" },
    );
    await startRehearsal(jobs.handle.db, planned.id);
    const planner = startTestPlanner(jobs.handle, sandbox);
    try {
      await waitForJob(jobs.handle.db, planned.id, (job) => job.rehearsal?.state === "done");
    } finally {
      await planner.stop();
    }
    const appId = (await requireJob(jobs.handle.db, planned.id)).rehearsal!.appId!;
    const { verification, findings } = await verify(planned, "rehearsal");
    expect(findings).toEqual([]);
    expect(verification).toMatchObject({ scope: "rehearsal", appId, counts: { matched: 2 } });
    // Nothing was sent to the target: a Verify of the run is refused before the run.
    expect((await call(sandbox, "GET", `/v3/users/${prefix}_a`)).status).toBe(400);
    await expect(
      requestVerification(jobs.handle.db, planned.id, "run", { sample: null }),
    ).rejects.toThrow(/has not run/);

    await runJob(jobs.handle, sandbox, planned.id);
    expect(await findApplication(jobs.handle.db, appId)).toBeUndefined();
    await expect(
      requestVerification(jobs.handle.db, planned.id, "rehearsal", { sample: null }),
    ).rejects.toThrow(/no rehearsal to verify/);
    expect((await verify(planned)).verification.counts).toEqual({
      matched: 2,
      missing: 0,
      extra: 0,
      different: 0,
    });
  });
});
