import autocannon from "autocannon";
import { call } from "../api/support/http";
import { startSandboxServer } from "../api/support/sandbox-server";
import { startWebhookReceiver } from "../support/webhook-receiver";
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
  return { perSecond: Math.round(result.requests.average), p50: result.latency.p50, p99: result.latency.p99, total: result.requests.total, non2xx: result.non2xx + result.errors };
}

/**
 * Delivery throughput to a loopback receiver, and the emit API's latency while the receiver
 * never answers, against its latency with webhooks off (same run, same server).
 */
export async function benchWebhookDelivery(seconds: number): Promise<string> {
  const sandbox = await startSandboxServer();
  const receiver = await startWebhookReceiver();
  const settings = `/v1/applications/${sandbox.appId}/settings/webhook`;
  const configure = (body: Record<string, unknown>) =>
    call(sandbox, "PUT", settings, { application_id: sandbox.appId, ...body });

  // 1. Emit API latency with nothing to deliver: the baseline.
  await configure({ enabled: false });
  const baseline = await emitLoad(sandbox.baseUrl, sandbox.token, seconds);

  // 2. Throughput: emit a burst, time until the receiver has every event.
  await configure({ enabled: true, url: receiver.url, enabled_events: ["*"] });
  receiver.received.length = 0;
  const burst = 2000;
  const started = performance.now();
  for (let sent = 0; sent < burst; sent += 50) {
    await Promise.all(
      Array.from({ length: 50 }, () => call(sandbox, "POST", "/v1/sandbox/events", { category: "room:create" })),
    );
  }
  const emitted = performance.now();
  await receiver.waitFor(burst, 300_000);
  const finished = performance.now();
  const deliveredPerSecond = Math.round(burst / ((finished - started) / 1000));
  const emittedPerSecond = Math.round(burst / ((emitted - started) / 1000));
  const lagMs = Math.round(finished - emitted);

  // 3. Emit API latency while deliveries succeed, then while every delivery hangs until its timeout.
  const healthy = await emitLoad(sandbox.baseUrl, sandbox.token, seconds);
  receiver.setBehaviour({ mode: "hang" });
  const dead = await emitLoad(sandbox.baseUrl, sandbox.token, seconds);
  await configure({ enabled: false });

  await receiver.stop();
  await sandbox.stop();
  const row = (label: string, run: Awaited<ReturnType<typeof emitLoad>>) =>
    `| ${label} | ${run.perSecond} | ${run.p50} | ${run.p99} | ${run.non2xx} |`;
  return [
    `Measured ${today()} on ${machine()}; standalone sandbox on PGlite, receiver on loopback, autocannon ${connections} connections, ${seconds} s per emit run.`,
    "",
    `Delivered: **${deliveredPerSecond} events per second** end to end: a burst of ${burst} events emitted 50 at a time (${emittedPerSecond} emits/s), from the first emit to the last receipt, events of one application delivered in order. The last event arrived ${lagMs} ms after the last emit answered.`,
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
