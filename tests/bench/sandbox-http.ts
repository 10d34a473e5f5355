import { spawn } from "node:child_process";
import { startSandboxServer } from "../api/support/sandbox-server";
import { startConsoleServer } from "../support/console-server";
import { machineCpuMs, postgresCpuMs, processCpuMs } from "./cpu";
import type { LoadOptions, LoadResult } from "./load-generator";
import { isBuilt, machine, root, today } from "./support";

const connections = 10;
const messagesPerRequest = 100;
/** A row measured while other processes used more than this (in cores) is measured again. */
const maxOtherCores = 0.25;
const attempts = 3;
const warmUpSeconds = 2;
/** Rounds of every target of a database, taken in turns (see measureInTurns). */
const rounds = 3;

/** The same kind of body, with users of each run's own, so every run creates new ones. */
function bodyOfRun(body: LoadOptions["body"], run: string): LoadOptions["body"] {
  return "newUserPrefix" in body ? { newUserPrefix: `${body.newUserPrefix}_${run}` } : body;
}

type Row = {
  target: string;
  requestsPerSecond: number;
  p99Ms: number;
  non2xx: number;
  /** CPU of the server process per request, µs; and of PostgreSQL's processes. */
  serverCpuUs: number;
  postgresCpuUs: number;
  /** The load generator's CPU during the run, in cores. */
  generatorCores: number;
  /** CPU of everything else on the machine during the run (other users' work), in cores. */
  otherCores: number;
  /** Requests/s of every round, in order, when the row is the best of several (measureInTurns). */
  rounds?: number[];
};

/** Runs the load generator as a process of its own (tests/bench/load-generator.ts). */
function generateLoad(options: LoadOptions): Promise<LoadResult & { totalCpuMs: number }> {
  const child = spawn(
    process.execPath,
    ["--import", "tsx", "tests/bench/load-generator.ts", JSON.stringify(options)],
    { cwd: root, stdio: ["ignore", "pipe", "inherit"] },
  );
  let output = "";
  let totalCpuMs = 0;
  child.stdout.on("data", (chunk: Buffer) => {
    output += chunk.toString();
    // Read while the process still exists: its start-up counts as the bench's own work.
    totalCpuMs = processCpuMs(child.pid!);
  });
  return new Promise((resolve, reject) =>
    child.once("exit", (code) => {
      const line = output.trim().split("\n").at(-1) ?? "";
      if (code === 0 && line.startsWith("{"))
        resolve({ ...(JSON.parse(line) as LoadResult), totalCpuMs });
      else reject(new Error(`the load generator exited with ${code}:\n${output}`));
    }),
  );
}

/**
 * Loads the server `serverPid` and reads what every process on the machine spent meanwhile.
 * A run disturbed by other work on the (shared) machine is measured again, up to 3 times.
 */
async function measure(
  target: string,
  serverPid: number | undefined,
  options: LoadOptions,
  { warmUp = true, run = "" } = {},
): Promise<Row> {
  // Unmeasured first: the server's and the generator's code is compiled and the database's
  // statements prepared before the figure is taken, for every target alike.
  if (warmUp)
    await generateLoad({
      ...options,
      seconds: warmUpSeconds,
      body: bodyOfRun(options.body, `warm_up${run}`),
    });
  let row: Row | undefined;
  for (let attempt = 1; attempt <= attempts; attempt++) {
    const before = {
      server: serverPid ? processCpuMs(serverPid) : 0,
      postgres: postgresCpuMs(),
      machine: machineCpuMs(),
      bench: process.cpuUsage(),
    };
    const load = await generateLoad({
      ...options,
      body: bodyOfRun(options.body, `${run}_${attempt}`),
    });
    const server = (serverPid ? processCpuMs(serverPid) : 0) - before.server;
    const postgres = postgresCpuMs() - before.postgres;
    const benchUsage = process.cpuUsage(before.bench);
    const bench = (benchUsage.user + benchUsage.system) / 1000;
    const other = machineCpuMs() - before.machine - server - postgres - load.totalCpuMs - bench;
    const wallMs = options.seconds * 1000;
    const requests = Math.max(1, load.requests);
    row = {
      target,
      requestsPerSecond: load.requestsPerSecond,
      p99Ms: load.p99Ms,
      non2xx: load.non2xx,
      serverCpuUs: Math.round((server * 1000) / requests),
      postgresCpuUs: Math.round((postgres * 1000) / requests),
      generatorCores: load.cpuMs / wallMs,
      otherCores: Math.max(0, other / wallMs),
    };
    if (row.otherCores <= maxOtherCores) break;
    console.warn(
      `${target}: other processes used ${row.otherCores.toFixed(2)} cores meanwhile (attempt ${attempt} of ${attempts})`,
    );
  }
  return row!;
}

