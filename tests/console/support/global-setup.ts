import { randomBytes } from "node:crypto";
import type { TestProject } from "vitest/node";
import { startConsoleServer } from "../../support/console-server";

declare module "vitest" {
  export interface ProvidedContext {
    console: { origin: string; adminPassword: string; sandboxToken: string };
  }
}

/** One built console (`npm run serve`) for every console HTTP test file. */
export default async function setup(project: TestProject) {
  const sandboxToken = `console_${randomBytes(12).toString("hex")}`;
  const server = await startConsoleServer({ SANDBOX_API_TOKEN: sandboxToken });
  project.provide("console", {
    origin: server.origin,
    adminPassword: server.adminPassword,
    sandboxToken,
  });
  return async () => {
    await server.stop();
  };
}
