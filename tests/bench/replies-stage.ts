/**
 * The replies-and-reactions stage against the standalone sandbox (issue 23):
 *   (a) no limit: the time the sandbox alone needs for the stage's requests (replies sent,
 *       reactions added, reactions listed, each kind's rate measured under autocannon in the
 *       same run) ÷ the time the stage took in the job: ≥ 0.8;
 *   (b) SANDBOX_RATE_LIMIT=write=N: the stage's achieved writes/second ÷ N (≥ 0.95), and the
 *       share of its writes answered 429 (< 1 %).
 * The stage's time is from its first request to its last answer (the migration of other
 * channels may still run beside it early on, which only makes the figure worse). The job runs
 * in a child process (`--conditions=react-server`) on a fresh PGlite database.
 */
import fs from "node:fs";
import autocannon from "autocannon";
import type { PlatformClientOptions } from "@/lib/platform/client";
import { IMPORT_DEDUP_KEY, MESSAGE_LIST_LIMIT_MAX } from "@/lib/schemas/messages";
import { startSandboxServer, type SandboxServer } from "../api/support/sandbox-server";
import {
  machine,
  openBenchJobs,
  runBenchChild,
  runJobToCompletion,
  today,
  type BenchTarget,
} from "./support";

type StageCounts = { sends: number; adds: number; lists: number; reads: number };
type ChildResult = StageCounts & {
  seconds: number;
  /** CPU seconds of the sandbox's process and of the job's, from the stage's first answer to its last. */
  cpu: { sandbox: number; job: number };
  writes: number;
  rateLimited: number;
  created: number;
  rows: number;
};
type ChildConfig = BenchTarget & { channels: number; sandboxPid: number };

const seconds = Number(process.env.BENCH_SECONDS ?? 10);
const PER_CHANNEL = { messages: 400, replies: 100, roots: 20, reactions: 150 };
const WRITE_LIMIT = 40;

export async function benchRepliesStage(): Promise<string> {
  const alone = await startSandboxServer();
  let rates: Awaited<ReturnType<typeof sandboxRates>>;
  try {
    rates = await sandboxRates(alone, seconds);
  } finally {
    await alone.stop();
  }
  const open = await startSandboxServer();
  let unlimited: ChildResult;
  try {
    unlimited = await runJobInChild(open, 20);
  } finally {
    await open.stop();
  }
  const limited = await startSandboxServer({ SANDBOX_RATE_LIMIT: `write=${WRITE_LIMIT}` });
  let paced: ChildResult;
  try {
    paced = await runJobInChild(limited, 4);
  } finally {
    await limited.stop();
  }
  const ideal =
    unlimited.sends / rates.send +
    unlimited.adds / rates.add +
    unlimited.lists / rates.list +
    (rates.find.seconds * unlimited.reads) / rates.find.lists;
  const ratio = ideal / unlimited.seconds;
  const achieved = (paced.writes - paced.rateLimited) / paced.seconds;
  const share429 = paced.writes === 0 ? 0 : paced.rateLimited / paced.writes;
  const mark = (ok: boolean) => (ok ? "✅" : "❌");
  const n = (value: number) => Math.round(value).toLocaleString("en");
  return [
    `Replies-and-reactions stage (${today()}, ${machine()}; autocannon ${seconds} s, 10 connections)`,
    "",
    "| Measure | Value | Target |",
    "|---|---|---|",
    `| Sandbox alone: replies sent (POST …/messages with parent_message_id) | ${n(rates.send)} requests/s | |`,
    `| Sandbox alone: reactions added (POST …/reactions) | ${n(rates.add)} requests/s | |`,
    `| Sandbox alone: reactions listed (GET …/reactions) | ${n(rates.list)} requests/s | |`,
    `| Sandbox alone: the roots found (${rates.find.lists} message lists of 20 channels just migrated, their filing included) | ${rates.find.seconds.toFixed(1)} s of its CPU | |`,
    `| The stage, no limit: ${n(unlimited.sends)} replies, ${n(unlimited.adds)} reactions, ${n(unlimited.lists)} reaction lists, ${n(unlimited.reads)} message lists | ${unlimited.seconds.toFixed(1)} s | |`,
    `| The same requests at the sandbox's own rates | ${ideal.toFixed(1)} s | |`,
    `| Sandbox's time ÷ the stage's | ${ratio.toFixed(2)} | ≥ 0.8 ${mark(ratio >= 0.8)} |`,
    `| CPU in the stage, no limit: the sandbox's process, the job's | ${cpuShare(unlimited, "sandbox")}, ${cpuShare(unlimited, "job")} | |`,
    `| The stage, write=${WRITE_LIMIT} (${n(paced.sends)} replies, ${n(paced.adds)} reactions in ${paced.seconds.toFixed(1)} s) | ${achieved.toFixed(1)} writes/s | |`,
    `| Achieved ÷ ${WRITE_LIMIT} | ${(achieved / WRITE_LIMIT).toFixed(2)} | ≥ 0.95 ${mark(achieved / WRITE_LIMIT >= 0.95)} |`,
    `| Writes answered 429 | ${(share429 * 100).toFixed(2)} % (${paced.rateLimited} of ${paced.writes}) | < 1 % ${mark(share429 < 0.01)} |`,
  ].join("\n");
}

