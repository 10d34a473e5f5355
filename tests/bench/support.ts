import { spawn } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import type { Database } from "@/lib/db/client";
import { chromiumArgs, chromiumExecutable } from "../support/chromium";
import type { PlatformClient, PlatformClientOptions } from "@/lib/platform/client";

export const root = path.resolve(import.meta.dirname, "../..");

/** Replaces (or appends) the block between `<!-- bench:NAME -->` markers in docs/benchmarks.md. */
export function writeSection(name: string, markdown: string) {
  const file = path.join(root, "docs", "benchmarks.md");
  const text = fs.existsSync(file) ? fs.readFileSync(file, "utf8") : "# Benchmarks\n";
  const begin = `<!-- bench:${name} -->`;
  const end = `<!-- /bench:${name} -->`;
  const block = `${begin}\n${markdown.trim()}\n${end}`;
  const pattern = new RegExp(`${begin}[\\s\\S]*?${end}`);
  fs.writeFileSync(
    file,
    pattern.test(text) ? text.replace(pattern, () => block) : `${text.trimEnd()}\n\n${block}\n`,
  );
}

/** Debian's Chromium as the browser benches launch it: the e2e tests' flags, precise heap figures. */
export const chromiumLaunch = {
  executablePath: chromiumExecutable,
  args: [...chromiumArgs, "--enable-precise-memory-info"],
};

export function machine(): string {
  const cpu = os.cpus()[0]?.model ?? "unknown CPU";
  return `${os.cpus().length} × ${cpu}, ${Math.round(os.totalmem() / 2 ** 30)} GiB, Node ${process.version}`;
}

export function today(): string {
  return new Date().toISOString().slice(0, 10);
}

export function isBuilt(): boolean {
  return fs.existsSync(path.join(root, ".next", "BUILD_ID"));
}

/**
 * Runs a bench script as a child with `--conditions=react-server` (the job modules are
 * server-only) and parses the JSON it prints on its last line. BENCH_CPU_PROF=<dir> writes the
 * child's CPU profile there (NODE_OPTIONS refuses --cpu-prof).
 */
export function runBenchChild<T>(script: string, env: Record<string, string>): Promise<T> {
  const profile = process.env.BENCH_CPU_PROF;
  const profiling = profile ? ["--cpu-prof", `--cpu-prof-dir=${profile}`] : [];
  const args = [...profiling, "--conditions=react-server", "--import", "tsx", script];
  const child = spawn(process.execPath, args, {
    cwd: root,
    env: { ...process.env, ...env },
    stdio: ["ignore", "pipe", "inherit"],
  });
  let output = "";
  child.stdout.on("data", (chunk: Buffer) => (output += chunk.toString()));
  return new Promise((resolve, reject) =>
    child.once("exit", (code) => {
      const line = output.trim().split("\n").at(-1) ?? "";
      if (code === 0 && line.startsWith("{")) resolve(JSON.parse(line) as T);
      else reject(new Error(`${script} exited with ${code}:\n${output}`));
    }),
  );
}

/** The sandbox application a bench child imports into. */
export type BenchTarget = { baseUrl: string; token: string; appId: string };

/**
 * In a bench child: a fresh PGlite job database in a directory of its own, and a client of
 * `target` (call it again for each client; `hooks` are the runner's). `close` deletes it all.
 * The job modules are imported here, not above, because they load only under react-server.
 */
export async function openBenchJobs(
  name: string,
  target: BenchTarget,
  options: Partial<PlatformClientOptions> = {},
) {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), `switchboard-${name}-bench-`));
  const { openDatabase } = await import("@/lib/db/client");
  const { createPlatformClient } = await import("@/lib/platform/client");
  const handle = await openDatabase({ dataDir: path.join(dataDir, "pglite") });
  return {
    db: handle.db,
    client: (hooks: Partial<PlatformClientOptions> = {}) =>
      createPlatformClient({
        appId: target.appId,
        chatBaseUrl: target.baseUrl,
        callsBaseUrl: target.baseUrl,
        apiToken: target.token,
        ...options,
        ...hooks,
      }),
    close: async () => {
      await handle.close();
      fs.rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/**
 * In a bench child: runs a planned job with an import runner of its own until it completes.
 * Returns the seconds from Run to completed, the rows' counts, and the runner's pacers.
 */
export async function runJobToCompletion(
  db: Database,
  client: (hooks: Partial<PlatformClientOptions>) => PlatformClient,
  jobId: string,
) {
  const { controlJob } = await import("@/lib/imports/jobs/run/control");
  const { startImportRunner } = await import("@/lib/imports/jobs/worker/runner");
  const { jobStatus, rowCounts } = await import("@/lib/imports/jobs/store/jobs");
  // The runner polls as the console's does (every 500 ms; Run nudges it), and this loop reads
  // the status alone: both share the job's one thread, and a poll every few milliseconds of
  // the whole job row (its plan included) was a visible share of a messages run's CPU.
  const runner = startImportRunner({
    getDb: async () => db,
    createClient: async (hooks) => client(hooks),
    log: () => {},
  });
  const started = performance.now();
  await controlJob(db, jobId, "run");
  runner.nudge();
  while ((await jobStatus(db, jobId)) !== "completed")
    await new Promise((resolve) => setTimeout(resolve, 50));
  const seconds = (performance.now() - started) / 1000;
  await runner.stop();
  return { seconds, counts: await rowCounts(db, jobId), pacers: runner.pacersOf(null) };
}
