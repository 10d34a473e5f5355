import http from "node:http";
import { parseArgs } from "node:util";

/**
 * `npm start` / `npm run serve`: the built console and its embedded sandbox on one port.
 * `/sandbox/...` goes straight to the sandbox's Hono app on this plain listener; Next.js's
 * route handler would add its own per-request work (several times the sandbox's own cost).
 * Everything else goes to Next.js's request handler, as under `next start`.
 */
const { values } = parseArgs({
  options: { hostname: { type: "string", short: "H" }, port: { type: "string", short: "p" } },
});
const hostname = values.hostname ?? "127.0.0.1";
// `--port` is PORT given on the command line: validated with it (lib/env.ts), and it wins over .env.
if (values.port !== undefined) process.env.PORT = values.port;
// Set before Next.js loads, as `next start` does.
Object.assign(process.env, { NODE_ENV: "production" });

// The .env files, before the sandbox reads its configuration.
const { loadEnvConfig } = await import("@next/env");
loadEnvConfig(process.cwd());
// A bad configuration ends the process with a message naming the variable, before anything is built.
const { checkConfigurationOrExit, openDatabaseEarly } = await import("@/lib/startup");
checkConfigurationOrExit();
const { env } = await import("@/lib/env");
const port = env().PORT;
// PGlite is compiled, started and, after a crash, recovered while Next.js loads.
openDatabaseEarly();
const { getSandboxApp, sandboxRequestListener } = await import("@/lib/sandbox");
// Created here, before Next.js starts, so this (unbundled) instance is the process's one:
// the console's pages, plans and rehearsals reach the same app through `getSandboxApp()`.
const sandbox = getSandboxApp();
// tsx turned Node's source maps on for our TypeScript. Left on, every chunk of Next.js's compiled
// server has its map (28 MB in all) read, parsed and kept as it loads: a second of CPU at each
// start and memory for as long as the process runs. `next start` leaves them off too.
process.setSourceMapsEnabled(false);
const { default: next } = await import("next");

const nextApp = next({ dev: false, dir: process.cwd(), hostname, port });
try {
  // Runs instrumentation.ts, hence the console's start-up (lib/startup.ts): a fatal
  // configuration error ends the process here, before anything listens.
  await nextApp.prepare();
} catch (error) {
  console.error("The console could not start:", error);
  process.exit(1);
}
const handleNext = nextApp.getRequestHandler();
const handleSandbox = sandboxRequestListener(sandbox, `${hostname}:${port}`);

const server = http.createServer((request, response) => {
  if (request.url?.startsWith("/sandbox/")) void handleSandbox(request, response);
  else void handleNext(request, response);
});
// Idle connections are kept 65 s, not Node's 5 s. A client that keeps a pool of connections and
// does not read the server's Keep-Alive hint (a reverse proxy whose idle timeout is 60 s;
// Playwright's request API, microsoft/playwright#42698) otherwise reuses one just as the server
// closes it, and the request fails with a reset: a browser test did, once. Idle connections are
// still closed at once on shutdown (server.close()).
server.keepAliveTimeout = 65_000;
server.headersTimeout = 66_000;
server.listen(port, hostname, () => {
  console.log(`Switchboard console listening on http://${hostname}:${port}`);
});

async function shutdown() {
  server.close();
  await nextApp.close();
  process.exit(0);
}
process.on("SIGINT", () => void shutdown());
process.on("SIGTERM", () => void shutdown());
