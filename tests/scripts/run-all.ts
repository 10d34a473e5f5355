/**
 * `npm test`: everything CI runs, in order. Lint, the dependency rules, the format check and
 * typecheck side by side; unit tests; API tests on PGlite; a production build beside the
 * API tests on PostgreSQL (the files whose behaviour can depend on the database,
 * tests/support/database-suites.ts); the console's HTTP tests on both databases side by side;
 * and the browser tests. A failing step does not stop the others, so one run shows every
 * failure; only the steps that serve the build are left out when the build fails.
 *
 * SKIP_POSTGRES=1 leaves out the PostgreSQL runs on a machine without a server
 * (CI always has one). TEST_DATABASE_URL overrides the server to use.
 */
import { spawn } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { postgresFiles } from "../support/database-suites";

const postgresUrl = process.env.TEST_DATABASE_URL ?? "postgres://postgres@127.0.0.1:5432/test";
const skipPostgres = process.env.SKIP_POSTGRES === "1";
const reportDir = fs.mkdtempSync(path.join(os.tmpdir(), "switchboard-test-"));
const counts = { passed: 0, failed: 0, skipped: 0 };
/** Each failed test, named with its first line of error: printed again last, where CI's tail shows it. */
const failedTests: string[] = [];

type Step = {
  name: string;
  command: string[];
  env?: Record<string, string>;
  report?: "vitest" | "playwright";
  /** Serves the production build, so it cannot run when the build failed. */
  needsBuild?: boolean;
  /**
   * Runs at the same time as the steps next to it with the same `beside` (their output is
   * printed whole as each ends). Lint, format and typecheck each keep one core busy for most
   * of their time: side by side they take as long as the slowest (measured in docs/testing.md).
   */
  beside?: string;
};

const withoutPostgres = { TEST_DATABASE_URL: "" };
const onPostgres = { TEST_DATABASE_URL: postgresUrl };

const steps: Step[] = [
  { name: "lint", command: ["npx", "eslint", "."], beside: "static" },
  // No circle (type-only imports included) and no arrow up a layer: .dependency-cruiser.cjs.
  { name: "dependencies", command: ["npm", "run", "--silent", "lint:deps"], beside: "static" },
  { name: "format", command: ["npx", "prettier", "--check", "."], beside: "static" },
  { name: "typecheck", command: ["npx", "tsc", "--noEmit"], beside: "static" },
  // Not beside the static checks: the five together took 92 s, about what they take in turn
  // (62-71 s, then 28-33 s), measured in one session from a fresh type-check.
  { name: "unit tests", command: ["npx", "vitest", "run", "--project", "unit"], report: "vitest" },
  {
    name: "API tests (PGlite)",
    command: ["npx", "vitest", "run", "--project", "api"],
    env: withoutPostgres,
    report: "vitest",
  },
  // The API tests on PostgreSQL spend most of their time waiting out the webhook stall test:
  // beside the build, which needs nothing from them. Not beside the console's suites, whose
  // crash-restart test must serve within 10 s of a restart (it took 10.02 s there, once).
  ...(skipPostgres
    ? []
    : [
        {
          name: "API tests (PostgreSQL)",
          command: ["npx", "vitest", "run", "--project", "api", ...postgresFiles("tests/api")],
          env: onPostgres,
          report: "vitest" as const,
          beside: "build",
        },
      ]),
  { name: "build", command: ["npx", "next", "build"], beside: "build" },
  // The console's suites each start a console of their own (port, data, schema) and keep the
  // cores busy about 60 % of their time: side by side, as the static checks.
  {
    name: "console HTTP tests (PGlite)",
    command: ["npx", "vitest", "run", "--project", "console"],
    env: withoutPostgres,
    report: "vitest",
    needsBuild: true,
    beside: "console",
  },
  ...(skipPostgres
    ? []
    : [
        {
          name: "console HTTP tests (PostgreSQL)",
          command: [
            "npx",
            "vitest",
            "run",
            "--project",
            "console",
            ...postgresFiles("tests/console"),
          ],
          env: onPostgres,
          report: "vitest" as const,
          needsBuild: true,
          beside: "console",
        },
      ]),
  {
    name: "browser tests",
    command: ["npx", "playwright", "test"],
    env: withoutPostgres,
    report: "playwright",
    needsBuild: true,
  },
];

const started = Date.now();
const failedSteps: string[] = [];
for (let index = 0; index < steps.length;) {
  const step = steps[index]!;
  const together = steps
    .slice(index)
    .findIndex((next) => !step.beside || next.beside !== step.beside);
  const batch = step.beside
    ? steps.slice(index, together === -1 ? undefined : index + together)
    : [step];
  const batchStarted = Date.now();
  await Promise.all(batch.map((each, offset) => runStep(each, index + offset, batch.length > 1)));
  if (batch.length > 1)
    console.log(
      `=== ${batch.map((each) => each.name).join(", ")} side by side took ${seconds(batchStarted)}s`,
    );
  index += batch.length;
}
if (failedSteps.length > 0) console.error(`\nFailed steps: ${failedSteps.join(", ")}`);
finish(failedSteps.length > 0 ? 1 : 0);

