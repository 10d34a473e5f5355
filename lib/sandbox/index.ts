import { getDb } from "@/lib/db/client";
import { env } from "@/lib/env";
import { createSandboxApp, type SandboxApp } from "./app";
import { parseFaults, parseRateLimit, type SandboxConfig } from "./config";
import { startWebhookWorker, type WebhookWorker } from "./webhooks/worker";

export { createSandboxApp, type SandboxApp } from "./app";
export * from "./applications";
export { parseFaults, parseRateLimit, type SandboxConfig } from "./config";
export { sandboxRequestListener } from "./node-listener";

export function sandboxConfigFromEnv(): SandboxConfig {
  const e = env();
  return {
    defaultAppId: e.SANDBOX_APP_ID,
    defaultApiToken: e.SANDBOX_API_TOKEN,
    rateLimit: parseRateLimit(e.SANDBOX_RATE_LIMIT),
    faults: parseFaults(e.SANDBOX_FAULTS),
    webhookTimeoutMs: e.SANDBOX_WEBHOOK_TIMEOUT_MS,
  };
}

const appKey = Symbol.for("switchboard.sandbox");
const workerKey = Symbol.for("switchboard.sandbox.webhook-worker");
type GlobalWithSandbox = typeof globalThis & { [appKey]?: SandboxApp; [workerKey]?: WebhookWorker };

/** The process's sandbox, on the process's database (one instance shared by every bundle). */
export function getSandboxApp(): SandboxApp {
  const store = globalThis as GlobalWithSandbox;
  store[appKey] ??= createSandboxApp({
    getDb,
    config: sandboxConfigFromEnv(),
    onEventsAccepted: () => store[workerKey]?.nudge(),
  });
  return store[appKey];
}

/**
 * Starts delivering the outbox in this process (once). Call it at server start: events
 * accepted before a restart are delivered after it.
 */
export function startSandboxWebhookWorker(): WebhookWorker {
  const store = globalThis as GlobalWithSandbox;
  if (!store[workerKey]) {
    const e = env();
    store[workerKey] = startWebhookWorker({
      getDb,
      timeoutMs: e.SANDBOX_WEBHOOK_TIMEOUT_MS,
      policy: { allowLoopback: e.WEBHOOK_ALLOW_LOOPBACK, allowPrivate: e.WEBHOOK_ALLOW_PRIVATE },
      retentionDays: e.WEBHOOK_LOG_RETENTION_DAYS,
    });
  }
  return store[workerKey];
}

export async function stopSandboxWebhookWorker(): Promise<void> {
  const store = globalThis as GlobalWithSandbox;
  const worker = store[workerKey];
  delete store[workerKey];
  await worker?.stop();
}