function newUsers(url: string, token: string | undefined, prefix: string, seconds: number) {
  return { url, token, connections, seconds, body: { newUserPrefix: prefix } };
}

/** One target of a database's turns: measures round `round` (1, 2, …) of it. */
type Turn = (round: number) => Promise<Row>;

/**
 * Measures the targets in turns, `rounds` times over, and keeps each one's best round. On a
 * shared machine the host's own load (which the bench cannot see) comes and goes by the
 * minute, 10 s runs one after another differed by up to 30 % with the same code; in turns it
 * falls on every target alike, and it only ever pulls a figure down.
 */
async function measureInTurns(turns: Turn[]): Promise<Row[]> {
  const measured: Row[][] = turns.map(() => []);
  for (let round = 1; round <= rounds; round++) {
    for (const [index, turn] of turns.entries()) measured[index]!.push(await turn(round));
  }
  return measured.map((rows) => {
    const best = rows.reduce((a, b) => (b.requestsPerSecond > a.requestsPerSecond ? b : a));
    return { ...best, rounds: rows.map((row) => row.requestsPerSecond) };
  });
}

/** A users target on a server that stays up: warmed up in its first round only. */
function usersTurn(
  target: string,
  pid: () => number | undefined,
  url: string,
  token: string,
  prefix: string,
  seconds: number,
): Turn {
  return (round) =>
    measure(target, pid(), newUsers(url, token, prefix, seconds), {
      warmUp: round === 1,
      run: `_${round}`,
    });
}

async function startEcho(): Promise<{ url: string; pid: number | undefined; stop: () => void }> {
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
  return { url, pid: child.pid, stop: () => child.kill() };
}

async function measureEcho(seconds: number, prefix: string): Promise<Row> {
  const echo = await startEcho();
  try {
    return await measure(
      "bare node:http JSON echo",
      echo.pid,
      newUsers(echo.url, undefined, prefix, seconds),
    );
  } finally {
    echo.stop();
  }
}

/** 100 messages from 10 senders into one open channel per request, as an import would send them. */
async function migrateMessages(
  name: string,
  baseUrl: string,
  token: string,
  serverPid: number | undefined,
  seconds: number,
): Promise<Row> {
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
  return measure(`POST /v3/migration, 100 messages each, ${name}`, serverPid, {
    url: `${baseUrl}/v3/migration/bench_history`,
    token,
    connections,
    seconds,
    body: { fixed: body },
  });
}

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

/** Migration on a fresh sandbox each round: a loaded one owes the filing of what it stored. */
function migrationTurn(name: string, seconds: number): Turn {
  return async () => {
    const sandbox = await startSandboxServer();
    try {
      return await migrateMessages(name, sandbox.baseUrl, sandbox.token, sandbox.pid(), seconds);
    } finally {
      await sandbox.stop();
    }
  };
}

async function measureDatabase(name: string, seconds: number): Promise<DatabaseRows> {
  const standalone = await startSandboxServer();
  const token = "bench_token_0123456789abcdef";
  const consoleServer = isBuilt()
    ? await startConsoleServer({ SANDBOX_API_TOKEN: token })
    : undefined;
  if (!consoleServer)
    console.warn("No build in .next: skipping the console's figure (run `npx next build`).");
  try {
    const [users, migration, consoleRow] = await measureInTurns([
      usersTurn(
        `sandbox on its own port (\`npm run sandbox\`), ${name}`,
        standalone.pid,
        `${standalone.baseUrl}/v3/users`,
        standalone.token,
        "standalone",
        seconds,
      ),
      migrationTurn(name, seconds),
      ...(consoleServer
        ? [
            usersTurn(
              `console's own port (\`npm start\`, \`/sandbox/...\`), ${name}`,
              consoleServer.pid,
              `${consoleServer.origin}/sandbox/local/v3/users`,
              token,
              "console",
              seconds,
            ),
          ]
        : []),
    ]);
    return {
      name,
      users: users!,
      migration: migration!,
      console: consoleRow,
    };
  } finally {
    await Promise.all([standalone.stop(), consoleServer?.stop()]);
  }
}

