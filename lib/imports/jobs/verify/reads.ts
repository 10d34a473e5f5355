import "server-only";
import { getDb } from "@/lib/db/client";
import type { VerificationScope } from "@/lib/imports/types";
import { requireJob, type ImportJob } from "../store/jobs";
import {
  findingsPage,
  verificationCsv,
  verificationSummaries,
  type VerificationFindingRow,
  type VerificationSummary,
} from "./report";

/** What the job page reads of Verify: each opens the database itself, as `../reads.ts` does. */

/** The job's newest Verify of its run and of its rehearsal. */
export async function readVerifications(
  jobId: string,
): Promise<Partial<Record<VerificationScope, VerificationSummary>>> {
  return verificationSummaries(await getDb(), jobId);
}

/** A page of a Verify's findings. */
export async function readVerificationFindings(
  jobId: string,
  verificationId: string,
  options: { after: number; limit: number },
): Promise<{ findings: VerificationFindingRow[]; nextAfter: number | null }> {
  return findingsPage(await getDb(), jobId, verificationId, options);
}

/** The Verify report as CSV lines, with the job it belongs to (refused when there is none). */
export async function readVerificationCsv(
  jobId: string,
  verificationId: string,
): Promise<{ job: ImportJob; lines: AsyncGenerator<string> }> {
  const db = await getDb();
  const job = await requireJob(db, jobId);
  return { job, lines: verificationCsv(db, jobId, verificationId) };
}
