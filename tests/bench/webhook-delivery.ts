import os from "node:os";
import autocannon from "autocannon";
import { call } from "../api/support/http";
import { startSandboxServer } from "../api/support/sandbox-server";
import { startWebhookReceiver } from "../support/webhook-receiver";
import { postgresCpuMs, processCpuMs } from "./cpu";
import { machine, today } from "./support";

const connections = 10;

async function emitLoad(baseUrl: string, token: string, seconds: number) {
  const result = await autocannon({
    url: `${baseUrl}/v1/sandbox/events`,
    method: "POST",
    connections,
    duration: seconds,
    headers: { "content-type": "application/json", "Api-Token": token },
    body: JSON.stringify({ category: "direct_call:dial" }),
  });
  return {
    perSecond: Math.round(result.requests.average),
    p50: result.latency.p50,
    p99: result.latency.p99,
    total: result.requests.total,
    non2xx: result.non2xx + result.errors,
  };
}

/**
 * How fast the receiver takes POSTs from a bare load tool: the ceiling delivery is measured
 * against. Both run in this process, so its CPU per POST is the two of them together.
 */
async function receiverCeiling(url: string, seconds: number) {
  const before = process.cpuUsage();
  const result = await autocannon({
    url,
    method: "POST",
    connections: 32,
    duration: seconds,
    headers: { "content-type": "application/json" },
    body: JSON.stringify({
      category: "room:create",
      occurred_at: Date.now(),
      room: { room_id: "bench" },
    }),
  });
  const cpu = process.cpuUsage(before);
  return {
    perSecond: Math.round(result.requests.average),
    cpuPerPost: Math.round((cpu.user + cpu.system) / Math.max(1, result.requests.total)),
  };
}

/**
 * Delivery throughput to a loopback receiver against the rate the same receiver takes POSTs
 * from autocannon, and the emit API's latency while the receiver never answers, against its
 * latency with webhooks off (same run, same server). On PostgreSQL, as the target asks:
 * BENCH_DATABASE_URL, else TEST_DATABASE_URL, else the local server; BENCH_DATABASE_URL=pglite
 * measures PGlite instead.
 */
