import "server-only";
import { ensureAdminPassword } from "@/lib/auth/admin-password";
import { env } from "@/lib/env";
import { startImportJobs } from "@/lib/imports/jobs/process-runner";
import { connectEmbeddedPlatform } from "@/lib/platform";
import { inProcessTransport } from "@/lib/platform/in-process";
import { findApplication, getSandboxApp, startSandboxWebhookWorker } from "@/lib/sandbox";

/**
 * Runs once when the server starts (from instrumentation.ts): migrates the database, creates
 * the default sandbox application and, without ADMIN_PASSWORD, the administrator password;
 * then starts delivering the sandbox's webhook outbox.
 */
export async function startConsole(): Promise<void> {
  const db = await connectEmbeddedSandbox();
  await ensureAdminPassword(db);
  // Events accepted before a restart are delivered after it.
  startSandboxWebhookWorker();
  // Import jobs, plans and rehearsals under way before a restart go on where they were.
  await startImportJobs();
}

/**
 * Opens the embedded sandbox (its tables and default application) and hands the platform
 * client its in-process transport: the one place where `lib/platform` meets `lib/sandbox`.
 */
export async function connectEmbeddedSandbox() {
  const db = await getSandboxApp().ready();
  connectEmbeddedPlatform({
    fetch: inProcessTransport(getSandboxApp),
    defaultApplication: async () => {
      const appId = env().SANDBOX_APP_ID;
      const app = await findApplication(await getSandboxApp().ready(), appId);
      if (!app) throw new Error(`The sandbox's default application "${appId}" is missing.`);
      return { id: app.id, apiToken: app.apiToken };
    },
  });
  return db;
}
