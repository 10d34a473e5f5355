import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { defineConfig, devices } from "@playwright/test";
import { chromiumArgs, chromiumExecutable } from "./tests/support/chromium";
import { copyPgliteTemplateIfMade } from "./tests/support/pglite-template";

// E2E_PORT lets several checkouts run their browser tests side by side.
const port = Number(process.env.E2E_PORT ?? 3210);
const baseURL = `http://127.0.0.1:${port}`;
export const adminPassword = "e2e-admin-password-123";
export const storageState = "tests/e2e/.auth/admin.json";

// Every run starts on an empty database: the sandbox creates its default application at start-up.
// The config is loaded by the runner and by each worker; only the runner's directory is used.
// Its database is a copy of the migrated template when the API or console tests have made one.
const dataDir = (process.env.SWITCHBOARD_E2E_DATA_DIR ??= newDataDir());

function newDataDir(): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "switchboard-e2e-"));
  copyPgliteTemplateIfMade(path.join(dir, "pglite"));
  return dir;
}

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
  // Two shared cores: one browser at a time keeps the server responsive.
  workers: 1,
  retries: 0,
  forbidOnly: !!process.env.CI,
  reporter: [["list"]],
  timeout: 30_000,
  expect: { timeout: 10_000 },
  use: {
    baseURL,
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
      use: { ...chromium, storageState },
    },
    ...slowProjects,
  ],
  webServer: {
    // What `npm run serve` runs: the console with the sandbox on the same port.
    command: `npx tsx lib/console-server.ts --hostname 127.0.0.1 --port ${port}`,
    url: `${baseURL}/sign-in`,
    reuseExistingServer: false,
    timeout: 120_000,
    stdout: "pipe",
    stderr: "pipe",
    env: {
      ADMIN_PASSWORD: adminPassword,
      DATA_DIR: dataDir,
      NEXT_TELEMETRY_DISABLED: "1",
    },
  },
});
