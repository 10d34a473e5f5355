import "server-only";
import { randomBytes } from "node:crypto";
import { and, eq, inArray, ne, sql } from "drizzle-orm";
import type { Database } from "@/lib/db/client";
import { importJobs, importRows } from "@/lib/db/schema";
import type { Rehearsal } from "@/lib/imports/types";
import { isPlatformError, type PlatformClient } from "@/lib/platform";
import { createApplication, deleteApplication } from "@/lib/sandbox";
import { sendCreation, sendFollowUps, type Pacers } from "../run/send-row";
import { rehearseMessages } from "./message-rehearsal";
import { RehearsalProgressWriter } from "./progress";
import { scratchClient } from "./scratch-client";
import { Pacer } from "../run/pacer";
import { referencedUserIds } from "@/lib/imports/references";
import { StoppedEarly } from "../plan/plan";
import { chunk } from "../shared/rows";
import { platformRetries } from "@/lib/platform/retries";
import { sleep, withRetries } from "@/lib/retry";
import { forEachConcurrent } from "../shared/concurrency";
import {
  ImportJobError,
  parsedJob,
  pendingPages,
  rehearsalRunning,
  requireJob,
  rowCounts,
  type ImportJob,
} from "../store/jobs";

const MAX_LISTED_FAILURES = 100;
/** Creation tries per row; the last transient failure is final (`sendCreation` says so). */
const MAX_ATTEMPTS = 8;
const PAGE = 2_000;

/**
 * Asks for a rehearsal: the whole plan run against the embedded sandbox in a scratch
 * application created for it. The outcome is kept on the job, and the application with it
 * until a new rehearsal, a new plan or the run (`dropScratchApplication`), for Verify to read.
 * A worker runs it in the background (`../worker/planner.ts`); one cut short by a restart is run
 * again from the start. For channels the scratch application is first given the referenced
 * users that exist on the real target or that a users import of this console will create, so
 * members resolve as they will there.
 */
export async function startRehearsal(db: Database, jobId: string): Promise<ImportJob> {
  const job = await requireJob(db, jobId);
  if (job.status !== "planned")
    throw new ImportJobError("Only a planned import that has not started can be rehearsed.");
  // The last rehearsal's scratch application goes with it: the new one deletes it first.
  const rehearsal: Rehearsal = {
    state: "running",
    startedAt: new Date().toISOString(),
    ...(job.rehearsal?.appId ? { appId: job.rehearsal.appId } : {}),
  };
  const [updated] = await db
    .update(importJobs)
    .set({ rehearsal, claimedBy: null, claimedUntil: null })
    .where(
      and(
        eq(importJobs.id, jobId),
        eq(importJobs.status, "planned"),
        sql`coalesce(${importJobs.rehearsal} ->> 'state', '') <> 'running'`,
      ),
    )
    .returning();
  if (!updated) throw new ImportJobError("A rehearsal of this import is already running.");
  return parsedJob(updated);
}

/**
 * Runs a requested rehearsal to its end and records the outcome; a failure is recorded as
 * the outcome. `StoppedEarly` (from `shouldStop`) leaves it requested, for another worker.
 */
export async function runRehearsal(
  db: Database,
  target: PlatformClient,
  jobId: string,
  options: { shouldStop?: () => boolean } = {},
): Promise<void> {
  const job = await requireJob(db, jobId);
  if (!rehearsalRunning(job)) return;
  const requested = job.rehearsal!;
  // A scratch application left by an attempt that died with its worker.
  if (requested.appId) await deleteApplication(db, requested.appId);
  // Lands only while this attempt is the one asked for: a cancel (which fails the rehearsal)
  // or a new rehearsal is never overwritten by this one's outcome.
  const save = async (rehearsal: Rehearsal) =>
    (
      await db
        .update(importJobs)
        .set({ rehearsal })
        .where(
          and(
            eq(importJobs.id, jobId),
            sql`${importJobs.rehearsal} ->> 'state' = 'running'`,
            sql`${importJobs.rehearsal} ->> 'startedAt' = ${requested.startedAt}`,
          ),
        )
        .returning({ id: importJobs.id })
    ).length > 0;
  const base: Rehearsal = { state: "running", startedAt: requested.startedAt };
  try {
    const outcome = await rehearse(db, target, job, {
      onScratchApplication: (appId) => save({ ...base, appId }),
      shouldStop: options.shouldStop,
    });
    const saved = await save({
      ...base,
      ...outcome,
      state: "done",
      finishedAt: new Date().toISOString(),
    });
    // Cancelled as it ended: nobody will verify what it sent.
    if (!saved && outcome.appId) await deleteApplication(db, outcome.appId);
  } catch (error) {
    if (error instanceof StoppedEarly) throw error;
    const message = error instanceof Error ? error.message : String(error);
    await save({ ...base, state: "failed", finishedAt: new Date().toISOString(), error: message });
  }
}

