import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { defineConfig, devices } from "@playwright/test";
import { chromiumArgs, chromiumExecutable } from "./tests/support/chromium";
import { testNodeArgs } from "./tests/support/node-args";
import { copyPgliteTemplateIfMade } from "./tests/support/pglite-template";

export const adminPassword = "e2e-admin-password-123";

// Every run starts on empty databases: the sandbox creates its default application at start-up.
// The config is loaded by the runner and by each worker; only the runner's directory is used.
// Each database is a copy of the migrated template when the API or console tests have made one.
const dataRoot = (process.env.SWITCHBOARD_E2E_DATA_DIR ??= fs.mkdtempSync(
  path.join(os.tmpdir(), "switchboard-e2e-"),
));

/**
 * Two workers, each with a console of its own (port, database, sandbox): a worker's
 * `parallelIndex` (0 or 1; two running workers never share one) picks its console, so no two
 * tests ever meet on one console's data (tests/e2e/support/test.ts). One worker left a third of
 * both cores idle while a test waited on a server or a poll; the numbers are in docs/testing.md.
 * Spec files are handed out in name order, so each console sees its files in that order too.
 * E2E_PORT (the first console's port; the second takes the next) lets several checkouts run their
 * browser tests side by side.
 */
const firstPort = Number(process.env.E2E_PORT ?? 3210);
export const consoles = [0, 1].map((index) => {
  const dataDir = path.join(dataRoot, `console-${index}`);
  if (!fs.existsSync(dataDir)) {
    fs.mkdirSync(dataDir);
    copyPgliteTemplateIfMade(path.join(dataDir, "pglite"));
  }
  return {
    port: firstPort + index,
    baseURL: `http://127.0.0.1:${firstPort + index}`,
    dataDir,
    /** The administrator's session on this console, which the setup project signs in. */
    storageState: `tests/e2e/.auth/admin-${index}.json`,
  };
});

const chromium = {
  ...devices["Desktop Chrome"],
  launchOptions: {
    executablePath: chromiumExecutable,
    args: chromiumArgs,
  },
};

// Tests of several minutes (`*.slow.spec.ts`) run only in `npm run test:slow` (TEST_SIZE=full),
// in a project of their own; `npm test` leaves them out.
const slowSpecs = /.*\.slow\.spec\.ts/;
const slowProjects =
  process.env.TEST_SIZE === "full" ? [{ name: "slow", testMatch: slowSpecs, use: chromium }] : [];

export default defineConfig({
  testDir: "tests/e2e",
  fullyParallel: false,
  workers: consoles.length,
  retries: 0,
  forbidOnly: !!process.env.CI,
  reporter: [["list"]],
  timeout: 30_000,
  expect: { timeout: 10_000 },
  use: {
    // A failing test keeps its trace (actions, DOM snapshots, network, console) and a
    // screenshot of where it stopped. The trace's screencast is left out: it cost a quarter of
    // the browser tests' CPU, measured on three spec files run alternately with and without it
    // (204-226 against 169-173 CPU-seconds; no trace at all, 156-164).
    trace: { mode: "retain-on-failure", screenshots: false },
    screenshot: "only-on-failure",
  },
  projects: [
    { name: "setup", testMatch: /.*\.setup\.ts/, use: chromium },
    {
      name: "chromium",
      testIgnore: [/.*\.setup\.ts/, slowSpecs],
      dependencies: ["setup"],
      use: chromium,
    },
    ...slowProjects,
  ],
  // What `npm run serve` runs, the console with the sandbox on the same port, with the Node
  // options of the tests' processes (tests/support/node-args.ts).
  webServer: consoles.map(({ port, baseURL, dataDir }) => ({
    command: `node ${testNodeArgs.join(" ")} --import tsx lib/console-server.ts --hostname 127.0.0.1 --port ${port}`,
    url: `${baseURL}/sign-in`,
    reuseExistingServer: false,
    timeout: 120_000,
    stdout: "pipe" as const,
    stderr: "pipe" as const,
    env: {
      ADMIN_PASSWORD: adminPassword,
      DATA_DIR: dataDir,
      NEXT_TELEMETRY_DISABLED: "1",
    },
  })),
});
