import "server-only";
import { sql } from "drizzle-orm";
import type { Database } from "@/lib/db/client";
import { importJobs } from "@/lib/db/schema";
import {
  ImportJobError,
  liveClaims,
  rehearsalRunning,
  requireJob,
  transition,
  type ImportJob,
} from "../store/jobs";
import { dropScratchApplication } from "../rehearse/scratch-client";

export type JobCommand = "run" | "pause" | "resume" | "cancel";

/**
 * The administrator's buttons. Each moves the job only from the states where it makes
 * sense and otherwise says why not, changing nothing. Cancelling a running job lets the
 * requests in flight finish and be recorded; rows never sent stay `pending` in the report.
 */
export async function controlJob(
  db: Database,
  jobId: string,
  command: JobCommand,
): Promise<ImportJob> {
  switch (command) {
    case "run": {
      const job = await requireJob(db, jobId);
      if (rehearsalRunning(job)) {
        throw new ImportJobError(
          "A rehearsal of this import is running; run the import once it has finished.",
        );
      }
      const running = await transition(db, jobId, ["planned"], "running", {
        startedAt: new Date(),
      });
      // The rehearsal's scratch application has served: Verify reads the target from now on.
      await dropScratchApplication(db, job);
      return running;
    }
    case "pause":
      return transition(db, jobId, ["running"], "paused");
    case "resume":
      return transition(db, jobId, ["paused"], "running");
    case "cancel": {
      const job = await transition(
        db,
        jobId,
        ["draft", "planning", "planned", "paused", "running"],
        "cancelling",
      );
      // A rehearsal asked for and not yet run never will be.
      await db.execute(sql`
        update ${importJobs} set rehearsal = rehearsal || '{"state":"failed","error":"The import was cancelled."}'::jsonb
        where id = ${jobId} and rehearsal ->> 'state' = 'running'`);
      if ((await liveClaims(db, jobId)) === 0 && job.status === "cancelling") {
        return transition(db, jobId, ["cancelling"], "cancelled", { finishedAt: new Date() });
      }
      return job;
    }
  }
}