/** A process's CPU seconds in the stage, and as a share of one core over the stage's time. */
function cpuShare(result: ChildResult, process: "sandbox" | "job"): string {
  const seconds = result.cpu[process];
  return `${seconds.toFixed(1)} s (${Math.round((seconds / result.seconds) * 100)} % of a core)`;
}

/** Each of the stage's kinds of request alone under autocannon, in requests per second. */
async function sandboxRates(sandbox: SandboxServer, duration: number) {
  const headers = { "content-type": "application/json", "Api-Token": sandbox.token };
  const post = (path: string, body: unknown) =>
    fetch(`${sandbox.baseUrl}${path}`, { method: "POST", headers, body: JSON.stringify(body) });
  await post("/v3/users", { user_id: "raw_a", nickname: "A", profile_url: "" });
  await post("/v3/group_channels", { channel_url: "raw_c", user_ids: ["raw_a"] });
  const root = (await (
    await post("/v3/group_channels/raw_c/messages", {
      message_type: "MESG",
      user_id: "raw_a",
      message: "root",
      // Before the replies' created_at: a reply older than its root is refused (400111).
      created_at: 1_700_000_000_000 - 1000,
    })
  ).json()) as { message_id: number };
  const base = `/sandbox/${sandbox.appId}/v3/group_channels/raw_c/messages`;
  // Only answers like the stage's count: a refusal costs the sandbox less than the work.
  const run = async (kind: string, request: autocannon.Request) => {
    const result = await autocannon({
      url: `${sandbox.baseUrl}/v3/users`,
      connections: 10,
      duration,
      headers,
      requests: [request],
    });
    if (result.non2xx > 0 || result.errors > 0)
      throw new Error(
        `${kind}: ${result.non2xx} answers not 2xx and ${result.errors} errors of ${result.requests.total}; the rate would not be the stage's`,
      );
    return result.requests.average;
  };
  let counter = 0;
  const send = await run("replies sent", {
    method: "POST",
    setupRequest: (request) => {
      const n = counter++;
      return {
        ...request,
        path: base,
        body: JSON.stringify({
          message_type: "MESG",
          user_id: "raw_a",
          message: `reply ${n}`,
          parent_message_id: root.message_id,
          created_at: 1_700_000_000_000 + n,
          dedup_id: `raw-${n}`,
        }),
      };
    },
  });
  // Reactions on messages of their own, as the stage has them: a few on each message, each
  // listed before any is added (the stage lists a message's reactions to add only those
  // missing), so neither a list nor an add meets a message with dozens.
  const targets: number[] = [];
  for (let n = 0; n < 600; n++)
    targets.push(
      (
        (await (
          await post("/v3/group_channels/raw_c/messages", {
            message_type: "MESG",
            user_id: "raw_a",
            message: `target ${n}`,
          })
        ).json()) as { message_id: number }
      ).message_id,
    );
  counter = 0;
  const list = await run("reactions listed", {
    method: "GET",
    setupRequest: (request) => ({
      ...request,
      path: `${base}/${targets[counter++ % targets.length]}/reactions`,
    }),
  });
  counter = 0;
  const add = await run("reactions added", {
    method: "POST",
    setupRequest: (request) => {
      const n = counter++;
      return {
        ...request,
        path: `${base}/${targets[n % targets.length]}/reactions`,
        body: JSON.stringify({ user_id: "raw_a", reaction: `k${Math.floor(n / targets.length)}` }),
      };
    },
  });
  return { send, add, list, find: await findRootsCost(sandbox, post) };
}

