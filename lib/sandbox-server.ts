import http from "node:http";
import type { AddressInfo } from "node:net";
import path from "node:path";
import { closeDatabase } from "@/lib/db/client";
import { env } from "@/lib/env";
import { startServer } from "@/lib/startup";
import { getSandboxApp, sandboxRequestListener, stopSandboxWebhookWorker } from "@/lib/sandbox";

// `npm run sandbox`: the embedded platform on its own port, for speed and for teams who
// point their own scripts at it. It must not share the console's PGlite directory.
process.env.DATA_DIR ??= path.join(".data", "sandbox-standalone");

// Configuration, database and webhook worker, or exit 1 naming the cause, before listening.
const application = await startServer("sandbox");
const { SANDBOX_PORT: port, SANDBOX_HOST: hostname, SANDBOX_EXIT_WITH_PARENT } = env();
const app = getSandboxApp();

const server = http.createServer(sandboxRequestListener(app, hostname));
server.listen(port, hostname, () => {
  const { port: listening } = server.address() as AddressInfo;
  console.log(
    `Sandbox platform listening on http://${hostname}:${listening}/sandbox/{application_id}`,
  );
  console.log(`Storage: ${application.kind} at ${application.location}`);
});

async function shutdown() {
  server.close();
  await stopSandboxWebhookWorker();
  await closeDatabase();
  process.exit(0);
}
process.on("SIGINT", shutdown);
// Test servers stop by themselves when the process that started them is gone.
if (SANDBOX_EXIT_WITH_PARENT) {
  const parent = process.ppid;
  setInterval(() => {
    try {
      process.kill(parent, 0);
    } catch {
      void shutdown();
    }
  }, 1000).unref();
}
process.on("SIGTERM", shutdown);
