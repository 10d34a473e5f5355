import type { TestProject } from "vitest/node";
import { startSandboxServer } from "./sandbox-server";

declare module "vitest" {
  export interface ProvidedContext {
    sandbox: { origin: string; appId: string; token: string; baseUrl: string };
  }
}

/** One shared sandbox (default configuration) for every API test file. */
export default async function setup(project: TestProject) {
  const server = await startSandboxServer();
  project.provide("sandbox", {
    origin: server.origin,
    appId: server.appId,
    token: server.token,
    baseUrl: server.baseUrl,
  });
  return async () => {
    await server.stop();
  };
}