/**
 * The sandbox's CPU seconds for the stage's message lists, which find the roots' ids: the
 * same channels (20 × 400 messages, each with its dedup id) migrated as the job migrates
 * them, then each listed from its first message, 200 at a time, with `with_sorted_meta_array`.
 * A channel's first list also files the migration requests the sandbox stored (a background
 * filing, 1 s after a channel's last migration, may take some first): that work is in the
 * stage's time, so it is here too, from the end of the migration to the lists' end and the
 * filing's. Returns the seconds and the lists made.
 */
async function findRootsCost(
  sandbox: SandboxServer,
  post: (path: string, body: unknown) => Promise<Response>,
): Promise<{ seconds: number; lists: number }> {
  const channels = Array.from({ length: 20 }, (_, n) => `find_c${n}`);
  for (const url of channels)
    await post("/v3/group_channels", { channel_url: url, user_ids: ["raw_a"] });
  for (const url of channels)
    for (let request = 0; request < PER_CHANNEL.messages / 100; request++)
      await post(`/v3/migration/${url}`, {
        messages: Array.from({ length: 100 }, (_, i) => {
          const n = request * 100 + i;
          return {
            message_type: "MESG",
            user_id: "raw_a",
            message: `message ${n}`,
            timestamp: 1_700_000_000_000 + n * 1000,
            sorted_metaarray: [{ key: IMPORT_DEDUP_KEY, value: [`${url}-${n}`] }],
          };
        }),
      });
  const cpuBefore = processCpuSeconds(sandbox.pid()!);
  let lists = 0;
  const headers = { "Api-Token": sandbox.token };
  await Promise.all(
    channels.map(async (url) => {
      let from = "message_ts=1700000000000&include=true";
      for (;;) {
        const page = (await (
          await fetch(
            `${sandbox.baseUrl}/v3/group_channels/${url}/messages?${from}&prev_limit=0&next_limit=${MESSAGE_LIST_LIMIT_MAX}&with_sorted_meta_array=true`,
            { headers },
          )
        ).json()) as { messages: Array<{ message_id: number }> };
        lists++;
        if (page.messages.length < MESSAGE_LIST_LIMIT_MAX) return;
        from = `message_id=${page.messages.at(-1)!.message_id}&include=false`;
      }
    }),
  );
  // Until the background filing, if any is under way, has ended.
  let cpu = processCpuSeconds(sandbox.pid()!);
  for (;;) {
    await new Promise((resolve) => setTimeout(resolve, 2000));
    const now = processCpuSeconds(sandbox.pid()!);
    if (now - cpu < 0.05) break;
    cpu = now;
  }
  return { seconds: cpu - cpuBefore, lists };
}

function runJobInChild(sandbox: SandboxServer, channels: number): Promise<ChildResult> {
  const config: ChildConfig = {
    baseUrl: sandbox.baseUrl,
    token: sandbox.token,
    appId: sandbox.appId,
    channels,
    sandboxPid: sandbox.pid()!,
  };
  return runBenchChild<ChildResult>("tests/bench/replies-stage.ts", {
    REPLIES_BENCH_CHILD: JSON.stringify(config),
  });
}

