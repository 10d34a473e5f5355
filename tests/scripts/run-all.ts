/**
 * `npm test`: everything CI runs, in order. Lint, the format check, typecheck, unit tests, API tests on PGlite
 * and on PostgreSQL, a production build, the console's HTTP tests on both databases, and
 * the browser tests. A failing step does not stop the others, so one run shows every
 * failure; only the steps that serve the build are left out when the build fails.
 *
 * SKIP_POSTGRES=1 leaves out the PostgreSQL runs on a machine without a server
 * (CI always has one). TEST_DATABASE_URL overrides the server to use.
 */
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";

const postgresUrl = process.env.TEST_DATABASE_URL ?? "postgres://postgres@127.0.0.1:5432/test";
const skipPostgres = process.env.SKIP_POSTGRES === "1";
const reportDir = fs.mkdtempSync(path.join(os.tmpdir(), "switchboard-test-"));
const counts = { passed: 0, failed: 0, skipped: 0 };

type Step = {
  name: string;
  command: string[];
  env?: Record<string, string>;
  report?: "vitest" | "playwright";
  /** Serves the production build, so it cannot run when the build failed. */
  needsBuild?: boolean;
};

const withoutPostgres = { TEST_DATABASE_URL: "" };
const onPostgres = { TEST_DATABASE_URL: postgresUrl };

const steps: Step[] = [
  { name: "lint", command: ["npx", "eslint", "."] },
  { name: "format", command: ["npx", "prettier", "--check", "."] },
  { name: "typecheck", command: ["npx", "tsc", "--noEmit"] },
  { name: "unit tests", command: ["npx", "vitest", "run", "--project", "unit"], report: "vitest" },
  {
    name: "API tests (PGlite)",
    command: ["npx", "vitest", "run", "--project", "api"],
    env: withoutPostgres,
    report: "vitest",
  },
  ...(skipPostgres
    ? []
    : [
        {
          name: "API tests (PostgreSQL)",
          command: ["npx", "vitest", "run", "--project", "api"],
          env: onPostgres,
          report: "vitest" as const,
        },
      ]),
  { name: "build", command: ["npx", "next", "build"] },
  {
    name: "console HTTP tests (PGlite)",
    command: ["npx", "vitest", "run", "--project", "console"],
    env: withoutPostgres,
    report: "vitest",
    needsBuild: true,
  },
  ...(skipPostgres
    ? []
    : [
        {
          name: "console HTTP tests (PostgreSQL)",
          command: ["npx", "vitest", "run", "--project", "console"],
          env: onPostgres,
          report: "vitest" as const,
          needsBuild: true,
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
for (const [index, step] of steps.entries()) {
  if (step.needsBuild && failedSteps.includes("build")) {
    console.log(`\n=== ${step.name}: not run, the build failed`);
    failedSteps.push(step.name);
    continue;
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
  console.log(`\n=== ${step.name}: ${[step.command[0], ...args].join(" ")}`);
  const stepStarted = Date.now();
  const result = spawnSync(step.command[0]!, args, { stdio: "inherit", env });
  if (step.report) addCounts(step.report, reportFile);
  const seconds = ((Date.now() - stepStarted) / 1000).toFixed(0);
  if (result.status === 0) {
    console.log(`=== ${step.name} passed in ${seconds}s`);
  } else {
    console.error(
      `\n=== ${step.name} FAILED (exit ${result.status ?? result.signal}) after ${seconds}s`,
    );
    failedSteps.push(step.name);
  }
}
if (failedSteps.length > 0) console.error(`\nFailed steps: ${failedSteps.join(", ")}`);
finish(failedSteps.length > 0 ? 1 : 0);

function addCounts(kind: "vitest" | "playwright", file: string) {
  if (!fs.existsSync(file)) return;
  const report = JSON.parse(fs.readFileSync(file, "utf8"));
  if (kind === "vitest") {
    counts.passed += report.numPassedTests ?? 0;
    counts.failed += report.numFailedTests ?? 0;
    counts.skipped += (report.numPendingTests ?? 0) + (report.numTodoTests ?? 0);
  } else {
    counts.passed += (report.stats?.expected ?? 0) + (report.stats?.flaky ?? 0);
    counts.failed += report.stats?.unexpected ?? 0;
    counts.skipped += report.stats?.skipped ?? 0;
  }
}

function finish(code: number): never {
  fs.rmSync(reportDir, { recursive: true, force: true });
  console.log(`\nAll steps took ${((Date.now() - started) / 1000).toFixed(0)}s.`);
  // The plain closing line CI reads.
  console.log(`${counts.passed} passed, ${counts.failed} failed, ${counts.skipped} skipped`);
  process.exit(code);
}
