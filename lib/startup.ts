import { getDatabaseHandle, type DatabaseHandle } from "@/lib/db/client";
import { env } from "@/lib/env";
import { cachedApplication, getSandboxApp, startSandboxWebhookWorker } from "@/lib/sandbox";
import { installRequestGuard } from "@/lib/server/request-guard";
import { boxed } from "@/lib/text/boxed";

/** What the starting process serves: the console (`next start`), `npm run sandbox`, `npm run worker`. */
export type ServerRole = "console" | "sandbox" | "import-worker";

/** A start-up failure whose message names its cause in an operator's words. */
export class StartupError extends Error {
  constructor(step: string, cause: unknown) {
    super(`${step}: ${cause instanceof Error ? cause.message : String(cause)}`, { cause });
    this.name = "StartupError";
  }
}

async function step<T>(name: string, run: () => T | Promise<T>): Promise<T> {
  try {
    return await run();
  } catch (error) {
    throw new StartupError(name, error);
  }
}

/**
 * The start-up checks every entry point runs before it serves: configuration, database
 * (opened, locked and migrated), the default sandbox application; then the role's background
 * workers. Throws a StartupError naming the cause; startServer turns it into an exit.
 */
export async function prepareServer(role: ServerRole): Promise<DatabaseHandle> {
  await step("Invalid configuration", () => env());
  // Node-level refusals (long or undecodable URLs, NUL, forged client addresses) for every server.
  installRequestGuard();
  const handle = await step("The database cannot be used", () => getDatabaseHandle());
  // The standalone sandbox is the platform itself: it has no platform client to connect (and
  // `lib/platform` is server-only, which plain `tsx` cannot load).
  await step("The sandbox cannot start", () =>
    role === "sandbox" ? startStandaloneSandbox() : connectEmbeddedSandbox(),
  );
  if (role !== "sandbox") await connectTargets(role);
  if (role === "console") {
    const { ensureAdminPassword } = await import("@/lib/auth/admin-password");
    await step("The administrator password cannot be set up", () => ensureAdminPassword(handle.db));
  }
  // Events accepted before a restart are delivered after it.
  if (role !== "import-worker") startSandboxWebhookWorker();
  if (role !== "sandbox") {
    // Import jobs, plans and rehearsals under way before a restart go on where they were.
    const { startImportJobs } = await import("@/lib/imports/jobs");
    await step("Import jobs cannot start", () => startImportJobs());
  }
  return handle;
}

/**
 * prepareServer, or the process ends: a supervisor restarts a process that exited, never one
 * that answers 500 forever. Exit code 1, one line naming the cause on stderr.
 */
export async function startServer(role: ServerRole): Promise<DatabaseHandle> {
  try {
    return await prepareServer(role);
  } catch (error) {
    return exitWith(error);
  }
}

/**
 * The configuration check alone, for an entry point that must build things from the
 * configuration before prepareServer runs (lib/console-server.ts): same message, same exit.
 */
export function checkConfigurationOrExit(): void {
  try {
    env();
  } catch (error) {
    exitWith(new StartupError("Invalid configuration", error));
  }
}

/**
 * Starts opening the database at once, for an entry point with other slow work to do before
 * prepareServer runs (lib/console-server.ts loads Next.js meanwhile); prepareServer awaits the
 * same handle. A failure ends the process as prepareServer would.
 */
export function openDatabaseEarly(): void {
  step("The database cannot be used", () => getDatabaseHandle()).catch(exitWith);
}

function exitWith(error: unknown): never {
  const message =
    error instanceof StartupError ? error.message : `Start-up failed: ${String(error)}`;
  console.error(`\nSwitchboard cannot start. ${message}\n`);
  if (!(error instanceof StartupError)) console.error(error);
  process.exit(1);
}

/** The console's start (instrumentation.ts, or a custom server before it listens). */
export async function startConsole(): Promise<void> {
  await startServer("console");
}

/**
 * Opens the standalone sandbox (`npm run sandbox`). It has no Settings page, so a token it
 * generates at first start is printed once, as the console prints a generated password.
 */
async function startStandaloneSandbox() {
  const db = await getSandboxApp().ready();
  const token = getSandboxApp().generatedToken();
  if (token) {
    const { SANDBOX_APP_ID } = env();
    console.log(
      boxed([
        `Switchboard sandbox: API token of application "${SANDBOX_APP_ID}" generated (shown only this once)`,
        "",
        `    ${token}`,
        "",
        "Send it as the Api-Token header. To choose your own, set SANDBOX_API_TOKEN and restart.",
      ]),
    );
  }
  return db;
}

/**
 * Opens the embedded sandbox (its tables and default application) and hands the platform
 * client its in-process transport: the one place where `lib/platform` meets `lib/sandbox`.
 */
export async function connectEmbeddedSandbox() {
  const db = await getSandboxApp().ready();
  const [{ connectEmbeddedPlatform }, { inProcessTransport }] = await Promise.all([
    import("@/lib/platform"),
    import("@/lib/platform/in-process"),
  ]);
  connectEmbeddedPlatform({
    fetch: inProcessTransport(getSandboxApp),
    defaultAppId: env().SANDBOX_APP_ID,
    application: async (appId) => {
      const app = await cachedApplication(await getSandboxApp().ready(), appId);
      return app && { id: app.id, name: app.name, apiToken: app.apiToken };
    },
  });
  return db;
}

/**
 * Lets the platform client find targets (lib/targets): the one an import job names, or the
 * one the request's administrator session chose. Only the console has sessions.
 */
async function connectTargets(role: ServerRole) {
  const [{ connectTargetResolver, defaultTarget }, { currentTarget, requireTarget }, jobs] =
    await Promise.all([
      import("@/lib/platform"),
      import("@/lib/targets"),
      import("@/lib/imports/jobs"),
    ]);
  const sessionChoice =
    role === "console"
      ? async () => {
          const { getAdminSession } = await import("@/lib/auth/session");
          try {
            return (await getAdminSession())?.targetId ?? null;
          } catch {
            // Outside a request (a background job that named no target): the default target.
            return null;
          }
        }
      : async () => null;
  connectTargetResolver(async (targetId) =>
    targetId === undefined ? currentTarget(await sessionChoice()) : requireTarget(targetId),
  );
  // Imports made before targets existed were made on the default target.
  await jobs.adoptJobsWithoutTarget((await defaultTarget()).id);
}
