import { spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import fs from "node:fs";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import pg from "pg";
import { testNodeArgs } from "./node-args";
import { copyPgliteTemplateFor } from "./pglite-template";

export type ConsoleServer = {
  origin: string;
  adminPassword: string;
  output: () => string;
  stop: () => Promise<void>;
  /** Stops (SIGKILL with `kill`, as in a crash) and starts the same server again on the same data. */
  restart: (options?: { kill?: boolean }) => Promise<void>;
  /** The server process's id (benches read its CPU time). */
  pid: () => number | undefined;
};

const root = path.resolve(import.meta.dirname, "../..");

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.unref();
    server.on("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
  });
}

/**
 * Starts the built console as `npm run serve` does (`next build` must have run) on a free loopback
 * port with its own data: a fresh PGlite directory (a copy of ./pglite-template.ts), or a fresh
 * schema of TEST_DATABASE_URL.
 */
export async function startConsoleServer(
  extraEnv: Record<string, string> = {},
  options: { onOutput?: (text: string) => void; nodeArgs?: string[] } = {},
): Promise<ConsoleServer> {
  if (!fs.existsSync(path.join(root, ".next", "BUILD_ID"))) {
    throw new Error("The console is not built: run `npx next build` first (npm test does).");
  }
  const port = await freePort();
  const adminPassword = extraEnv.ADMIN_PASSWORD ?? `pw-${randomBytes(8).toString("hex")}`;
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "switchboard-console-"));
  const databaseUrl = process.env.TEST_DATABASE_URL;
  const schemaName = databaseUrl ? `t_${randomBytes(6).toString("hex")}` : undefined;
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    NODE_ENV: "production",
    NEXT_TELEMETRY_DISABLED: "1",
    PORT: String(port),
    DATA_DIR: dataDir,
    ADMIN_PASSWORD: adminPassword,
    ...(databaseUrl ? { DATABASE_URL: databaseUrl, DATABASE_SCHEMA: schemaName } : {}),
    ...extraEnv,
  };
  let output = "";
  let child: ReturnType<typeof spawn> | undefined;
  const origin = `http://127.0.0.1:${port}`;

  async function start() {
    child = spawn(
      process.execPath,
      [
        ...testNodeArgs,
        ...(options.nodeArgs ?? []),
        "--import",
        "tsx",
        "lib/console-server.ts",
        "--hostname",
        "127.0.0.1",
        "--port",
        String(port),
      ],
      { cwd: root, env, stdio: ["ignore", "pipe", "pipe"] },
    );
    const onData = (chunk: Buffer) => {
      output += chunk.toString();
      options.onOutput?.(output);
    };
    child.stdout?.on("data", onData);
    child.stderr?.on("data", onData);
    const exited = new Promise<never>((_, reject) =>
      child?.once("exit", (code) => reject(new Error(`console exited with ${code}:\n${output}`))),
    );
    await Promise.race([waitForHttp(`${origin}/sign-in`), exited]);
  }

  async function stop(signal: NodeJS.Signals = "SIGTERM") {
    if (child && child.exitCode === null && child.signalCode === null) {
      const exited = new Promise((resolve) => child?.once("exit", resolve));
      child.kill(signal);
      await exited;
    }
  }

  // On PGlite, a copy of a migrated empty database rather than a new one (12 s of CPU each).
  await copyPgliteTemplateFor(env, dataDir);
  await start();
  // Test servers stop by themselves when the test process ends.
  process.once("exit", () => child?.kill("SIGKILL"));
  return {
    origin,
    adminPassword,
    output: () => output,
    pid: () => child?.pid,
    restart: async ({ kill = false } = {}) => {
      await stop(kill ? "SIGKILL" : "SIGTERM");
      await start();
    },
    stop: async () => {
      await stop();
      fs.rmSync(dataDir, { recursive: true, force: true });
      if (databaseUrl && schemaName) {
        const client = new pg.Client({ connectionString: databaseUrl });
        await client.connect();
        await client
          .query(`drop schema if exists ${schemaName} cascade`)
          .finally(() => client.end());
      }
    },
  };
}

// A first start (PGlite creating its database) on a busy shared machine can take over a minute.
async function waitForHttp(url: string, timeoutMs = 180_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      const response = await fetch(url, { redirect: "manual", signal: AbortSignal.timeout(5000) });
      await response.body?.cancel();
      if (response.status < 500) return;
    } catch {
      // Not listening yet.
    }
    if (Date.now() > deadline) throw new Error(`${url} did not answer within ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}
