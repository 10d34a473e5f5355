import "server-only";
import type { Database } from "@/lib/db/client";
import { liveClaims, transition, type ImportJob } from "./store";

export type JobCommand = "run" | "pause" | "resume" | "cancel";

/**
 * The administrator's buttons. Each moves the job only from the states where it makes
 * sense and otherwise says why not, changing nothing. Cancelling a running job lets the
 * requests in flight finish and be recorded; rows never sent stay `pending` in the report.
 */
export async function controlJob(db: Database, jobId: string, command: JobCommand): Promise<ImportJob> {
  switch (command) {
    case "run":
      return transition(db, jobId, ["planned"], "running", { startedAt: new Date() });
    case "pause":
      return transition(db, jobId, ["running"], "paused");
    case "resume":
      return transition(db, jobId, ["paused"], "running");
    case "cancel": {
      const job = await transition(db, jobId, ["draft", "planning", "planned", "paused", "running"], "cancelling");
      if ((await liveClaims(db, jobId)) === 0 && job.status === "cancelling") {
        return transition(db, jobId, ["cancelling"], "cancelled", { finishedAt: new Date() });
      }
      return job;
    }
  }
}
