/**
 * Import job throughput against the standalone sandbox:
 *   (a) no limit: the job's users/second ÷ the sandbox's own users/second under autocannon;
 *   (b) SANDBOX_RATE_LIMIT=write=50: achieved users/second ÷ 50, and the share of 429s.
 * The job runs in a child process started with `--conditions=react-server` (its modules are
 * server-only), on a fresh PGlite database of its own, over HTTP to the sandbox.
 */
import autocannon from "autocannon";
import { processCpuMs } from "./cpu";
import { startSandboxServer, type SandboxServer } from "../api/support/sandbox-server";
import {
  machine,
  openBenchJobs,
  runBenchChild,
  runJobToCompletion,
  today,
  type BenchTarget,
} from "./support";

type ChildResult = {
  users: number;
  created: number;
  seconds: number;
  responses: number;
  rateLimited: number;
  /** The plan (dry run) before the run: look-ups of every user, 100 per request. */
  planSeconds: number;
  /** Storing the uploaded rows, 5,000 per chunk as the wizard sends them (validated again, inserted). */
  uploadSeconds: number;
  /** CPU time (user + system, /proc) the job's process spent from Run to completed, in ms. */
  runCpuMs: number;
};

const seconds = Number(process.env.BENCH_SECONDS ?? 10);

export async function benchImportRun(): Promise<string> {
  // (a) No limit.
  const open = await startSandboxServer();
  let raw: number;
  let unlimited: ChildResult;
  try {
    raw = await sandboxUsersPerSecond(open, seconds);
    unlimited = await runJobInChild(
      open,
      Math.min(30_000, Math.max(2_000, Math.round(raw * seconds))),
    );
  } finally {
    await open.stop();
  }
  // (b) 50 writes per second.
  const limited = await startSandboxServer({ SANDBOX_RATE_LIMIT: "write=50" });
  let paced: ChildResult;
  try {
    paced = await runJobInChild(limited, Math.max(250, 50 * Math.max(seconds, 10)));
  } finally {
    await limited.stop();
  }
  const jobRate = unlimited.created / unlimited.seconds;
  const pacedRate = paced.created / paced.seconds;
  const share429 = paced.responses === 0 ? 0 : paced.rateLimited / paced.responses;
  const planRate = unlimited.users / unlimited.planSeconds;
  const uploadRate = unlimited.users / unlimited.uploadSeconds;
  const mark = (ok: boolean) => (ok ? "✅" : "❌");
  return [
    `Import job run (${today()}, ${machine()}; job concurrency 16; autocannon ${seconds} s, 10 connections)`,
    "",
    "| Measure | Value | Target |",
    "|---|---|---|",
    `| Sandbox alone, POST /v3/users under autocannon | ${Math.round(raw)} users/s | |`,
    `| Import job, no limit (${unlimited.users.toLocaleString("en")} users in ${unlimited.seconds.toFixed(1)} s) | ${Math.round(jobRate)} users/s | |`,
    `| Job process CPU during that run, per user created | ${Math.round((unlimited.runCpuMs * 1000) / unlimited.created)} µs | |`,
    `| Job ÷ sandbox alone | ${(jobRate / raw).toFixed(2)} | ≥ 0.7 ${mark(jobRate / raw >= 0.7)} |`,
    `| Upload before that run (rows stored, 5,000 per chunk, validated again on the server) | ${unlimited.uploadSeconds.toFixed(1)} s, ${Math.round(uploadRate).toLocaleString("en")} rows/s | |`,
    `| Plan before that run (${unlimited.users.toLocaleString("en")} users looked up, 100 per request) | ${unlimited.planSeconds.toFixed(1)} s, ${Math.round(planRate).toLocaleString("en")} users/s | |`,
    `| Import job, write=50 (${paced.users.toLocaleString("en")} users in ${paced.seconds.toFixed(1)} s) | ${pacedRate.toFixed(1)} users/s | |`,
    `| Achieved ÷ 50 | ${(pacedRate / 50).toFixed(2)} | ≥ 0.9 ${mark(pacedRate / 50 >= 0.9)} |`,
    `| Requests answered 429 | ${(share429 * 100).toFixed(2)} % (${paced.rateLimited} of ${paced.responses}) | < 2 % ${mark(share429 < 0.02)} |`,
  ].join("\n");
}

async function sandboxUsersPerSecond(sandbox: SandboxServer, duration: number): Promise<number> {
  let counter = 0;
  const result = await autocannon({
    url: `${sandbox.baseUrl}/v3/users`,
    method: "POST",
    connections: 10,
    duration,
    headers: { "content-type": "application/json", "Api-Token": sandbox.token },
    requests: [
      {
        setupRequest: (request) => ({
          ...request,
          body: JSON.stringify({ user_id: `raw_${counter++}`, nickname: "Bench", profile_url: "" }),
        }),
      },
    ],
  });
  return result.requests.average;
}

function runJobInChild(sandbox: SandboxServer, users: number): Promise<ChildResult> {
  return runBenchChild<ChildResult>("tests/bench/import-run.ts", {
    IMPORT_BENCH_CHILD: JSON.stringify({
      baseUrl: sandbox.baseUrl,
      token: sandbox.token,
      appId: sandbox.appId,
      users,
    }),
  });
}

/** In the child: upload, plan and run one users job, then print its figures as JSON. */
async function child(config: BenchTarget & { users: number }) {
  const { appendRows, createJob } = await import("@/lib/imports/jobs/store/upload");
  const { planJob, requestPlan } = await import("@/lib/imports/jobs/plan/plan");
  const { db, client, close } = await openBenchJobs("import", config);
  const prefix = `bench_${Date.now().toString(36)}`;
  const job = await createJob(db, {
    resource: "users",
    fileName: "bench.csv",
    columns: ["user_id", "nickname"],
    mapping: { user_id: "user_id", nickname: "nickname" },
    totalRows: config.users,
  });
  const uploadStarted = performance.now();
  for (let start = 0; start < config.users; start += 5000) {
    const rows = Array.from({ length: Math.min(5000, config.users - start) }, (_, i) => ({
      index: start + i,
      values: [`${prefix}_${start + i}`, `Bench ${start + i}`],
    }));
    await appendRows(db, job.id, rows);
  }
  const uploadSeconds = (performance.now() - uploadStarted) / 1000;
  await requestPlan(db, job.id);
  const planStarted = performance.now();
  await planJob(db, client(), job.id);
  const planSeconds = (performance.now() - planStarted) / 1000;
  const cpuBefore = processCpuMs(process.pid);
  const run = await runJobToCompletion(db, client, job.id);
  const runCpuMs = processCpuMs(process.pid) - cpuBefore;
  const { responses, rateLimited } = run.pacers.write.stats;
  await close();
  const result: ChildResult = {
    users: config.users,
    created: run.counts.created,
    seconds: run.seconds,
    responses,
    rateLimited,
    planSeconds,
    uploadSeconds,
    runCpuMs,
  };
  console.log(JSON.stringify(result));
}

if (process.env.IMPORT_BENCH_CHILD) {
  await child(JSON.parse(process.env.IMPORT_BENCH_CHILD) as Parameters<typeof child>[0]);
  process.exit(0);
} else if (process.argv[1]?.endsWith("import-run.ts")) {
  console.log(await benchImportRun());
  process.exit(0);
}
