import "server-only";
import { ensureAdminPassword } from "@/lib/auth/admin-password";
import { startImportJobs } from "@/lib/imports/jobs/process-runner";
import { getSandboxApp, startSandboxWebhookWorker } from "@/lib/sandbox";

/**
 * Runs once when the server starts (from instrumentation.ts): migrates the database, creates
 * the default sandbox application and, without ADMIN_PASSWORD, the administrator password;
 * then starts delivering the sandbox's webhook outbox.
 */
export async function startConsole(): Promise<void> {
  const db = await getSandboxApp().ready();
  await ensureAdminPassword(db);
  // Events accepted before a restart are delivered after it.
  startSandboxWebhookWorker();
  // Import jobs, plans and rehearsals under way before a restart go on where they were.
  await startImportJobs();
}
