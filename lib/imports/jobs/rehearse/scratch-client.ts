import "server-only";
import { sql } from "drizzle-orm";
import type { Database } from "@/lib/db/client";
import { importJobs } from "@/lib/db/schema";
import { createPlatformClient, type PlatformClient, type ResponseInfo } from "@/lib/platform";
import { inProcessTransport } from "@/lib/platform/in-process";
import { sandboxApplicationUrl } from "@/lib/request-origin";
import {
  createSandboxApp,
  deleteApplication,
  parseFaults,
  sandboxConfigFromEnv,
} from "@/lib/sandbox";
import type { ImportJob } from "../store/jobs";

/**
 * A client of a scratch sandbox application on the job's database: the platform's rules,
 * without the faults or rate limit configured for the console's sandbox, which would only slow
 * a rehearsal (or the Verify of one) down.
 */
export function scratchClient(
  db: Database,
  app: { id: string; apiToken: string },
  onResponse: (info: ResponseInfo) => void,
): PlatformClient {
  const sandbox = createSandboxApp({
    getDb: async () => db,
    config: { ...sandboxConfigFromEnv(), rateLimit: null, faults: parseFaults(undefined) },
  });
  const baseUrl = sandboxApplicationUrl("http://sandbox.internal", app.id);
  return createPlatformClient({
    appId: app.id,
    chatBaseUrl: baseUrl,
    callsBaseUrl: baseUrl,
    apiToken: app.apiToken,
    rateLimitRetries: 0,
    timeoutMs: 10_000,
    onResponse,
    fetch: inProcessTransport(() => sandbox),
  });
}

/**
 * Deletes the scratch application a finished rehearsal kept for Verify to read (`import_jobs.rehearsal.appId`). Called when the
 * rehearsal stops describing the job: a new plan, or the run.
 */
export async function dropScratchApplication(db: Database, job: ImportJob): Promise<void> {
  const appId = job.rehearsal?.state === "running" ? undefined : job.rehearsal?.appId;
  if (!appId) return;
  await deleteApplication(db, appId);
  await db.execute(sql`
    update ${importJobs} set rehearsal = rehearsal - 'appId'
    where id = ${job.id} and rehearsal ->> 'appId' = ${appId}`);
}
