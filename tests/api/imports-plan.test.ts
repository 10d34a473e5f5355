import { randomBytes } from "node:crypto";
import { and, eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { importJobs, importRows } from "@/lib/db/schema";
import { controlJob } from "@/lib/imports/jobs/run/control";
import { planJob, requestPlan } from "@/lib/imports/jobs/plan/plan";
import { missingReferences } from "@/lib/imports/jobs/plan/lookups";
import { startRehearsal } from "@/lib/imports/jobs/rehearse/rehearsal";
import { autoMap } from "@/lib/imports/mapping";
import { PreviewSession } from "@/lib/imports/parse/preview-session";
import type { Rehearsal } from "@/lib/imports/types";
import { createApplication, findApplication, listApplications } from "@/lib/sandbox";
import {
  rehearsalRunning,
  requireJob,
  rowCounts,
  type ImportJob,
} from "@/lib/imports/jobs/store/jobs";
import type { PlanProgress } from "@/lib/imports/types";
import { jobProgress } from "@/lib/imports/jobs/report/report";
import { messagesFile, messagesMapping, usersFile, usersMapping } from "@/tests/fixtures/imports";
import { waitFor } from "../support/wait";
import type { FetchLike } from "@/lib/platform/client";
import { call, sharedSandbox } from "./support/http";
import {
  clientFor,
  createPlannedJob,
  startTestPlanner,
  uploadJob,
  useJobDatabase,
  waitForJob,
  waitForPlan,
  uploadPreview,
  type Target,
} from "./imports-harness";

describe("plans are made in the background", () => {
  const sandbox = sharedSandbox();
  const jobs = useJobDatabase();

  /** A users job of `count` rows, all uploaded, not yet asked for a plan. */
  const uploadedJob = (count: number, { upload = count } = {}): Promise<ImportJob> =>
    uploadJob(
      jobs.handle,
      "users",
      usersFile(upload, `plan_${randomBytes(4).toString("hex")}`),
      usersMapping,
      {
        totalRows: count,
      },
    );

  it("refuses to plan before every row has arrived, and changes nothing", async () => {
    const job = await uploadedJob(3, { upload: 2 });
    await expect(requestPlan(jobs.handle.db, job.id)).rejects.toThrow(
      /Only 2 of the file's 3 rows have arrived/,
    );
    expect((await requireJob(jobs.handle.db, job.id)).status).toBe("draft");
  });

  it("reports its progress while it looks up, then saves the plan and lets go of the job", async () => {
    const job = await uploadedJob(450);
    const asked = await requestPlan(jobs.handle.db, job.id);
    expect(asked).toMatchObject({ status: "planning", plan: null });
    // Asking again while it waits changes nothing.
    expect((await requestPlan(jobs.handle.db, job.id)).status).toBe("planning");

    const reports: PlanProgress[] = [];
    const planned = await planJob(jobs.handle.db, clientFor(sandbox), job.id, async (progress) => {
      reports.push(progress);
      return true;
    });
    expect(reports[0]).toEqual({ step: "lookups", done: 0, total: 450 });
    expect(reports.at(-1)).toEqual({ step: "saving", done: 450, total: 450 });
    expect(planned).toMatchObject({
      status: "planned",
      planProgress: null,
      claimedBy: null,
      claimedUntil: null,
    });
    expect(planned.plan).toMatchObject({
      toCreate: 450,
      existing: 0,
      invalid: 0,
      lookups: { requests: 5 },
    });
  });

  it("plans a job far larger than those already planned, flagging its repeated users once each", async () => {
    // Plan a small job first: its plan leaves statistics that know of no larger job.
    const small = await uploadedJob(20);
    await requestPlan(jobs.handle.db, small.id);
    await planJob(jobs.handle.db, clientFor(sandbox), small.id);

    const file = usersFile(12_000, `large_${randomBytes(4).toString("hex")}`);
    // Rows 11,000 to 11,002 repeat the users of rows 10 to 12.
    for (let at = 0; at < 3; at++) file.rows[11_000 + at] = [...file.rows[10 + at]!];
    const job = await uploadJob(jobs.handle, "users", file, usersMapping);
    await requestPlan(jobs.handle.db, job.id);
    // Planned from statistics that did not count its rows, the duplicate check read the whole
    // job once per row: about a minute for this job on PGlite (341 s for 20,000 rows), with the
    // process's one thread blocked; the test's timeout (30 s) ends it.
    const planned = await planJob(jobs.handle.db, clientFor(sandbox), job.id);
    expect(planned.plan).toMatchObject({ toCreate: 11_997, invalid: 3 });
    const repeated = await jobs.handle.db
      .select({ rowIndex: importRows.rowIndex, planIssues: importRows.planIssues })
      .from(importRows)
      .where(and(eq(importRows.jobId, job.id), eq(importRows.state, "invalid")))
      .orderBy(importRows.rowIndex);
    expect(repeated.map((row) => row.rowIndex)).toEqual([11_000, 11_001, 11_002]);
    expect(repeated[0]!.planIssues).toEqual([
      expect.objectContaining({ message: expect.stringContaining("is on row 12 of the file") }),
    ]);
  });

  it("counts the rows with warnings as the preview does, its own checks and the plan's", async () => {
    const prefix = `warn_${randomBytes(4).toString("hex")}`;
    for (const id of ["ada", "bob"]) {
      const made = await call(sandbox, "POST", "/v3/users", {
        user_id: `${prefix}_${id}`,
        nickname: id,
        profile_url: "",
      });
      expect(made.status).toBe(200);
    }
    const [ada, bob, ghost] = [`${prefix}_ada`, `${prefix}_bob`, `${prefix}_ghost`] as const;
    // Rows 2-5 name a member who exists nowhere (a warning of the look-up, the plan's too);
    // rows 6-7 an operator who is not a member (a warning of the row itself); row 8 both,
    // with an error; row 9 is clean.
    const records = [
      ["channel_url", "user_ids", "operator_ids", "custom_type"],
      ...[0, 1, 2, 3].map((at) => [`${prefix}_m${at}`, `${ada};${ghost}`, "", ""]),
      ...[4, 5].map((at) => [`${prefix}_o${at}`, ada, bob, ""]),
      [`${prefix}_both`, `${ada};${ghost}`, bob, "k".repeat(129)],
      [`${prefix}_clean`, `${ada};${bob}`, ada, ""],
    ];
    const preview = new PreviewSession("group_channels", records);
    const header = preview.chooseHeader(0);
    const mapping = autoMap("group_channels", header.columns);
    preview.validate(mapping);
    const asked = preview.uncheckedReferences(1000);
    const counts = preview.referencesChecked(
      asked,
      await missingReferences(jobs.handle.db, clientFor(sandbox), asked),
    );
    expect(counts).toMatchObject({ rows: 8, errors: 1, warnings: 7 });

    const job = await uploadPreview(jobs.handle, preview, {
      resource: "group_channels",
      fileName: "warnings.csv",
      columns: header.columns,
      mapping,
      firstRow: header.firstRow,
    });
    const planned = await planJob(jobs.handle.db, clientFor(sandbox), job.id);
    expect(planned.plan).toMatchObject({ invalid: 1, warnings: counts.warnings });
  });

  it("stops without saving when its reporter says the job is no longer to be planned", async () => {
    const job = await uploadedJob(10);
    await requestPlan(jobs.handle.db, job.id);
    await controlJob(jobs.handle.db, job.id, "cancel");
    await expect(planJob(jobs.handle.db, clientFor(sandbox), job.id)).rejects.toThrow(
      /not waiting for a plan/,
    );

    const second = await uploadedJob(10);
    await requestPlan(jobs.handle.db, second.id);
    await expect(
      planJob(jobs.handle.db, clientFor(sandbox), second.id, async () => false),
    ).rejects.toThrow(/Stopped before the end/);
    expect((await requireJob(jobs.handle.db, second.id)).status).toBe("planning");
  });

  it("sends the job back to draft with the reason when the platform cannot be reached; a new plan then works", async () => {
    const job = await uploadedJob(5);
    await requestPlan(jobs.handle.db, job.id);
    const unreachable: Target = { ...sandbox, baseUrl: "http://127.0.0.1:9/sandbox/none" };
    await expect(
      waitForPlan(jobs.handle, unreachable, job.id, { clientTimeoutMs: 500 }),
    ).rejects.toThrow(/The plan could not be made/);
    const failed = await requireJob(jobs.handle.db, job.id);
    expect(failed).toMatchObject({ status: "draft", plan: null, claimedBy: null });
    // Said in words, without the look-up's query of a hundred user ids.
    expect(failed.error).toMatch(
      /^The plan could not be made: GET http:\/\/127\.0\.0\.1:9\/sandbox\/none\/v3\/users failed: /,
    );

    await requestPlan(jobs.handle.db, job.id);
    const planned = await waitForPlan(jobs.handle, sandbox, job.id);
    expect(planned).toMatchObject({ status: "planned", error: null });
    expect((await rowCounts(jobs.handle.db, job.id)).pending).toBe(5);
  });

  it("takes over a plan whose worker died, and leaves alone one whose worker is alive", async () => {
    const dead = await uploadedJob(5);
    const alive = await uploadedJob(5);
    await requestPlan(jobs.handle.db, dead.id);
    await requestPlan(jobs.handle.db, alive.id);
    await jobs.handle.db
      .update(importJobs)
      .set({ claimedBy: "dead-worker", claimedUntil: new Date(Date.now() - 1000) })
      .where(eq(importJobs.id, dead.id));
    await jobs.handle.db
      .update(importJobs)
      .set({ claimedBy: "live-worker", claimedUntil: new Date(Date.now() + 60_000) })
      .where(eq(importJobs.id, alive.id));

    expect((await waitForPlan(jobs.handle, sandbox, dead.id)).status).toBe("planned");
    const untouched = await requireJob(jobs.handle.db, alive.id);
    expect(untouched).toMatchObject({ status: "planning", claimedBy: "live-worker" });
  });

  it("never lets two planners make the same plan", async () => {
    const waiting = await Promise.all([uploadedJob(300), uploadedJob(300), uploadedJob(300)]);
    for (const job of waiting) await requestPlan(jobs.handle.db, job.id);
    const planned = new Map<string, string[]>();
    const planners = ["a", "b"].map((workerId) =>
      startTestPlanner(jobs.handle, sandbox, {
        workerId,
        log: (line) => {
          const jobId = /planned job (\S+)/.exec(line)?.[1];
          if (jobId) planned.set(jobId, [...(planned.get(jobId) ?? []), workerId]);
        },
      }),
    );
    try {
      const deadline = Date.now() + 30_000;
      while (planned.size < waiting.length && Date.now() < deadline)
        await new Promise((resolve) => setTimeout(resolve, 50));
    } finally {
      await Promise.all(planners.map((planner) => planner.stop()));
    }
    expect([...planned.values()].map((workers) => workers.length)).toEqual([1, 1, 1]);
    for (const job of waiting)
      expect((await requireJob(jobs.handle.db, job.id)).status).toBe("planned");
  });
});

describe("rehearsals are run in the background", () => {
  const sandbox = sharedSandbox();
  const jobs = useJobDatabase();

  /** Runs a planner of the test's own until the job's rehearsal is no longer running. */
  async function waitForRehearsal(jobId: string): Promise<Rehearsal> {
    const planner = startTestPlanner(jobs.handle, sandbox);
    try {
      const job = await waitForJob(jobs.handle.db, jobId, (job) => !rehearsalRunning(job), {
        timeoutMs: 30_000,
        still: () => "the rehearsal is still running",
      });
      return job.rehearsal!;
    } finally {
      await planner.stop();
    }
  }

  /** The scratch applications of a job's rehearsals: the last one's is kept for Verify. */
  const scratchApplications = async (jobId: string) =>
    (await listApplications(jobs.handle.db))
      .filter((app) => app.id.startsWith(`rehearsal-${jobId.slice(0, 8)}`))
      .map((app) => app.id);

  it("sends the whole plan to a scratch application, keeps it until the next plan, and sends nothing to the target", async () => {
    const prefix = `reh_${randomBytes(4).toString("hex")}`;
    const planned = await createPlannedJob(
      jobs.handle,
      sandbox,
      "users",
      usersFile(6, prefix, { inactiveEvery: 3 }),
      usersMapping,
    );
    expect(planned.plan).toMatchObject({ toCreate: 6, followUps: { deactivate: 2 } });

    await startRehearsal(jobs.handle.db, planned.id);
    await expect(startRehearsal(jobs.handle.db, planned.id)).rejects.toThrow(/already running/);
    await expect(controlJob(jobs.handle.db, planned.id, "run")).rejects.toThrow(
      /rehearsal of this import is running/,
    );
    await expect(requestPlan(jobs.handle.db, planned.id)).rejects.toThrow(
      /rehearsal of this import is running/,
    );

    const rehearsal = await waitForRehearsal(planned.id);
    expect(rehearsal).toMatchObject({
      state: "done",
      created: 6,
      existed: 0,
      failed: 0,
      followUpsFailed: 0,
      failures: [],
    });
    expect(await scratchApplications(planned.id)).toEqual([rehearsal.appId]);
    expect((await call(sandbox, "GET", `/v3/users/${prefix}_0`)).status).toBe(400);

    // A new plan drops the rehearsal of the old one, and its scratch application.
    await requestPlan(jobs.handle.db, planned.id);
    expect(await requireJob(jobs.handle.db, planned.id)).toMatchObject({
      status: "planning",
      rehearsal: null,
    });
    expect(await scratchApplications(planned.id)).toEqual([]);
  });

  it("takes over a rehearsal whose worker died, deleting the scratch application it left", async () => {
    const planned = await createPlannedJob(
      jobs.handle,
      sandbox,
      "users",
      usersFile(3, `dead_${randomBytes(4).toString("hex")}`),
      usersMapping,
    );
    const leftover = `rehearsal-${planned.id.slice(0, 8)}-dead00`;
    await createApplication(jobs.handle.db, { id: leftover, name: "Left by a dead worker" });
    const dying: Rehearsal = {
      state: "running",
      startedAt: new Date().toISOString(),
      appId: leftover,
    };
    await jobs.handle.db
      .update(importJobs)
      .set({
        rehearsal: dying,
        claimedBy: "dead-worker",
        claimedUntil: new Date(Date.now() - 1000),
      })
      .where(eq(importJobs.id, planned.id));

    const rehearsal = await waitForRehearsal(planned.id);
    expect(rehearsal).toMatchObject({ state: "done", created: 3 });
    expect(await findApplication(jobs.handle.db, leftover)).toBeUndefined();
    expect(await scratchApplications(planned.id)).toEqual([rehearsal.appId]);
    expect(await requireJob(jobs.handle.db, planned.id)).toMatchObject({
      claimedBy: null,
      claimedUntil: null,
    });
  });

  it("does not hold up a plan while a long rehearsal runs", async () => {
    // The rehearsal of a channels import first looks its members up on the target; holding
    // that answer keeps it running for exactly as long as the test needs, however fast the machine.
    const prefix = `long_${randomBytes(4).toString("hex")}`;
    expect(
      (
        await call(sandbox, "POST", "/v3/users", {
          user_id: `${prefix}_member`,
          nickname: "Member",
          profile_url: "",
        })
      ).status,
    ).toBe(200);
    const columns = ["channel_url", "name", "user_ids"];
    const channels = {
      columns,
      rows: Array.from({ length: 20 }, (_, at) => [
        `${prefix}_${at}`,
        `Channel ${at}`,
        `${prefix}_member`,
      ]),
    };
    const mapping = Object.fromEntries(columns.map((column) => [column, column]));
    const long = await createPlannedJob(jobs.handle, sandbox, "group_channels", channels, mapping);
    const short = await uploadJob(
      jobs.handle,
      "users",
      usersFile(5, `short_${randomBytes(4).toString("hex")}`),
      usersMapping,
    );

    let release = () => {};
    const held = new Promise<void>((resolve) => (release = resolve));
    let seedingAsked = () => {};
    const seeding = new Promise<void>((resolve) => (seedingAsked = resolve));
    const holdSeeding: FetchLike = async (url, init) => {
      if (url.includes(`${prefix}_member`)) {
        seedingAsked();
        await held;
      }
      return fetch(url, init);
    };
    await startRehearsal(jobs.handle.db, long.id);
    const planner = startTestPlanner(jobs.handle, sandbox, {
      fetch: holdSeeding,
      clientTimeoutMs: 120_000,
    });
    let stopping: Promise<void> | undefined;
    try {
      await seeding;
      await requestPlan(jobs.handle.db, short.id);
      planner.nudge();
      const planned = await waitForJob(
        jobs.handle.db,
        short.id,
        (job) => job.status !== "planning",
      );
      expect(planned.status).toBe("planned");
      expect((await requireJob(jobs.handle.db, long.id)).rehearsal?.state).toBe("running");
      // Still seeding: no row is sent yet, so there is no progress to show.
      expect((await jobProgress(jobs.handle.db, long.id)).rehearsalProgress).toBeNull();
      // Asked to stop while held: once the look-up answers, the rehearsal stops before sending anything.
      stopping = planner.stop();
    } finally {
      release();
      await (stopping ?? planner.stop());
    }
    // Stopping left the rehearsal asked for, and let go of it for another worker.
    expect(await requireJob(jobs.handle.db, long.id)).toMatchObject({
      rehearsal: { state: "running" },
      claimedBy: null,
    });
    expect(await waitForRehearsal(long.id)).toMatchObject({
      state: "done",
      created: 20,
      seededUsers: 1,
      seedFailed: 0,
    });
    // One application: the attempt that stopped deleted its own.
    expect(await scratchApplications(long.id)).toHaveLength(1);
  });

  /**
   * A messages rehearsal of 300 messages in two channels, held half-way: it asks the target
   * which kind each channel is before sending its messages, and the answer for the second
   * channel waits for `release()`. Returns once the first channel's 150 are counted.
   */
  async function heldRehearsal(prefix: string) {
    const client = clientFor(sandbox);
    const senders = [`${prefix}_ann`, `${prefix}_bob`];
    for (const id of senders)
      await client.users.create({ user_id: id, nickname: id, profile_url: "" });
    const first = `${prefix}_first`;
    const held = `${prefix}_held`;
    for (const url of [first, held])
      await client.groupChannels.create({ channel_url: url, user_ids: senders });
    const planned = await createPlannedJob(
      jobs.handle,
      sandbox,
      "messages",
      messagesFile([first, held], senders, 150),
      messagesMapping,
    );
    expect(planned.plan).toMatchObject({ toCreate: 300, invalid: 0 });

    let release = () => {};
    const holding = new Promise<void>((resolve) => (release = resolve));
    const holdChannel: FetchLike = async (url, init) => {
      if (url.includes(`/open_channels/${held}`)) await holding;
      return fetch(url, init);
    };
    const { db } = jobs.handle;
    await startRehearsal(db, planned.id);
    const planner = startTestPlanner(jobs.handle, sandbox, {
      fetch: holdChannel,
      clientTimeoutMs: 120_000,
    });
    try {
      const midway = await waitFor(
        () => jobProgress(db, planned.id),
        (progress) => progress.rehearsalProgress?.done === 150,
        {
          deadline: Date.now() + 30_000,
          intervalMs: 50,
          failure: (progress) => `progress: ${JSON.stringify(progress.rehearsalProgress)}`,
        },
      );
      return { planned, planner, release, midway };
    } catch (error) {
      release();
      await planner.stop();
      throw error;
    }
  }

  it("writes its progress as it goes: read mid-way, as the job page reads it, it has counts, pace and time left", async () => {
    const { db } = jobs.handle;
    const { planned, planner, release, midway } = await heldRehearsal(
      `prog_${randomBytes(4).toString("hex")}`,
    );
    try {
      expect(midway.rehearsal?.state).toBe("running");
      expect(midway.rehearsalProgress).toMatchObject({
        total: 300,
        done: 150,
        created: 150,
        existed: 0,
        failed: 0,
      });
      // A second on, from the database alone (a reloaded page, another process): a pace, and
      // the time the other half takes at it.
      await new Promise((resolve) => setTimeout(resolve, 1100));
      const later = (await jobProgress(db, planned.id)).rehearsalProgress!;
      expect(later.done).toBe(150);
      expect(later.perSecond).toBeGreaterThan(0);
      expect(later.secondsLeft).toBe(Math.ceil(150 / later.perSecond));
    } finally {
      release();
    }
    try {
      await waitForJob(db, planned.id, (job) => !rehearsalRunning(job));
    } finally {
      await planner.stop();
    }
    const over = await jobProgress(db, planned.id);
    expect(over.rehearsal).toMatchObject({ state: "done", created: 300, failed: 0 });
    expect(over.rehearsal?.progress).toBeUndefined();
    expect(over.rehearsalProgress).toBeNull();
  });

  it("cancelled mid-way, it stays cancelled: its outcome overwrites nothing and its scratch application goes", async () => {
    const { db } = jobs.handle;
    const { planned, planner, release } = await heldRehearsal(
      `canc_${randomBytes(4).toString("hex")}`,
    );
    try {
      await controlJob(db, planned.id, "cancel");
    } finally {
      release();
    }
    try {
      // The attempt has ended once its scratch application is gone, or once it saved an outcome.
      await waitFor(
        async () => ({
          job: await requireJob(db, planned.id),
          apps: await scratchApplications(planned.id),
        }),
        ({ job, apps }) => apps.length === 0 || job.rehearsal?.state === "done",
        {
          deadline: Date.now() + 30_000,
          intervalMs: 50,
          failure: ({ job, apps }) => `rehearsal ${JSON.stringify(job.rehearsal)}, apps ${apps}`,
        },
      );
    } finally {
      await planner.stop();
    }
    const job = await requireJob(db, planned.id);
    expect(job.status).toBe("cancelled");
    expect(job.rehearsal).toMatchObject({ state: "failed", error: "The import was cancelled." });
    expect(await scratchApplications(planned.id)).toEqual([]);
  });

  it("gives the scratch application the members a users import of this console will create", async () => {
    const prefix = `seedimp_${randomBytes(4).toString("hex")}`;
    const member = `${prefix}_new`;
    // Planned, not run: the target does not have the user yet, as in a migration rehearsed first.
    const users = await createPlannedJob(
      jobs.handle,
      sandbox,
      "users",
      { columns: ["user_id", "nickname"], rows: [[member, "Newcomer"]] },
      { user_id: "user_id", nickname: "nickname" },
    );
    expect(users.plan).toMatchObject({ toCreate: 1 });
    const columns = ["channel_url", "name", "user_ids"];
    const planned = await createPlannedJob(
      jobs.handle,
      sandbox,
      "group_channels",
      { columns, rows: [[`${prefix}_ch`, "Channel", member]] },
      Object.fromEntries(columns.map((column) => [column, column])),
    );
    await startRehearsal(jobs.handle.db, planned.id);
    const rehearsal = await waitForRehearsal(planned.id);
    expect(rehearsal).toMatchObject({
      state: "done",
      created: 1,
      failed: 0,
      followUpsFailed: 0,
      seededUsers: 1,
      seedFailed: 0,
    });
  });

  it("reports a member it could not copy into the scratch application as a seeding failure", async () => {
    const prefix = `seed_${randomBytes(4).toString("hex")}`;
    const columns = ["channel_url", "name", "user_ids"];
    const channels = { columns, rows: [[`${prefix}_ch`, "Channel", `${prefix}_member`]] };
    const mapping = Object.fromEntries(columns.map((column) => [column, column]));
    const planned = await createPlannedJob(
      jobs.handle,
      sandbox,
      "group_channels",
      channels,
      mapping,
    );
    // The target answers the look-up with a user the platform's own rules refuse to create.
    const unseedable = {
      user_id: `${prefix}_member`,
      nickname: "n".repeat(200),
      profile_url: "",
      is_online: false,
      is_active: true,
      last_seen_at: 0,
      metadata: {},
    };
    const target: FetchLike = async (url, init) =>
      url.includes("/v3/users?")
        ? Response.json({ users: [unseedable], next: "" })
        : fetch(url, init);
    await startRehearsal(jobs.handle.db, planned.id);
    const planner = startTestPlanner(jobs.handle, sandbox, { fetch: target });
    try {
      const job = await waitForJob(jobs.handle.db, planned.id, (job) => !rehearsalRunning(job));
      expect(job.rehearsal).toMatchObject({
        state: "done",
        seededUsers: 0,
        seedFailed: 1,
        seedFailures: [
          { userId: `${prefix}_member`, code: expect.any(Number), message: expect.any(String) },
        ],
      });
    } finally {
      await planner.stop();
    }
  });

  it("says a rehearsal that never ran will not, when the import is cancelled", async () => {
    const planned = await createPlannedJob(
      jobs.handle,
      sandbox,
      "users",
      usersFile(2, `cxl_${randomBytes(4).toString("hex")}`),
      usersMapping,
    );
    await startRehearsal(jobs.handle.db, planned.id);
    await controlJob(jobs.handle.db, planned.id, "cancel");
    expect(await requireJob(jobs.handle.db, planned.id)).toMatchObject({
      status: "cancelled",
      rehearsal: { state: "failed", error: "The import was cancelled." },
    });
  });
});
