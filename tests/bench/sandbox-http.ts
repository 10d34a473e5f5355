import { spawn } from "node:child_process";
import autocannon from "autocannon";
import { startSandboxServer } from "../api/support/sandbox-server";
import { startConsoleServer } from "../support/console-server";
import { isBuilt, machine, root, today } from "./support";

const connections = 10;

type Row = { target: string; requestsPerSecond: number; p99Ms: number; non2xx: number };

async function createUsers(
  url: string,
  token: string | undefined,
  prefix: string,
  seconds: number,
) {
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
          body: JSON.stringify({
            user_id: `${prefix}_${counter++}`,
            nickname: "Bench",
            profile_url: "",
          }),
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

/** 100 messages from 10 senders into one open channel per request, as an import would send them. */
async function migrateMessages(baseUrl: string, token: string, seconds: number) {
  const headers = { "content-type": "application/json", "Api-Token": token };
  const senders = Array.from({ length: 10 }, (_, index) => `sender_${index}`);
  for (const userId of senders) {
    const response = await fetch(`${baseUrl}/v3/users`, {
      method: "POST",
      headers,
      body: JSON.stringify({ user_id: userId, nickname: userId, profile_url: "" }),
    });
    if (!response.ok)
      throw new Error(`creating ${userId}: ${response.status} ${await response.text()}`);
  }
  const channel = await fetch(`${baseUrl}/v3/open_channels`, {
    method: "POST",
    headers,
    body: JSON.stringify({ channel_url: "bench_history", name: "History" }),
  });
  if (!channel.ok)
    throw new Error(`creating the channel: ${channel.status} ${await channel.text()}`);
  const body = JSON.stringify({
    messages: Array.from({ length: messagesPerRequest }, (_, index) => ({
      user_id: senders[index % senders.length],
      message_type: "MESG",
      message: `Message ${index} of a migrated history, about as long as a chat line.`,
      timestamp: 1_700_000_000_000 + index,
    })),
  });
  const result = await autocannon({
    url: `${baseUrl}/v3/migration/bench_history`,
    method: "POST",
    connections,
    duration: seconds,
    headers,
    body,
  });
  return {
    requestsPerSecond: Math.round(result.requests.average),
    p99Ms: result.latency.p99,
    non2xx: result.non2xx + result.errors + result.timeouts,
  };
}

const messagesPerRequest = 100;

type DatabaseRows = {
  name: string;
  users: Row;
  migration: Row;
  console?: Row;
};

/** Runs `body` with TEST_DATABASE_URL set (PostgreSQL) or unset (PGlite), as the servers read it. */
async function withDatabase<T>(url: string | undefined, body: () => Promise<T>): Promise<T> {
  const previous = process.env.TEST_DATABASE_URL;
  if (url === undefined) delete process.env.TEST_DATABASE_URL;
  else process.env.TEST_DATABASE_URL = url;
  try {
    return await body();
  } finally {
    if (previous === undefined) delete process.env.TEST_DATABASE_URL;
    else process.env.TEST_DATABASE_URL = previous;
  }
}

async function measureDatabase(name: string, seconds: number): Promise<DatabaseRows> {
  const sandbox = await startSandboxServer();
  const users = await createUsers(
    `${sandbox.baseUrl}/v3/users`,
    sandbox.token,
    "standalone",
    seconds,
  );
  const migration = await migrateMessages(sandbox.baseUrl, sandbox.token, seconds);
  await sandbox.stop();
  const rows: DatabaseRows = {
    name,
    users: { target: `sandbox on its own port (\`npm run sandbox\`), ${name}`, ...users },
    migration: { target: `POST /v3/migration, 100 messages each, ${name}`, ...migration },
  };
  if (isBuilt()) {
    const token = "bench_token_0123456789abcdef";
    const consoleServer = await startConsoleServer({ SANDBOX_API_TOKEN: token });
    rows.console = {
      target: `console's own port (\`npm start\`, \`/sandbox/...\`), ${name}`,
      ...(await createUsers(
        `${consoleServer.origin}/sandbox/local/v3/users`,
        token,
        "console",
        seconds,
      )),
    };
    await consoleServer.stop();
  } else {
    console.warn("No build in .next: skipping the console's figure (run `npx next build`).");
  }
  return rows;
}

/**
 * `POST /v3/users` on the standalone sandbox and through the console's port, and message
 * migration, on PGlite and PostgreSQL, each as a ratio to a bare node:http echo in the same run.
 */
export async function benchSandboxHttp(seconds: number): Promise<string> {
  const echo = await startEcho();
  const echoRow: Row = {
    target: "bare node:http JSON echo",
    ...(await createUsers(echo.url, undefined, "echo", seconds)),
  };
  echo.stop();

  const databases = [await withDatabase(undefined, () => measureDatabase("PGlite", seconds))];
  // The same on PostgreSQL, to tell the HTTP layer's cost from the embedded database's.
  const postgresUrl = process.env.BENCH_DATABASE_URL ?? "postgres://postgres@127.0.0.1:5432/test";
  try {
    databases.push(await withDatabase(postgresUrl, () => measureDatabase("PostgreSQL", seconds)));
  } catch (error) {
    console.warn(`No PostgreSQL at ${postgresUrl}: skipping those rows (${String(error)})`);
  }

  const echoRate = echoRow.requestsPerSecond;
  const line = (row: Row, perSecond: string, ratio: string) =>
    `| ${row.target} | ${perSecond} | ${ratio} | ${row.p99Ms} | ${row.non2xx} |`;
  const ratios = databases.flatMap((db) => {
    const users = db.users.requestsPerSecond;
    const messages = db.migration.requestsPerSecond * messagesPerRequest;
    return [
      `| ${db.name}: standalone users/s ÷ echo | ${(users / echoRate).toFixed(3)} | ${db.name === "PGlite" ? "≥ 0.12" : "≥ 0.15"} |`,
      ...(db.console
        ? [
            `| ${db.name}: console's port ÷ standalone | ${(db.console.requestsPerSecond / users).toFixed(2)} | ≥ 0.8 |`,
          ]
        : []),
      `| ${db.name}: messages stored/s ÷ users/s | ${(messages / users).toFixed(1)} | ≥ 50 |`,
    ];
  });
  return [
    `Measured ${today()} on ${machine()}; autocannon, ${connections} connections, ${seconds} s each, in one run.`,
    "",
    "| target | per second | ratio to echo | p99 latency (ms) | non-2xx or errors |",
    "|---|---:|---:|---:|---:|",
    line(echoRow, String(echoRate), "1.000"),
    ...databases.flatMap((db) => [
      line(
        db.users,
        `${db.users.requestsPerSecond} users`,
        (db.users.requestsPerSecond / echoRate).toFixed(3),
      ),
      ...(db.console
        ? [
            line(
              db.console,
              `${db.console.requestsPerSecond} users`,
              (db.console.requestsPerSecond / echoRate).toFixed(3),
            ),
          ]
        : []),
      line(
        db.migration,
        `${db.migration.requestsPerSecond} requests = ${db.migration.requestsPerSecond * messagesPerRequest} messages`,
        "",
      ),
    ]),
    "",
    "| ratio (same run) | measured | target |",
    "|---|---:|---|",
    ...ratios,
  ].join("\n");
}