async function rehearse(
  db: Database,
  target: PlatformClient,
  job: ImportJob,
  hooks: { onScratchApplication: (appId: string) => Promise<unknown>; shouldStop?: () => boolean },
): Promise<Omit<Rehearsal, "state" | "startedAt">> {
  const appId = `rehearsal-${job.id.slice(0, 8)}-${randomBytes(3).toString("hex")}`;
  // Recorded before it exists, so that whoever takes over after a crash can delete it.
  await hooks.onScratchApplication(appId);
  const app = await createApplication(db, { id: appId, name: `Rehearsal of ${job.fileName}` });
  if (!app) throw new Error("The scratch application could not be created.");
  const pacers: Pacers = { read: new Pacer(), write: new Pacer(), migration: new Pacer() };
  const scratch = scratchClient(db, { id: appId, apiToken: app.apiToken }, (info) =>
    (info.method === "GET" ? pacers.read : pacers.write).observe(info.status, info.rateLimit),
  );
  const progress = new RehearsalProgressWriter(db, job.id, appId);
  // Stops when the process does, or within a progress write of the rehearsal being cancelled.
  const shouldStop = () => (hooks.shouldStop?.() ?? false) || progress.superseded;
  // Kept once the rehearsal has its outcome, for Verify to read (`dropScratchApplication`).
  let kept = false;
  try {
    if (job.resource === "messages") {
      const outcome = await rehearseMessages(db, target, scratch, job, {
        pacers,
        maxListedFailures: MAX_LISTED_FAILURES,
        shouldStop,
        progress,
      });
      await progress.flush();
      kept = true;
      return { ...outcome, appId };
    }
    const seeding = job.resource === "users" ? {} : await seedMembers(db, target, scratch, job.id);
    progress.start((await rowCounts(db, job.id)).pending);
    const tally = {
      created: 0,
      existed: 0,
      failed: 0,
      followUpsFailed: 0,
      failures: [] as NonNullable<Rehearsal["failures"]>,
    };
    for await (const rows of pendingPages(db, job.id, PAGE)) {
      if (shouldStop()) throw new StoppedEarly();
      await forEachConcurrent(rows, 16, async (row) => {
        if (shouldStop()) throw new StoppedEarly();
        // Counted as the runner counts them, so the same policy ends the loop (free 429s included).
        const tries = { attempt: 1, rateLimitedTries: 0 };
        for (let sent = 0; ; sent++) {
          const outcome = await sendCreation(scratch, pacers, {
            resource: job.resource,
            key: row.resourceKey ?? "",
            body: row.body ?? {},
            earlierAttempts: sent,
            ...tries,
            maxAttempts: MAX_ATTEMPTS,
          });
          if (outcome.kind === "retry") {
            tries.attempt += 1 + (outcome.counts.attemptsDelta ?? 0);
            tries.rateLimitedTries += outcome.counts.rateLimitedTriesDelta ?? 0;
            await sleep(outcome.delayMs);
            continue;
          }
          progress.count(outcome.kind === "failed" ? "failed" : outcome.state);
          if (outcome.kind === "failed") {
            tally.failed++;
            if (tally.failures.length < MAX_LISTED_FAILURES) {
              tally.failures.push({
                rowIndex: row.rowIndex,
                code: outcome.code,
                message: outcome.message,
              });
            }
          } else {
            tally[outcome.state]++;
            if (outcome.state === "created" && row.followUpState === "pending") {
              const followUp = await sendFollowUps(
                scratch,
                pacers,
                job.resource,
                row.resourceKey ?? "",
                row.followUps,
                MAX_ATTEMPTS,
              );
              if (!followUp.ok) tally.followUpsFailed++;
            }
          }
          return;
        }
      });
    }
    tally.failures.sort((a, b) => a.rowIndex - b.rowIndex);
    await progress.flush();
    kept = true;
    return { ...tally, ...seeding, appId };
  } finally {
    progress.stop();
    if (!kept) await deleteApplication(db, appId);
  }
}