/**
 * `POST /v3/users` on the standalone sandbox and through the console's port, and message
 * migration, on PGlite and PostgreSQL, each as a ratio to a bare node:http echo in the same run.
 * Every target is loaded the same way: autocannon in a process of its own, 10 connections, a new
 * user's JSON in every body. The echo is measured first and last; the ratios use the higher.
 */
export async function benchSandboxHttp(seconds: number): Promise<string> {
  const echoFirst = await measureEcho(seconds, "echo_first");

  const databases = [await withDatabase(undefined, () => measureDatabase("PGlite", seconds))];
  // The same on PostgreSQL, to tell the HTTP layer's cost from the embedded database's.
  const postgresUrl = process.env.BENCH_DATABASE_URL ?? "postgres://postgres@127.0.0.1:5432/test";
  try {
    databases.push(await withDatabase(postgresUrl, () => measureDatabase("PostgreSQL", seconds)));
  } catch (error) {
    console.warn(`No PostgreSQL at ${postgresUrl}: skipping those rows (${String(error)})`);
  }

  const echoLast = await measureEcho(seconds, "echo_last");
  // Only ever pulled down by other work on the machine: the higher is the echo's figure.
  const echoRate = Math.max(echoFirst.requestsPerSecond, echoLast.requestsPerSecond);
  const ratioToEcho = (row: Row) => (row.requestsPerSecond / echoRate).toFixed(3);
  const cores = (value: number) => value.toFixed(2);
  const line = (row: Row, perSecond: string, ratio: string) =>
    `| ${row.target} | ${perSecond} | ${ratio} | ${row.serverCpuUs}${row.postgresCpuUs >= 1 ? ` + ${row.postgresCpuUs}` : ""} | ${row.p99Ms} | ${row.non2xx} | ${cores(row.generatorCores)} | ${cores(row.otherCores)} | ${row.rounds?.join(", ") ?? ""} |`;
  const ratios = databases.flatMap((db) => {
    const users = db.users.requestsPerSecond;
    const messages = db.migration.requestsPerSecond * messagesPerRequest;
    return [
      `| ${db.name}: standalone users/s ÷ echo | ${ratioToEcho(db.users)} | ${db.name === "PGlite" ? "≥ 0.12" : "≥ 0.15"} |`,
      ...(db.console
        ? [
            `| ${db.name}: console's port ÷ standalone | ${(db.console.requestsPerSecond / users).toFixed(2)} | ≥ 0.8 |`,
          ]
        : []),
      `| ${db.name}: messages stored/s ÷ users/s | ${(messages / users).toFixed(1)} | ≥ 50 |`,
    ];
  });
  return [
    `Measured ${today()} on ${machine()}; autocannon in its own process, ${connections} connections, ${seconds} s each, in one run. The targets of a database were loaded in turns, ${rounds} rounds; each row is its best round.`,
    "",
    "| target | per second | ratio to echo | CPU per request, µs (server + PostgreSQL) | p99 latency (ms) | non-2xx or errors | load generator (cores) | other processes (cores) | every round, per second |",
    "|---|---:|---:|---:|---:|---:|---:|---:|---:|",
    line(echoFirst, String(echoFirst.requestsPerSecond), ""),
    ...databases.flatMap((db) => [
      line(db.users, `${db.users.requestsPerSecond} users`, ratioToEcho(db.users)),
      ...(db.console
        ? [line(db.console, `${db.console.requestsPerSecond} users`, ratioToEcho(db.console))]
        : []),
      line(
        db.migration,
        `${db.migration.requestsPerSecond} requests = ${db.migration.requestsPerSecond * messagesPerRequest} messages`,
        "",
      ),
    ]),
    line(
      { ...echoLast, target: `${echoLast.target}, again` },
      String(echoLast.requestsPerSecond),
      "",
    ),
    "",
    `Ratios use the higher echo figure (${echoRate}/s).`,
    "",
    "| ratio (same run) | measured | target |",
    "|---|---:|---|",
    ...ratios,
  ].join("\n");
}