async function runStep(step: Step, index: number, besideOthers: boolean): Promise<void> {
  if (step.needsBuild && failedSteps.includes("build")) {
    console.log(`\n=== ${step.name}: not run, the build failed`);
    failedSteps.push(step.name);
    return;
  }
  const reportFile = path.join(reportDir, `${index}.json`);
  const args = [...step.command.slice(1)];
  const env: NodeJS.ProcessEnv = { ...process.env, NEXT_TELEMETRY_DISABLED: "1", ...step.env };
  if (step.report === "vitest")
    args.push("--reporter=default", "--reporter=json", `--outputFile.json=${reportFile}`);
  if (step.report === "playwright") {
    args.push("--reporter=list,json");
    env.PLAYWRIGHT_JSON_OUTPUT_FILE = reportFile;
  }
  const commandLine = `=== ${step.name}: ${[step.command[0], ...args].join(" ")}`;
  if (!besideOthers) console.log(`\n${commandLine}`);
  const stepStarted = Date.now();
  // Beside other steps, the output is kept and printed whole at the end, not interleaved.
  const child = spawn(step.command[0]!, args, {
    stdio: besideOthers ? ["ignore", "pipe", "pipe"] : "inherit",
    env,
  });
  let output = "";
  child.stdout?.on("data", (chunk: Buffer) => (output += chunk.toString()));
  child.stderr?.on("data", (chunk: Buffer) => (output += chunk.toString()));
  const status = await new Promise<number | string>((resolve) =>
    child.on("close", (code, signal) => resolve(code ?? signal ?? "unknown")),
  );
  if (besideOthers) console.log(`\n${commandLine}\n${output.trimEnd()}`);
  if (step.report) addCounts(step.report, reportFile);
  if (status === 0) {
    console.log(`=== ${step.name} passed in ${seconds(stepStarted)}s`);
  } else {
    console.error(`\n=== ${step.name} FAILED (exit ${status}) after ${seconds(stepStarted)}s`);
    failedSteps.push(step.name);
  }
}

function seconds(since: number): string {
  return ((Date.now() - since) / 1000).toFixed(0);
}

function addCounts(kind: "vitest" | "playwright", file: string) {
  if (!fs.existsSync(file)) return;
  const report = JSON.parse(fs.readFileSync(file, "utf8"));
  if (kind === "vitest") {
    for (const file of report.testResults ?? []) {
      const failed = (file.assertionResults ?? []).filter(
        (test: { status: string }) => test.status === "failed",
      );
      for (const test of failed)
        failedTests.push(
          `${path.relative(process.cwd(), file.name)} › ${test.fullName}: ${firstLine(test.failureMessages?.[0])}`,
        );
      // A file that failed to load (or whose hook failed) has no failed test of its own.
      if (file.status === "failed" && failed.length === 0)
        failedTests.push(`${path.relative(process.cwd(), file.name)}: ${firstLine(file.message)}`);
    }
    counts.passed += report.numPassedTests ?? 0;
    counts.failed += report.numFailedTests ?? 0;
    counts.skipped += (report.numPendingTests ?? 0) + (report.numTodoTests ?? 0);
  } else {
    collectPlaywrightFailures(report.suites ?? []);
    counts.passed += (report.stats?.expected ?? 0) + (report.stats?.flaky ?? 0);
    counts.failed += report.stats?.unexpected ?? 0;
    counts.skipped += report.stats?.skipped ?? 0;
  }
}

type PlaywrightSuite = {
  file?: string;
  suites?: PlaywrightSuite[];
  specs?: Array<{
    title: string;
    file: string;
    tests: Array<{ status: string; results: Array<{ error?: { message?: string } }> }>;
  }>;
};

function collectPlaywrightFailures(suites: PlaywrightSuite[]) {
  for (const suite of suites) {
    for (const spec of suite.specs ?? [])
      for (const test of spec.tests)
        if (test.status === "unexpected")
          failedTests.push(
            `${spec.file} › ${spec.title}: ${firstLine(test.results.at(-1)?.error?.message)}`,
          );
    collectPlaywrightFailures(suite.suites ?? []);
  }
}

function firstLine(message: string | undefined): string {
  const plain = (message ?? "").replace(/\u001b\[[0-9;]*m/g, "").trim();
  return plain.split("\n")[0]!.slice(0, 300) || "(no message)";
}

function finish(code: number): never {
  fs.rmSync(reportDir, { recursive: true, force: true });
  if (failedTests.length > 0)
    console.error(`\nFailed tests:\n${failedTests.map((line) => `  ✗ ${line}`).join("\n")}`);
  console.log(`\nAll steps took ${seconds(started)}s.`);
  // The plain closing line CI reads.
  console.log(`${counts.passed} passed, ${counts.failed} failed, ${counts.skipped} skipped`);
  process.exit(code);
}
