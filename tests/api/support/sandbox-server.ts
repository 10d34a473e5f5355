import { spawn, type ChildProcessByStdio } from "node:child_process";
import { randomBytes } from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import type { Readable } from "node:stream";
import pg from "pg";
import { testNodeArgs } from "../../support/node-args";
import { copyPgliteTemplateFor } from "../../support/pglite-template";

export type SandboxServer = {
  /** e.g. http://127.0.0.1:41234 */
  origin: string;
  appId: string;
  /** The default application's token; empty when the server was left to generate its own. */
  token: string;
  /** `{origin}/sandbox/{appId}`: both the chat and the calls base URL. */
  baseUrl: string;
  /** Everything the server printed, for assertions on logs and for debugging. */
  output: () => string;
  /** Stops the process (SIGKILL with `kill`, as in a crash) and starts it again on the same data. */
  restart: (options?: { kill?: boolean }) => Promise<void>;
  /** Freezes the process (SIGSTOP): connections are accepted by the system, never answered. */
  pause: () => void;
  /** Lets a paused process go on (SIGCONT). */
  resume: () => void;
  stop: () => Promise<void>;
  /** The server process's id (benches read its CPU time). */
  pid: () => number | undefined;
};

const root = path.resolve(import.meta.dirname, "../../..");

/**
 * Starts `lib/sandbox-server.ts` as its own process on a free loopback port, with a
 * fresh PGlite directory (a copy of tests/support/pglite-template.ts), or a fresh schema of
 * TEST_DATABASE_URL when that is set.
 * The process exits by itself if the test runner dies. A variable given as undefined is left unset.
 */
export async function startSandboxServer(
  extraEnv: Record<string, string | undefined> = {},
): Promise<SandboxServer> {
  const token =
    "SANDBOX_API_TOKEN" in extraEnv
      ? (extraEnv.SANDBOX_API_TOKEN ?? "")
      : `test_${randomBytes(16).toString("hex")}`;
  const appId = extraEnv.SANDBOX_APP_ID ?? "local";
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "switchboard-sandbox-"));
  const databaseUrl = process.env.TEST_DATABASE_URL;
  const schemaName = databaseUrl ? `t_${randomBytes(6).toString("hex")}` : undefined;
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    NODE_ENV: "test",
    DATA_DIR: dataDir,
    SANDBOX_PORT: "0",
    SANDBOX_HOST: "127.0.0.1",
    SANDBOX_API_TOKEN: token,
    SANDBOX_EXIT_WITH_PARENT: "1",
    ...(databaseUrl ? { DATABASE_URL: databaseUrl, DATABASE_SCHEMA: schemaName } : {}),
    ...extraEnv,
  };
  let output = "";
  let child: ChildProcessByStdio<null, Readable, Readable>;
  let stopped = false;

  async function start(): Promise<string> {
    child = spawn(process.execPath, [...testNodeArgs, "--import", "tsx", "lib/sandbox-server.ts"], {
      cwd: root,
      env,
      stdio: ["ignore", "pipe", "pipe"],
    });
    const from = output.length;
    return new Promise<string>((resolve, reject) => {
      // A first start (PGlite creating its database) on a busy machine can take over a minute.
      const timer = setTimeout(
        () => reject(new Error(`sandbox did not start:\n${output}`)),
        180_000,
      );
      const onData = (chunk: Buffer) => {
        output += chunk.toString();
        const match = /listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(output.slice(from));
        if (match?.[1]) {
          clearTimeout(timer);
          resolve(match[1]);
        }
      };
      child.stdout.on("data", onData);
      child.stderr.on("data", onData);
      child.on("exit", (code) => {
        clearTimeout(timer);
        if (!stopped) reject(new Error(`sandbox exited with ${code}:\n${output}`));
      });
    });
  }

  async function halt(signal: NodeJS.Signals) {
    if (child.exitCode === null && child.signalCode === null) {
      stopped = true;
      const exited = new Promise((resolve) => child.once("exit", resolve));
      child.kill(signal);
      await exited;
      stopped = false;
    }
  }

  // On PGlite, a copy of a migrated empty database rather than a new one (12 s of CPU each).
  await copyPgliteTemplateFor(env, dataDir);
  let origin = await start();
  const server: SandboxServer = {
    origin,
    appId,
    token,
    baseUrl: `${origin}/sandbox/${appId}`,
    output: () => output,
    restart: async ({ kill = false } = {}) => {
      await halt(kill ? "SIGKILL" : "SIGTERM");
      // A new port: the old one may linger in TIME_WAIT.
      env.SANDBOX_PORT = "0";
      origin = await start();
      server.origin = origin;
      server.baseUrl = `${origin}/sandbox/${appId}`;
    },
    pid: () => child.pid,
    pause: () => child.kill("SIGSTOP"),
    resume: () => child.kill("SIGCONT"),
    stop: async () => {
      if (child.exitCode === null && child.signalCode === null) child.kill("SIGCONT");
      await halt("SIGTERM");
      fs.rmSync(dataDir, { recursive: true, force: true });
      if (databaseUrl && schemaName) await dropSchema(databaseUrl, schemaName);
    },
  };
  return server;
}

async function dropSchema(url: string, schemaName: string) {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    await client.query(`drop schema if exists ${schemaName} cascade`);
  } finally {
    await client.end();
  }
}
