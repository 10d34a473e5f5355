/**
 * Messages import throughput against the standalone sandbox:
 *   (a) no limit: the job's messages/second ÷ the sandbox's own migration messages/second
 *       under autocannon (requests of 100 messages, as the job sends them);
 *   (b) SANDBOX_RATE_LIMIT=migration=5: achieved requests/second ÷ 5, and the share of 429s.
 * The job runs in a child process (`--conditions=react-server`) on a fresh PGlite database.
 */
import autocannon from "autocannon";
import { startSandboxServer, type SandboxServer } from "../api/support/sandbox-server";
import {
  machine,
  openBenchJobs,
  runBenchChild,
  runJobToCompletion,
  today,
  type BenchTarget,
} from "./support";

type ChildResult = {
  messages: number;
  created: number;
  seconds: number;
  responses: number;
  rateLimited: number;
  requests: number;
};
type ChildConfig = BenchTarget & { messages: number; channels: number };

const seconds = Number(process.env.BENCH_SECONDS ?? 10);
const CHANNELS = 50;

export async function benchMessageImportRun(): Promise<string> {
  // Each phase on a sandbox of its own: the sandbox files the messages it stored under
  // autocannon once they stop coming (lib/sandbox/messages.ts), which the job would pay for.
  const alone = await startSandboxServer();
  let raw: number;
  try {
    raw = await sandboxMessagesPerSecond(alone, seconds);
  } finally {
    await alone.stop();
  }
  const open = await startSandboxServer();
  let unlimited: ChildResult;
  try {
    unlimited = await runJobInChild(
      open,
      Math.min(200_000, Math.max(10_000, Math.round(raw * seconds))),
      CHANNELS,
    );
  } finally {
    await open.stop();
  }
  const limited = await startSandboxServer({ SANDBOX_RATE_LIMIT: "migration=5" });
  let paced: ChildResult;
  try {
    paced = await runJobInChild(limited, 5 * Math.max(seconds, 10) * 100, 10);
  } finally {
    await limited.stop();
  }
  const jobRate = unlimited.created / unlimited.seconds;
  const pacedRequests = paced.requests / paced.seconds;
  const share429 = paced.responses === 0 ? 0 : paced.rateLimited / paced.responses;
  const mark = (ok: boolean) => (ok ? "✅" : "❌");
  return [
    `Messages import run (${today()}, ${machine()}; job concurrency 16; autocannon ${seconds} s, 10 connections)`,
    "",
    "| Measure | Value | Target |",
    "|---|---|---|",
    `| Sandbox alone, POST /v3/migration (100 messages each) under autocannon | ${Math.round(raw)} messages/s | |`,
    `| Import job, no limit (${unlimited.messages.toLocaleString("en")} messages over ${CHANNELS} channels in ${unlimited.seconds.toFixed(1)} s) | ${Math.round(jobRate)} messages/s | |`,
    `| Job ÷ sandbox alone | ${(jobRate / raw).toFixed(2)} | ≥ 0.8 ${mark(jobRate / raw >= 0.8)} |`,
    `| Import job, migration=5 (${paced.messages.toLocaleString("en")} messages in ${paced.seconds.toFixed(1)} s) | ${pacedRequests.toFixed(2)} requests/s | |`,
    `| Achieved ÷ 5 | ${(pacedRequests / 5).toFixed(2)} | ≥ 0.95 ${mark(pacedRequests / 5 >= 0.95)} |`,
    `| Requests answered 429 | ${(share429 * 100).toFixed(2)} % (${paced.rateLimited} of ${paced.responses}) | < 1 % ${mark(share429 < 0.01)} |`,
  ].join("\n");
}

async function sandboxMessagesPerSecond(sandbox: SandboxServer, duration: number): Promise<number> {
  const headers = { "content-type": "application/json", "Api-Token": sandbox.token };
  await fetch(`${sandbox.baseUrl}/v3/users`, {
    method: "POST",
    headers,
    body: JSON.stringify({ user_id: "raw_sender", nickname: "Raw", profile_url: "" }),
  });
  for (let c = 0; c < 10; c++) {
    await fetch(`${sandbox.baseUrl}/v3/group_channels`, {
      method: "POST",
      headers,
      body: JSON.stringify({ channel_url: `raw_${c}`, user_ids: ["raw_sender"] }),
    });
  }
  let counter = 0;
  const result = await autocannon({
    url: `${sandbox.baseUrl}/v3/migration/raw_0`,
    method: "POST",
    connections: 10,
    duration,
    headers,
    requests: [
      {
        setupRequest: (request) => {
          const batch = counter++;
          const messages = Array.from({ length: 100 }, (_, n) => ({
            message_type: "MESG",
            user_id: "raw_sender",
            message: `raw ${batch}/${n}`,
            timestamp: 1_700_000_000_000 + batch * 100 + n,
            dedup_id: `raw-${batch}-${n}`,
          }));
          return {
            ...request,
            path: `/sandbox/${sandbox.appId}/v3/migration/raw_${batch % 10}`,
            body: JSON.stringify({ messages }),
          };
        },
      },
    ],
  });
  return result.requests.average * 100;
}

function runJobInChild(
  sandbox: SandboxServer,
  messages: number,
  channels: number,
): Promise<ChildResult> {
  const config: ChildConfig = {
    baseUrl: sandbox.baseUrl,
    token: sandbox.token,
    appId: sandbox.appId,
    messages,
    channels,
  };
  return runBenchChild<ChildResult>("tests/bench/message-import-run.ts", {
    MESSAGE_BENCH_CHILD: JSON.stringify(config),
  });
}

/** In the child: users and channels on the sandbox, then upload, plan and run one messages job. */
async function child(config: ChildConfig) {
  const { appendRows, createJob } = await import("@/lib/imports/jobs/store/upload");
  const { planJob, requestPlan } = await import("@/lib/imports/jobs/plan/plan");
  const { messagesFile, messagesMapping } = await import("@/tests/fixtures/imports");
  const { db, client, close } = await openBenchJobs("message", config, { rateLimitRetries: 5 });
  const prefix = `mb_${Date.now().toString(36)}`;
  const senders = [`${prefix}_a`, `${prefix}_b`];
  for (const id of senders)
    await client().users.create({ user_id: id, nickname: id, profile_url: "" });
  const channels = Array.from({ length: config.channels }, (_, n) => `${prefix}_c${n}`);
  for (const url of channels)
    await client().groupChannels.create({ channel_url: url, user_ids: senders });
  const file = messagesFile(channels, senders, Math.floor(config.messages / config.channels), {
    prefix,
  });
  const job = await createJob(db, {
    resource: "messages",
    fileName: "bench.ndjson",
    columns: file.columns,
    mapping: messagesMapping,
    totalRows: file.rows.length,
  });
  for (let start = 0; start < file.rows.length; start += 5000) {
    await appendRows(
      db,
      job.id,
      file.rows.slice(start, start + 5000).map((values, i) => ({ index: start + i, values })),
    );
  }
  await requestPlan(db, job.id);
  await planJob(db, client(), job.id);
  const run = await runJobToCompletion(db, client, job.id);
  const { responses, rateLimited } = run.pacers.migration.stats;
  await close();
  const result: ChildResult = {
    messages: file.rows.length,
    created: run.counts.created,
    seconds: run.seconds,
    responses,
    rateLimited,
    requests: responses - rateLimited,
  };
  console.log(JSON.stringify(result));
}

if (process.env.MESSAGE_BENCH_CHILD) {
  await child(JSON.parse(process.env.MESSAGE_BENCH_CHILD) as ChildConfig);
  process.exit(0);
}
