/**
 * A users import rehearsed end to end on embedded PGlite, as the console does it: the plan
 * (look-ups against the console's in-process sandbox, 100 users per request), then the
 * rehearsal run (every creation against a scratch application of the in-process sandbox).
 * Runs in a child started with `--conditions=react-server` (the job modules are server-only).
 * BENCH_REHEARSAL_USERS (default 100,000) sets the size; the target for 100,000 is ≤ 60 s.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import type { Rehearsal } from "@/lib/imports/types";
import { machine, runBenchChild, today } from "./support";

type ChildResult = {
  users: number;
  uploadSeconds: number;
  planSeconds: number;
  rehearsalSeconds: number;
  created: number;
  failed: number;
};

export async function benchRehearsal(): Promise<string> {
  const sizes = (process.env.BENCH_REHEARSAL_USERS ?? "100000").split(",").map(Number);
  const load = os.loadavg()[0]!.toFixed(1);
  const results: ChildResult[] = [];
  for (const users of sizes) results.push(await runInChild(users));
  return [
    `Rehearsal on PGlite (${today()}, ${machine()}; load average ${load} at the start). Target: 100,000 users, plan + rehearsal ≤ 60 s.`,
    "",
    "| users | upload (s) | plan (s) | rehearsal run (s) | plan + rehearsal (s) | creations/s in the rehearsal | failed |",
    "|---:|---:|---:|---:|---:|---:|---:|",
    ...results.map(
      (r) =>
        `| ${r.users.toLocaleString("en")} | ${r.uploadSeconds.toFixed(1)} | ${r.planSeconds.toFixed(1)} | ${r.rehearsalSeconds.toFixed(1)} | **${(r.planSeconds + r.rehearsalSeconds).toFixed(1)}** | ${Math.round(r.created / r.rehearsalSeconds).toLocaleString("en")} | ${r.failed} |`,
    ),
  ].join("\n");
}

function runInChild(users: number): Promise<ChildResult> {
  return runBenchChild<ChildResult>("tests/bench/rehearsal.ts", {
    REHEARSAL_BENCH_CHILD: String(users),
  });
}

async function child(users: number) {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "switchboard-rehearsal-bench-"));
  const token = "bench_rehearsal_token_0123456789";
  const { openDatabase } = await import("@/lib/db/client");
  const { createPlatformClient } = await import("@/lib/platform/client");
  const { inProcessTransport } = await import("@/lib/platform/in-process");
  const { createSandboxApp, parseFaults } = await import("@/lib/sandbox");
  const { requireJob } = await import("@/lib/imports/jobs/store/jobs");
  const { appendRows, createJob } = await import("@/lib/imports/jobs/store/upload");
  const { planJob, requestPlan } = await import("@/lib/imports/jobs/plan/plan");
  const { runRehearsal, startRehearsal } = await import("@/lib/imports/jobs/rehearse/rehearsal");
  const handle = await openDatabase({ dataDir: path.join(dataDir, "pglite") });
  const { db } = handle;
  // The console's own sandbox, called in process as the console's plans call it.
  const sandbox = createSandboxApp({
    getDb: async () => db,
    config: {
      defaultAppId: "local",
      defaultApiToken: token,
      rateLimit: null,
      faults: parseFaults(undefined),
      webhookTimeoutMs: 5000,
    },
  });
  await sandbox.ready();
  const baseUrl = "http://sandbox.internal/sandbox/local";
  const target = createPlatformClient({
    appId: "local",
    chatBaseUrl: baseUrl,
    callsBaseUrl: baseUrl,
    apiToken: token,
    fetch: inProcessTransport(() => sandbox),
  });

  const job = await createJob(db, {
    resource: "users",
    fileName: "rehearsal-bench.csv",
    columns: ["user_id", "nickname"],
    mapping: { user_id: "user_id", nickname: "nickname" },
    totalRows: users,
  });
  const uploadStarted = performance.now();
  for (let start = 0; start < users; start += 5000) {
    const rows = Array.from({ length: Math.min(5000, users - start) }, (_, i) => ({
      index: start + i,
      values: [`rehearsed_${start + i}`, `Rehearsed ${start + i}`],
    }));
    await appendRows(db, job.id, rows);
  }
  const uploadSeconds = (performance.now() - uploadStarted) / 1000;
  const planStarted = performance.now();
  await requestPlan(db, job.id);
  await planJob(db, target, job.id);
  const planSeconds = (performance.now() - planStarted) / 1000;
  const rehearsalStarted = performance.now();
  await startRehearsal(db, job.id);
  await runRehearsal(db, target, job.id);
  const rehearsalSeconds = (performance.now() - rehearsalStarted) / 1000;
  const outcome = (await requireJob(db, job.id)).rehearsal as Rehearsal;
  if (outcome.state !== "done")
    throw new Error(`The rehearsal ended ${outcome.state}: ${outcome.error ?? ""}`);
  await handle.close();
  fs.rmSync(dataDir, { recursive: true, force: true });
  const result: ChildResult = {
    users,
    uploadSeconds,
    planSeconds,
    rehearsalSeconds,
    created: outcome.created ?? 0,
    failed: outcome.failed ?? 0,
  };
  console.log(JSON.stringify(result));
}

if (process.env.REHEARSAL_BENCH_CHILD) {
  await child(Number(process.env.REHEARSAL_BENCH_CHILD));
  process.exit(0);
}
