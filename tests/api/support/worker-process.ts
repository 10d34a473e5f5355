import { spawn } from "node:child_process";
import path from "node:path";
import { testNodeArgs } from "../../support/node-args";
import type { SandboxServer } from "./sandbox-server";

/**
 * `npm run worker` as a child process against a sandbox server, for the reliability tests:
 * killed with SIGKILL mid-run and started again, as a crash and a restart would.
 */

const root = path.resolve(import.meta.dirname, "../../..");

/** The rows done the worker last printed. */
export function doneRows(output: string): number | undefined {
  const matches = [...output.matchAll(/: (\d+)\/\d+ rows done/g)];
  const last = matches.at(-1);
  return last ? Number(last[1]) : undefined;
}

export function startWorker(
  dataDir: string,
  sandbox: SandboxServer,
  env: Record<string, string> = {},
) {
  const child = spawn(
    process.execPath,
    [
      ...testNodeArgs,
      "--conditions=react-server",
      "--import",
      "tsx",
      "lib/imports/jobs/worker/worker.ts",
    ],
    {
      cwd: root,
      env: {
        ...process.env,
        NODE_ENV: "test",
        DATA_DIR: dataDir,
        PLATFORM_CHAT_URL: sandbox.baseUrl,
        PLATFORM_APP_ID: sandbox.appId,
        PLATFORM_API_TOKEN: sandbox.token,
        // Hung requests are given up quickly (and sent again).
        PLATFORM_TIMEOUT_MS: "1000",
        IMPORT_WORKER_EXIT_WHEN_IDLE: "1",
        ...env,
      },
      stdio: ["ignore", "pipe", "pipe"],
    },
  );
  let output = "";
  const listeners = new Set<() => void>();
  const onData = (chunk: Buffer) => {
    output += chunk.toString();
    for (const listener of listeners) listener();
  };
  child.stdout.on("data", onData);
  child.stderr.on("data", onData);
  const exited = new Promise<number | null>((resolve) =>
    child.once("exit", (code) => resolve(code)),
  );
  process.once("exit", () => child.kill("SIGKILL"));
  return {
    output: () => output,
    exited,
    kill: () => child.kill("SIGKILL"),
    waitFor: (predicate: (output: string) => boolean) =>
      new Promise<void>((resolve, reject) => {
        const check = () => {
          if (predicate(output)) {
            listeners.delete(check);
            resolve();
          }
        };
        listeners.add(check);
        void exited.then(() => reject(new Error(`worker exited first:\n${output}`)));
        check();
      }),
  };
}

/** A call to a faulty sandbox, tried again on transient failures; an id that exists already counts as done. */
export async function retrying<T>(call: () => Promise<T>): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await call();
    } catch (error) {
      if (attempt >= 10) throw error;
      const transient = (error as { transient?: boolean }).transient;
      if (!transient && (error as { code?: number }).code !== 400202) throw error;
      if ((error as { code?: number }).code === 400202) return undefined as T;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }
}