export async function benchWebhookDelivery(seconds: number): Promise<string> {
  const url =
    process.env.BENCH_DATABASE_URL ??
    process.env.TEST_DATABASE_URL ??
    "postgres://postgres@127.0.0.1:5432/test";
  if (url === "pglite") delete process.env.TEST_DATABASE_URL;
  else process.env.TEST_DATABASE_URL = url;
  const storage = process.env.TEST_DATABASE_URL ? "PostgreSQL" : "PGlite";
  const sandbox = await startSandboxServer();
  const receiver = await startWebhookReceiver();
  const settings = `/v1/applications/${sandbox.appId}/settings/webhook`;
  const configure = (body: Record<string, unknown>) =>
    call(sandbox, "PUT", settings, { application_id: sandbox.appId, ...body });

  // 1. Emit API latency with nothing to deliver: the baseline.
  await configure({ enabled: false });
  const baseline = await emitLoad(sandbox.baseUrl, sandbox.token, seconds);

  // 2. Throughput: emit a burst and let it be delivered; then put the same events in the
  // outbox again at once ("send again" for all) and time until the receiver has every one.
  await configure({ enabled: true, url: receiver.url, enabled_events: ["*"] });
  receiver.received.length = 0;
  const burst = 10_000;
  const started = performance.now();
  for (let sent = 0; sent < burst; sent += 50) {
    await Promise.all(
      Array.from({ length: 50 }, () =>
        call(sandbox, "POST", "/v1/sandbox/events", { category: "room:create" }),
      ),
    );
  }
  const emitted = performance.now();
  await receiver.waitFor(burst, 300_000);
  const emittedPerSecond = Math.round(burst / ((emitted - started) / 1000));
  const lagMs = Math.round(performance.now() - emitted);
  receiver.received.length = 0;
  // CPU per delivered event, by process: where the work is, steadier than events/s.
  const cpuBefore = {
    sandbox: processCpuMs(sandbox.pid()!),
    postgres: storage === "PostgreSQL" ? postgresCpuMs() : 0,
    receiver: process.cpuUsage(),
  };
  const queued = performance.now();
  const resent = await call<{ count: number }>(
    sandbox,
    "POST",
    "/v1/sandbox/deliveries/resend",
    {},
  );
  await receiver.waitFor(resent.body.count, 300_000);
  const deliveredPerSecond = Math.round(resent.body.count / ((performance.now() - queued) / 1000));
  const perEvent = (ms: number) => Math.round((ms * 1000) / Math.max(1, resent.body.count));
  const receiverCpu = process.cpuUsage(cpuBefore.receiver);
  const cpu = {
    sandbox: perEvent(processCpuMs(sandbox.pid()!) - cpuBefore.sandbox),
    postgres: storage === "PostgreSQL" ? perEvent(postgresCpuMs() - cpuBefore.postgres) : null,
    receiver: perEvent((receiverCpu.user + receiverCpu.system) / 1000),
  };
  receiver.received.length = 0;
  const { perSecond: ceiling, cpuPerPost } = await receiverCeiling(receiver.url, seconds);
  receiver.received.length = 0;

  // 3. Emit API latency while deliveries succeed, then while every delivery hangs until its timeout.
  const healthy = await emitLoad(sandbox.baseUrl, sandbox.token, seconds);
  receiver.setBehaviour({ mode: "hang" });
  const dead = await emitLoad(sandbox.baseUrl, sandbox.token, seconds);
  await configure({ enabled: false });

  await receiver.stop();
  await sandbox.stop();
  // What the target leaves each event: every process's CPU together, at half the ceiling's rate.
  const cores = os.cpus().length;
  const budget = Math.round((cores * 1_000_000) / Math.max(1, ceiling / 2));
  const used = cpu.sandbox + (cpu.postgres ?? 0) + cpu.receiver;
  const row = (label: string, run: Awaited<ReturnType<typeof emitLoad>>) =>
    `| ${label} | ${run.perSecond} | ${run.p50} | ${run.p99} | ${run.non2xx} |`;
  return [
    `Measured ${today()} on ${machine()}; standalone sandbox on ${storage}, receiver on loopback, autocannon ${connections} connections, ${seconds} s per emit run.`,
    "",
    `Delivered: **${deliveredPerSecond} events per second** from the outbox to the receiver (${resent.body.count} events put in the outbox at once by "send again", each of its own room, signed, until the last receipt). The same receiver takes **${ceiling} POSTs per second** from autocannon (32 connections, ${seconds} s; autocannon and the receiver, one process, ${cpuPerPost} µs of CPU a POST together): ratio **${(deliveredPerSecond / Math.max(1, ceiling)).toFixed(2)}** (target ≥ 0.5).`,
    "",
    `CPU per delivered event: sandbox ${cpu.sandbox} µs${cpu.postgres === null ? "" : `, PostgreSQL ${cpu.postgres} µs (all its processes)`}, receiver ${cpu.receiver} µs (with the bench's own bookkeeping): ${used} µs in all. At the target rate (${Math.round(ceiling / 2)} events/s) ${cores} cores leave ${budget} µs an event for all of them together.`,
    "",
    `While emitting: a burst of ${burst} events emitted 50 at a time (${emittedPerSecond} emits/s); the last event arrived ${lagMs} ms after the last emit answered.`,
    "",
    "| emit operation (`POST /v1/sandbox/events`) while… | requests/s | p50 (ms) | p99 (ms) | errors |",
    "|---|---:|---:|---:|---:|",
    row("webhooks are off (nothing stored)", baseline),
    row("every event is delivered to a healthy receiver", healthy),
    row("the receiver never answers (5 s timeout, 3 attempts)", dead),
    "",
    `Emit p99 with a dead receiver ÷ with a healthy one: **${(dead.p99 / Math.max(1, healthy.p99)).toFixed(2)}** (1.0 or less: a dead endpoint does not slow the API).`,
  ].join("\n");
}
