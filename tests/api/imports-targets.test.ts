import { randomBytes } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { controlJob } from "@/lib/imports/jobs/run/control";
import { finalStage, requestFinalStage } from "@/lib/imports/jobs/finish/steps";
import { requestVerification, findVerification } from "@/lib/imports/jobs/verify/verify";
import { startImportRunner } from "@/lib/imports/jobs/worker/runner";
import { usersFile, usersMapping } from "@/tests/fixtures/imports";
import { waitFor } from "../support/wait";
import { clientFor, createPlannedJob, useJobDatabase, waitForJob } from "./imports-harness";
import { sharedSandbox } from "./support/http";
import { startSandboxServer, type SandboxServer } from "./support/sandbox-server";

/**
 * Import jobs on two targets (issue 25.3): each job's run, last stage, Verify and pace belong to
 * the target it was made on. Target "a" is the shared sandbox, target "b" a sandbox of its own,
 * so where each request went shows on the platforms themselves.
 */
describe("import jobs on two targets", () => {
  const a = sharedSandbox();
  let b: SandboxServer;
  const jobs = useJobDatabase();
  /** The targets the runner was asked for a client of, in order. */
  const asked: Array<string | null> = [];

  beforeAll(async () => {
    b = await startSandboxServer({ SANDBOX_APP_ID: "second" });
  }, 120_000);
  afterAll(async () => {
    await b?.stop();
  });

  const platformOf = (targetId: string | null) => (targetId === "b" ? b : a);
  function startRunner() {
    return startImportRunner({
      getDb: async () => jobs.handle.db,
      createClient: async ({ targetId, ...hooks }) => {
        asked.push(targetId);
        // As lib/targets answers for a target removed since (its TargetError, by name).
        if (targetId === "gone")
          throw Object.assign(new Error("That remote platform has been removed from Settings."), {
            name: "TargetError",
          });
        return clientFor(platformOf(targetId), { ...hooks, timeoutMs: 10_000 });
      },
      pollMs: 50,
      log: () => {},
    });
  }
  const activeOf = async (targetId: string, userId: string) =>
    (await clientFor(platformOf(targetId)).users.get(userId)).is_active;

  it("runs each job on its target, paced by that target's own pacers; the last stage and Verify follow the job's target", async () => {
    const prefix = `tg_${randomBytes(4).toString("hex")}`;
    const plan = (targetId: "a" | "b", count: number, name: string = targetId) =>
      createPlannedJob(
        jobs.handle,
        platformOf(targetId),
        "users",
        usersFile(count, `${prefix}_${name}`, { inactiveEvery: 2 }),
        usersMapping,
        { targetId },
      );
    const [onA, onB] = [await plan("a", 6), await plan("b", 4)];
    const { db } = jobs.handle;
    await controlJob(db, onA.id, "run");
    await controlJob(db, onB.id, "run");
    const runner = startRunner();
    try {
      for (const job of [onA, onB])
        await waitForJob(db, job.id, (found) => found.status === "completed", {
          timeoutMs: 60_000,
        });
      // Each platform holds its own users only.
      expect(await activeOf("a", `${prefix}_a_1`)).toBe(true);
      expect(await activeOf("b", `${prefix}_b_1`)).toBe(true);
      await expect(clientFor(a).users.get(`${prefix}_b_1`)).rejects.toThrow();
      await expect(clientFor(b).users.get(`${prefix}_a_1`)).rejects.toThrow();
      // One pace per target: each target's pacers saw its own answers only.
      const [paceA, paceB] = [runner.pacersOf("a"), runner.pacersOf("b")];
      expect(paceA).not.toBe(paceB);
      expect(paceA.write.stats.responses).toBe(6);
      expect(paceB.write.stats.responses).toBe(4);

      // Another import on b, planned and not run: it holds b's last stage back, not a's.
      await plan("b", 2, "b_more");
      expect(await finalStage(db, "a")).toMatchObject({
        state: "ready",
        waitingFor: null,
        deactivate: { toDo: 3 },
      });
      expect(await finalStage(db, "b")).toMatchObject({
        state: "waiting",
        deactivate: { toDo: 3 },
      });
      await expect(requestFinalStage(db, "b")).rejects.toThrow(/cannot be finished yet/);
      asked.length = 0;
      await requestFinalStage(db, "a");
      runner.nudge();
      const finished = await waitFor(
        () => finalStage(db, "a"),
        (stage) => stage.state !== "in progress",
        { deadline: Date.now() + 30_000, intervalMs: 100, failure: () => "still finishing" },
      );
      expect(finished).toMatchObject({ state: "done", deactivate: { done: 3, failed: 0 } });
      expect(asked).not.toContain("b");
      for (const at of [0, 2, 4]) expect(await activeOf("a", `${prefix}_a_${at}`)).toBe(false);
      // b's people stay active until b's own last stage.
      for (const at of [0, 2]) expect(await activeOf("b", `${prefix}_b_${at}`)).toBe(true);
      expect(await finalStage(db, "b")).toMatchObject({
        state: "waiting",
        deactivate: { done: 0 },
      });

      // Verify reads the job's target: every row of b's job is on b, none missing.
      const requested = await requestVerification(db, onB.id, "run", { sample: null });
      runner.nudge();
      const done = await waitFor(
        async () => (await findVerification(db, requested.id))!,
        (verification) => verification.state !== "running",
        { deadline: Date.now() + 30_000, intervalMs: 50, failure: () => "Verify still running" },
      );
      expect(done).toMatchObject({ state: "done", error: null });
      expect(done.counts).toMatchObject({ matched: 4, missing: 0 });
    } finally {
      await runner.stop();
    }
  });

  it("pauses a job whose target is gone, with the reason, and runs the jobs behind it", async () => {
    const prefix = `gone_${randomBytes(4).toString("hex")}`;
    const { db } = jobs.handle;
    const [stranded, next] = [
      await createPlannedJob(jobs.handle, a, "users", usersFile(3, `${prefix}_x`), usersMapping, {
        targetId: "gone",
      }),
      await createPlannedJob(jobs.handle, a, "users", usersFile(3, `${prefix}_y`), usersMapping, {
        targetId: "a",
      }),
    ];
    // The stranded job is the older run: without the pause it would hold up the other for good.
    await controlJob(db, stranded.id, "run");
    await controlJob(db, next.id, "run");
    const runner = startRunner();
    try {
      const paused = await waitForJob(db, stranded.id, (job) => job.status === "paused", {
        timeoutMs: 30_000,
      });
      expect(paused.error).toMatch(/removed from Settings\. Nothing more can be sent/);
      await waitForJob(db, next.id, (job) => job.status === "completed", { timeoutMs: 60_000 });
      await expect(clientFor(a).users.get(`${prefix}_x_0`)).rejects.toThrow();
    } finally {
      await runner.stop();
    }
  });
});
