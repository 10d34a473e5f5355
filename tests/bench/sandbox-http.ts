import { spawn } from "node:child_process";
import autocannon from "autocannon";
import { startSandboxServer } from "../api/support/sandbox-server";
import { startConsoleServer } from "../support/console-server";
import { isBuilt, machine, root, today } from "./support";

const connections = 10;

type Row = { target: string; requestsPerSecond: number; p99Ms: number; non2xx: number };

async function createUsers(url: string, token: string | undefined, prefix: string, seconds: number) {
  let counter = 0;
  const result = await autocannon({
    url,
    method: "POST",
    connections,
    duration: seconds,
    headers: { "content-type": "application/json", ...(token ? { "Api-Token": token } : {}) },
    requests: [
      {
        // A new user every time, so every request is a real creation.
        setupRequest: (request) => ({
          ...request,
          body: JSON.stringify({ user_id: `${prefix}_${counter++}`, nickname: "Bench", profile_url: "" }),
        }),
      },
    ],
  });
  return {
    requestsPerSecond: Math.round(result.requests.average),
    p99Ms: result.latency.p99,
    non2xx: result.non2xx + result.errors + result.timeouts,
  };
}

async function startEcho(): Promise<{ url: string; stop: () => void }> {
  const child = spawn(process.execPath, ["--import", "tsx", "tests/bench/echo-server.ts"], {
    cwd: root,
    stdio: ["ignore", "pipe", "inherit"],
  });
  const url = await new Promise<string>((resolve) => {
    child.stdout.on("data", (chunk: Buffer) => {
      const match = /listening on (\S+)/.exec(chunk.toString());
      if (match?.[1]) resolve(match[1]);
    });
  });
  return { url, stop: () => child.kill() };
}

/** `POST /v3/users` on both paths of the sandbox, each as a ratio to a bare node:http echo. */
export async function benchSandboxHttp(seconds: number): Promise<string> {
  const rows: Row[] = [];
  const echo = await startEcho();
  rows.push({ target: "bare node:http JSON echo", ...(await createUsers(echo.url, undefined, "echo", seconds)) });
  echo.stop();

  const sandbox = await startSandboxServer();
  rows.push({
    target: "sandbox on its own port (`npm run sandbox`), PGlite",
    ...(await createUsers(`${sandbox.baseUrl}/v3/users`, sandbox.token, "standalone", seconds)),
  });
  await sandbox.stop();

  // The same sandbox on PostgreSQL, to tell the HTTP layer's cost from the embedded database's.
  const postgresUrl = process.env.BENCH_DATABASE_URL ?? "postgres://postgres@127.0.0.1:5432/test";
  const previous = process.env.TEST_DATABASE_URL;
  process.env.TEST_DATABASE_URL = postgresUrl;
  try {
    const onPostgres = await startSandboxServer();
    rows.push({
      target: "sandbox on its own port, PostgreSQL",
      ...(await createUsers(`${onPostgres.baseUrl}/v3/users`, onPostgres.token, "postgres", seconds)),
    });
    await onPostgres.stop();
  } catch (error) {
    console.warn(`No PostgreSQL at ${postgresUrl}: skipping that row (${String(error)})`);
  } finally {
    if (previous === undefined) delete process.env.TEST_DATABASE_URL;
    else process.env.TEST_DATABASE_URL = previous;
  }

  if (isBuilt()) {
    const token = "bench_token_0123456789abcdef";
    const consoleServer = await startConsoleServer({ SANDBOX_API_TOKEN: token });
    rows.push({
      target: "sandbox mounted in Next.js (`/sandbox/...`), PGlite",
      ...(await createUsers(`${consoleServer.origin}/sandbox/local/v3/users`, token, "mounted", seconds)),
    });
    await consoleServer.stop();
  } else {
    console.warn("No build in .next: skipping the Next.js-mounted figure (run `npx next build`).");
  }

  const echoRate = rows[0]!.requestsPerSecond;
  return [
    `Measured ${today()} on ${machine()}; autocannon, ${connections} connections, ${seconds} s each, in one run.`,
    "",
    "| target | POST /v3/users per second | ratio to echo | p99 latency (ms) | non-2xx or errors |",
    "|---|---:|---:|---:|---:|",
    ...rows.map(
      (row) =>
        `| ${row.target} | ${row.requestsPerSecond} | ${(row.requestsPerSecond / echoRate).toFixed(3)} | ${row.p99Ms} | ${row.non2xx} |`,
    ),
  ].join("\n");
}
