import path from "node:path";
import { defineConfig } from "vitest/config";
import { testNodeArgs } from "./tests/support/node-args";

const alias = {
  "@": path.resolve(import.meta.dirname),
  // `server-only` throws outside React Server Components; plain Node code under test is fine.
  "server-only": path.resolve(import.meta.dirname, "tests/support/empty-module.ts"),
};

export default defineConfig({
  resolve: { alias },
  test: {
    projects: [
      {
        resolve: { alias },
        test: {
          name: "unit",
          include: ["tests/unit/**/*.test.ts"],
          environment: "node",
          // Vitest's default is one fewer than the cores: one worker on this 2-core machine, with
          // the step at 65 % of both cores.
          maxWorkers: 2,
        },
      },
      {
        resolve: { alias },
        test: {
          name: "api",
          include: ["tests/api/**/*.test.ts"],
          environment: "node",
          globalSetup: ["tests/api/support/global-setup.ts"],
          testTimeout: 30_000,
          hookTimeout: 120_000,
          // Each file talks to real servers. Four at a time on two cores: a file waiting out a
          // stall or a retry leaves its core to the others (docs/testing.md, Times: 281 s at 83 %
          // busy with two and 252 s with three in one session; later, with the WebAssembly of
          // tests/support/node-args.ts, 162-172 s with three and 147-162 s with four).
          maxWorkers: 4,
          execArgv: testNodeArgs,
          sequence: { groupOrder: 1 },
        },
      },
      {
        resolve: { alias },
        test: {
          name: "console",
          include: ["tests/console/**/*.test.ts"],
          environment: "node",
          globalSetup: ["tests/console/support/global-setup.ts"],
          testTimeout: 30_000,
          hookTimeout: 120_000,
          maxWorkers: 1,
          execArgv: testNodeArgs,
          sequence: { groupOrder: 2 },
        },
      },
    ],
  },
});