/**
 * Gives the scratch application the referenced users that exist on the real target. A user
 * that cannot be copied is a seeding failure, reported as such (its channels may then fail
 * in the rehearsal for want of the member, not because of the file).
 */
async function seedMembers(
  db: Database,
  target: PlatformClient,
  scratch: PlatformClient,
  jobId: string,
): Promise<Pick<Rehearsal, "seededUsers" | "seedFailed" | "seedFailures">> {
  const rows = await db
    .select({ body: importRows.body, followUps: importRows.followUps })
    .from(importRows)
    .where(and(eq(importRows.jobId, jobId), eq(importRows.state, "pending")));
  const ids = [...new Set(rows.flatMap((row) => referencedUserIds(row.body, row.followUps)))];
  let seededUsers = 0;
  let seedFailed = 0;
  const seedFailures: NonNullable<Rehearsal["seedFailures"]> = [];
  await forEachConcurrent(chunk(ids, 100), 4, async (userIds) => {
    const page = await withRetries(
      () => target.users.list({ userIds, limit: 100, activeMode: "all" }),
      platformRetries(),
    );
    const onTarget = new Set(page.users.map((user) => user.user_id));
    // A member the target does not have yet but a users import of this console will create
    // (the plan counts them as there): given as that import sends it, so the rehearsal of a
    // migration's channels finds the members its users import brings.
    const fromImports = await usersFromImports(
      db,
      userIds.filter((id) => !onTarget.has(id)),
    );
    for (const user of [...page.users, ...fromImports]) {
      try {
        await withRetries(
          () =>
            scratch.users.create({
              user_id: user.user_id,
              nickname: user.nickname,
              profile_url: user.profile_url,
            }),
          platformRetries(),
        );
        seededUsers++;
      } catch (error) {
        seedFailed++;
        if (seedFailures.length < MAX_LISTED_FAILURES) {
          seedFailures.push({
            userId: user.user_id,
            code: isPlatformError(error) ? error.code : null,
            message: error instanceof Error ? error.message : String(error),
          });
        }
      }
    }
  });
  return { seededUsers, seedFailed, seedFailures };
}

/** The users that users imports of this console (not cancelled) send, of `ids`. */
async function usersFromImports(
  db: Database,
  ids: readonly string[],
): Promise<Array<{ user_id: string; nickname: string; profile_url: string }>> {
  if (ids.length === 0) return [];
  const rows = await db
    .selectDistinctOn([importRows.resourceKey], {
      userId: importRows.resourceKey,
      nickname: sql<string | null>`${importRows.body} ->> 'nickname'`,
      profileUrl: sql<string | null>`${importRows.body} ->> 'profile_url'`,
    })
    .from(importRows)
    .innerJoin(importJobs, eq(importJobs.id, importRows.jobId))
    .where(
      and(
        eq(importJobs.resource, "users"),
        ne(importJobs.status, "cancelled"),
        inArray(importRows.state, ["pending", "created", "existed"]),
        inArray(importRows.resourceKey, [...ids]),
      ),
    );
  return rows.map((row) => ({
    user_id: row.userId!,
    nickname: row.nickname ?? row.userId!,
    profile_url: row.profileUrl ?? "",
  }));
}
