/**
 * `npm run worker`: an extra process that works import jobs beside the console. On
 * PostgreSQL (DATABASE_URL) any number of workers and consoles share the jobs: rows are
 * claimed with FOR UPDATE SKIP LOCKED, so none is sent twice. With embedded PGlite the
 * database belongs to one process, so run the worker only instead of the console.
 *
 * IMPORT_WORKER_EXIT_WHEN_IDLE=1 exits once no job is running (scripts, tests).
 */
import { inArray } from "drizzle-orm";
import { closeDatabase } from "@/lib/db/client";
import { env } from "@/lib/env";
import { importJobs } from "@/lib/db/schema";
import { startServer } from "@/lib/startup";
import { stopImportJobs } from "./process-runner";
import { rowCounts } from "../store/jobs";

// Configuration, database, the sandbox's default application (in case this worker's target is
// the embedded sandbox) and the import jobs, or exit 1 naming the cause.
const handle = await startServer("import-worker");
console.log(`Import worker started (${handle.kind} at ${handle.location})`);

let stopping = false;
async function shutdown(code: number) {
  if (stopping) return;
  stopping = true;
  clearInterval(progress);
  await stopImportJobs();
  await closeDatabase();
  process.exit(code);
}
process.on("SIGINT", () => void shutdown(0));
process.on("SIGTERM", () => void shutdown(0));

let idleChecks = 0;
const progress = setInterval(() => {
  void (async () => {
    const active = await handle.db
      .select({ id: importJobs.id, status: importJobs.status })
      .from(importJobs)
      .where(inArray(importJobs.status, ["running", "cancelling"]));
    for (const job of active) {
      const counts = await rowCounts(handle.db, job.id);
      const done = counts.total - counts.pending;
      console.log(
        `job ${job.id} ${job.status}: ${done}/${counts.total} rows done, ${counts.failed} failed`,
      );
    }
    idleChecks = active.length === 0 ? idleChecks + 1 : 0;
    if (env().IMPORT_WORKER_EXIT_WHEN_IDLE && idleChecks >= 2) await shutdown(0);
  })().catch((error: unknown) => console.error("[imports] progress check failed:", error));
}, 1000);
