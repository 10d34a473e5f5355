import "server-only";
import { and, asc, desc, eq, gt, inArray } from "drizzle-orm";
import type { Database } from "@/lib/db/client";
import { importVerificationFindings, importVerifications } from "@/lib/db/schema";
import type { VerificationCounts, VerificationScope, VerificationState } from "@/lib/imports/types";
import { csvLine } from "../report/csv";
import { requireJob } from "../store/jobs";
import { latestVerifications, parsedVerification, type Verification } from "./verify";

/** A Verify as the job page shows it. */
export type VerificationSummary = {
  id: string;
  scope: VerificationScope;
  state: VerificationState;
  /** null: every message; else messages compared per channel. */
  sample: number | null;
  total: number;
  done: number;
  counts: VerificationCounts;
  error: string | null;
  createdAt: string;
  finishedAt: string | null;
};

/** One line of the report: a finding, with the file's row number (none for an extra). */
export type VerificationFindingRow = {
  id: number;
  kind: "missing" | "extra" | "different";
  rowNumber: number | null;
  key: string;
  field: string | null;
  reason: string;
};

export function summarize(verification: Verification): VerificationSummary {
  return {
    id: verification.id,
    scope: verification.scope,
    state: verification.state,
    sample: verification.sample,
    total: verification.total,
    done: verification.done,
    counts: verification.counts,
    error: verification.error,
    createdAt: verification.createdAt.toISOString(),
    finishedAt: verification.finishedAt?.toISOString() ?? null,
  };
}

/** The job's newest Verify of the run and of the rehearsal. */
export async function verificationSummaries(
  db: Database,
  jobId: string,
): Promise<Partial<Record<VerificationScope, VerificationSummary>>> {
  const latest = await latestVerifications(db, jobId);
  return Object.fromEntries(
    Object.entries(latest).map(([scope, verification]) => [scope, summarize(verification)]),
  );
}

/** A page of a Verify's findings of the job, in the order they were found. */
export async function findingsPage(
  db: Database,
  jobId: string,
  verificationId: string,
  options: { after: number; limit: number },
): Promise<{ findings: VerificationFindingRow[]; nextAfter: number | null }> {
  const job = await requireJob(db, jobId);
  const rows = await db
    .select({
      id: importVerificationFindings.id,
      kind: importVerificationFindings.kind,
      rowIndex: importVerificationFindings.rowIndex,
      key: importVerificationFindings.key,
      field: importVerificationFindings.field,
      reason: importVerificationFindings.reason,
    })
    .from(importVerificationFindings)
    .innerJoin(
      importVerifications,
      eq(importVerifications.id, importVerificationFindings.verificationId),
    )
    .where(
      and(
        eq(importVerificationFindings.verificationId, verificationId),
        eq(importVerifications.jobId, jobId),
        gt(importVerificationFindings.id, options.after),
      ),
    )
    .orderBy(asc(importVerificationFindings.id))
    .limit(options.limit);
  return {
    findings: rows.map(({ rowIndex, ...row }) => ({
      ...row,
      rowNumber: rowIndex === null ? null : rowIndex + job.firstRow,
    })),
    nextAfter: rows.length === options.limit ? rows.at(-1)!.id : null,
  };
}

/**
 * The report as CSV, streamed a page at a time: the counts first, then every finding with its
 * row and reason. Cells a spreadsheet would run are neutralised (`../report/csv.ts`).
 */
export async function* verificationCsv(
  db: Database,
  jobId: string,
  verificationId: string,
): AsyncGenerator<string> {
  const [row] = await db
    .select()
    .from(importVerifications)
    .where(and(eq(importVerifications.id, verificationId), eq(importVerifications.jobId, jobId)));
  if (!row) return;
  const verification = parsedVerification(row);
  yield csvLine(["outcome", "row", "key", "field", "reason"]);
  yield csvLine(["matched", "", "", "", `${verification.counts.matched} rows match the target.`]);
  let after = 0;
  for (;;) {
    const page = await findingsPage(db, jobId, verificationId, { after, limit: 1000 });
    let chunk = "";
    for (const finding of page.findings) {
      chunk += csvLine([
        finding.kind,
        finding.rowNumber === null ? "" : String(finding.rowNumber),
        finding.key,
        finding.field ?? "",
        finding.reason,
      ]);
    }
    if (chunk) yield chunk;
    if (page.nextAfter === null) return;
    after = page.nextAfter;
  }
}

/** Each job's newest finished Verify of its run, for the migration overview. */
export async function runVerificationsOf(
  db: Database,
  jobIds: string[],
): Promise<Map<string, VerificationSummary>> {
  const latest = new Map<string, VerificationSummary>();
  if (jobIds.length === 0) return latest;
  const rows = await db
    .select()
    .from(importVerifications)
    .where(
      and(
        inArray(importVerifications.jobId, jobIds),
        eq(importVerifications.scope, "run"),
        eq(importVerifications.state, "done"),
      ),
    )
    .orderBy(desc(importVerifications.finishedAt));
  for (const row of rows)
    if (!latest.has(row.jobId)) latest.set(row.jobId, summarize(parsedVerification(row)));
  return latest;
}
