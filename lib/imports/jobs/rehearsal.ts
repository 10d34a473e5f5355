import "server-only";
import { randomBytes } from "node:crypto";
import { and, asc, eq, gt, sql } from "drizzle-orm";
import type { Database } from "@/lib/db/client";
import { importJobs, importRows } from "@/lib/db/schema";
import { createPlatformClient, type PlatformClient } from "@/lib/platform";
import { createApplication, deleteApplication, getSandboxApp } from "@/lib/sandbox";
import { sendCreation, sendFollowUps, type Pacers } from "./executor";
import { Pacer } from "./pacer";
import { chunk, referencedUserIds } from "./plan";
import { forEachConcurrent, withRetries } from "./retry";
import { ImportJobError, requireJob, type ImportJob } from "./store";

export type Rehearsal = {
  state: "running" | "done" | "failed";
  startedAt: string;
  finishedAt?: string;
  created?: number;
  existed?: number;
  failed?: number;
  followUpsFailed?: number;
  /** The first failures, with the platform's code and message. */
  failures?: Array<{ rowIndex: number; code: number | null; message: string }>;
  seededUsers?: number;
  error?: string;
};

const MAX_LISTED_FAILURES = 100;
const PAGE = 2_000;

/**
 * Runs the whole plan against the embedded sandbox in a scratch application created for
 * it and deleted afterwards (only the outcome is kept, on the job). For channels the
 * scratch application is first given the referenced users that exist on the real target,
 * so members resolve as they will there.
 */
export async function startRehearsal(db: Database, target: PlatformClient, jobId: string): Promise<ImportJob> {
  const job = await requireJob(db, jobId);
  if (job.status !== "planned") throw new ImportJobError("Only a planned import that has not started can be rehearsed.");
  const current = job.rehearsal as Rehearsal | null;
  if (current?.state === "running") throw new ImportJobError("A rehearsal of this import is already running.");
  const rehearsal: Rehearsal = { state: "running", startedAt: new Date().toISOString() };
  const [updated] = await db.update(importJobs).set({ rehearsal }).where(eq(importJobs.id, jobId)).returning();
  void rehearse(db, target, job)
    .then((outcome) => saveRehearsal(db, jobId, { ...rehearsal, ...outcome, state: "done", finishedAt: new Date().toISOString() }))
    .catch((error: unknown) =>
      saveRehearsal(db, jobId, {
        ...rehearsal,
        state: "failed",
        finishedAt: new Date().toISOString(),
        error: error instanceof Error ? error.message : String(error),
      }),
    );
  return updated!;
}

async function saveRehearsal(db: Database, jobId: string, rehearsal: Rehearsal) {
  await db.update(importJobs).set({ rehearsal }).where(eq(importJobs.id, jobId));
}

/** A rehearsal cut short by a restart never reports; say so instead of "running" forever. */
export async function markInterruptedRehearsals(db: Database): Promise<void> {
  await db.execute(sql`
    update import_jobs set rehearsal = rehearsal || '{"state":"failed","error":"Interrupted by a server restart. Rehearse again."}'::jsonb
    where rehearsal ->> 'state' = 'running'`);
}

export async function rehearse(db: Database, target: PlatformClient, job: ImportJob): Promise<Omit<Rehearsal, "state" | "startedAt">> {
  const appId = `rehearsal-${job.id.slice(0, 8)}-${randomBytes(3).toString("hex")}`;
  const app = await createApplication(db, { id: appId, name: `Rehearsal of ${job.fileName}` });
  if (!app) throw new Error("The scratch application could not be created.");
  const pacers: Pacers = { read: new Pacer(), write: new Pacer() };
  const baseUrl = `http://sandbox.internal/sandbox/${appId}`;
  const scratch = createPlatformClient({
    appId,
    chatBaseUrl: baseUrl,
    callsBaseUrl: baseUrl,
    apiToken: app.apiToken,
    rateLimitRetries: 0,
    timeoutMs: 10_000,
    onResponse: (info) => (info.method === "GET" ? pacers.read : pacers.write).observe(info.status, info.rateLimit),
    fetch: (input, init) => Promise.resolve(getSandboxApp().fetch(new Request(input, init))),
  });
  try {
    let seededUsers = 0;
    if (job.resource !== "users") seededUsers = await seedMembers(db, target, scratch, job.id);
    const tally = { created: 0, existed: 0, failed: 0, followUpsFailed: 0, failures: [] as NonNullable<Rehearsal["failures"]> };
    let after = -1;
    for (;;) {
      const rows = await db
        .select()
        .from(importRows)
        .where(and(eq(importRows.jobId, job.id), eq(importRows.state, "pending"), gt(importRows.rowIndex, after)))
        .orderBy(asc(importRows.rowIndex))
        .limit(PAGE);
      if (rows.length === 0) break;
      after = rows[rows.length - 1]!.rowIndex;
      await forEachConcurrent(rows, 16, async (row) => {
        for (let attempt = 1; ; attempt++) {
          const outcome = await sendCreation(scratch, pacers, {
            resource: job.resource,
            key: row.resourceKey ?? "",
            body: row.body ?? {},
            earlierAttempts: attempt - 1,
            attempt,
            maxAttempts: 8,
          });
          if (outcome.kind === "retry") {
            await new Promise((resolve) => setTimeout(resolve, outcome.delayMs));
            continue;
          }
          if (outcome.kind === "failed") {
            tally.failed++;
            if (tally.failures.length < MAX_LISTED_FAILURES) {
              tally.failures.push({ rowIndex: row.rowIndex, code: outcome.code, message: outcome.message });
            }
          } else {
            tally[outcome.state]++;
            if (outcome.state === "created" && row.followUpState === "pending") {
              const followUp = await sendFollowUps(scratch, pacers, job.resource, row.resourceKey ?? "", row.followUps, 8);
              if (!followUp.ok) tally.followUpsFailed++;
            }
          }
          return;
        }
      });
    }
    tally.failures.sort((a, b) => a.rowIndex - b.rowIndex);
    return { ...tally, seededUsers };
  } finally {
    await deleteApplication(db, appId);
  }
}

/** Gives the scratch application the referenced users that exist on the real target. */
async function seedMembers(db: Database, target: PlatformClient, scratch: PlatformClient, jobId: string): Promise<number> {
  const rows = await db
    .select({ body: importRows.body })
    .from(importRows)
    .where(and(eq(importRows.jobId, jobId), eq(importRows.state, "pending")));
  const ids = [...new Set(rows.flatMap((row) => referencedUserIds(row.body)))];
  let seeded = 0;
  await forEachConcurrent(chunk(ids, 100), 4, async (userIds) => {
    const page = await withRetries(() => target.users.list({ userIds, limit: 100 }));
    for (const user of page.users) {
      await withRetries(() =>
        scratch.users.create({ user_id: user.user_id, nickname: user.nickname, profile_url: user.profile_url }),
      ).catch(() => {});
      seeded++;
    }
  });
  return seeded;
}
