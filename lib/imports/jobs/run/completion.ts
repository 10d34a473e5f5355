import "server-only";
import { and, eq } from "drizzle-orm";
import type { Database } from "@/lib/db/client";
import { importJobs, importRows } from "@/lib/db/schema";
import { liveClaims, type ImportJob } from "../store/jobs";
import { channelsWithMessages } from "./message-channels";

/** How a run ends: completed once nothing is left to send, cancelled once nothing is in flight. */

/** A running job with no row and no follow-up left to send becomes `completed`. */
export async function completeIfDone(
  db: Database,
  job: ImportJob,
  log: (line: string) => void,
): Promise<void> {
  const jobId = job.id;
  if ((await rowsLeft(db, job)) || (await followUpsLeft(db, jobId))) return;
  const [done] = await db
    .update(importJobs)
    .set({ status: "completed", finishedAt: new Date() })
    .where(and(eq(importJobs.id, jobId), eq(importJobs.status, "running")))
    .returning({ id: importJobs.id });
  if (done) log(`job ${jobId} completed`);
}

/**
 * A job being cancelled becomes `cancelled` once no row is claimed and no created row waits
 * for its follow-ups (a created user the file marks inactive must not stay active).
 */
export async function finishCancelling(db: Database, jobId: string): Promise<void> {
  if ((await liveClaims(db, jobId)) === 0 && !(await followUpsLeft(db, jobId))) {
    await db
      .update(importJobs)
      .set({ status: "cancelled", finishedAt: new Date() })
      .where(and(eq(importJobs.id, jobId), eq(importJobs.status, "cancelling")));
  }
}

/** Replies, roots' ids, reactions or a newer export's edits the replies stage has still to handle. */
async function threadWorkLeft(db: Database, jobId: string): Promise<boolean> {
  for (const pending of [
    eq(importRows.threadState, "pending"),
    eq(importRows.editState, "pending"),
  ]) {
    const [left] = await db
      .select({ rowIndex: importRows.rowIndex })
      .from(importRows)
      .where(and(eq(importRows.jobId, jobId), pending))
      .limit(1);
    if (left) return true;
  }
  return false;
}

async function followUpsLeft(db: Database, jobId: string): Promise<boolean> {
  const [left] = await db
    .select({ rowIndex: importRows.rowIndex })
    .from(importRows)
    .where(
      and(
        eq(importRows.jobId, jobId),
        eq(importRows.state, "created"),
        eq(importRows.followUpState, "pending"),
      ),
    )
    .limit(1);
  return left !== undefined;
}

/** Rows still to send: a messages job's, per channel past its `sent_through` place. */
async function rowsLeft(db: Database, job: ImportJob): Promise<boolean> {
  if (job.resource === "messages")
    return (
      (await channelsWithMessages(db, job.id, { claimable: false })).length > 0 ||
      (await threadWorkLeft(db, job.id))
    );
  const [left] = await db
    .select({ rowIndex: importRows.rowIndex })
    .from(importRows)
    .where(and(eq(importRows.jobId, job.id), eq(importRows.state, "pending")))
    .limit(1);
  return left !== undefined;
}