/** A process's CPU time (user and system) so far, in seconds, from /proc. */
function processCpuSeconds(pid: number): number {
  const fields = fs.readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]!.split(" ");
  return (Number(fields[11]) + Number(fields[12])) / 100;
}

/** Which of the stage's requests an answer was, if it was one of them. */
function stageRequest(method: string, url: string): keyof StageCounts | null {
  const path = new URL(url).pathname;
  if (/\/messages\/\d+\/reactions$/.test(path)) return method === "POST" ? "adds" : "lists";
  if (/\/group_channels\/[^/]+\/messages$/.test(path)) return method === "POST" ? "sends" : "reads";
  return null;
}

/** In the child: users and channels on the sandbox, then upload, plan and run one threads job. */
async function child(config: ChildConfig) {
  const { appendRows, createJob } = await import("@/lib/imports/jobs/store/upload");
  const { planJob, requestPlan } = await import("@/lib/imports/jobs/plan/plan");
  const { threadsFile, threadsMapping } = await import("@/tests/fixtures/imports");
  const { db, client, close } = await openBenchJobs("replies", config, { rateLimitRetries: 5 });
  const prefix = `rb_${Date.now().toString(36)}`;
  const senders = Array.from({ length: 4 }, (_, n) => `${prefix}_u${n}`);
  for (const id of senders)
    await client().users.create({ user_id: id, nickname: id, profile_url: "" });
  const channels = Array.from({ length: config.channels }, (_, n) => `${prefix}_c${n}`);
  for (const url of channels)
    await client().groupChannels.create({ channel_url: url, user_ids: senders });
  const file = threadsFile(channels, senders, PER_CHANNEL, { prefix });
  const job = await createJob(db, {
    resource: "messages",
    fileName: "bench.ndjson",
    columns: file.columns,
    mapping: threadsMapping,
    totalRows: file.rows.length,
  });
  for (let start = 0; start < file.rows.length; start += 5000)
    await appendRows(
      db,
      job.id,
      file.rows.slice(start, start + 5000).map((values, i) => ({ index: start + i, values })),
    );
  await requestPlan(db, job.id);
  await planJob(db, client(), job.id);

  const counts: StageCounts = { sends: 0, adds: 0, lists: 0, reads: 0 };
  let first = Infinity;
  let last = 0;
  let writes = 0;
  let rateLimited = 0;
  // Where the stage's time goes: read at its first answer and again at each later one.
  const cpuNow = () => ({
    sandbox: processCpuSeconds(config.sandboxPid),
    job: (process.cpuUsage().user + process.cpuUsage().system) / 1e6,
  });
  let cpuFirst: ReturnType<typeof cpuNow> | undefined;
  let cpuLast: ReturnType<typeof cpuNow> | undefined;
  const watched = (hooks: Partial<PlatformClientOptions>) =>
    client({
      ...hooks,
      onResponse: (info) => {
        hooks.onResponse?.(info);
        const kind = stageRequest(info.method, info.url);
        // Message lists before the first reply or reaction are the roots' search: the stage's.
        if (kind === null) return;
        const now = performance.now();
        cpuLast = cpuNow();
        cpuFirst ??= cpuLast;
        first = Math.min(first, now - info.latencyMs);
        last = Math.max(last, now);
        if (info.status === 429) rateLimited++;
        else counts[kind]++;
        if (kind === "sends" || kind === "adds") writes++;
      },
    });
  const run = await runJobToCompletion(db, watched, job.id);
  await close();
  const result: ChildResult = {
    ...counts,
    seconds: (last - first) / 1000,
    cpu: {
      sandbox: (cpuLast?.sandbox ?? 0) - (cpuFirst?.sandbox ?? 0),
      job: (cpuLast?.job ?? 0) - (cpuFirst?.job ?? 0),
    },
    writes,
    rateLimited,
    created: run.counts.created,
    rows: file.rows.length,
  };
  console.log(JSON.stringify(result));
}

if (process.env.REPLIES_BENCH_CHILD) {
  await child(JSON.parse(process.env.REPLIES_BENCH_CHILD) as ChildConfig);
  process.exit(0);
}
