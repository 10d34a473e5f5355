import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, expect } from "vitest";
import { openDatabase, type DatabaseHandle } from "@/lib/db/client";
import type { ImportFile } from "@/tests/fixtures/imports";
import { finalStage, requestFinalStage } from "@/lib/imports/jobs/finish/steps";
import { controlJob } from "@/lib/imports/jobs/run/control";
import { requestPlan } from "@/lib/imports/jobs/plan/plan";
import { startRehearsal } from "@/lib/imports/jobs/rehearse/rehearsal";
import { startPlanner } from "@/lib/imports/jobs/worker/planner";
import { startImportRunner, type RunnerOptions } from "@/lib/imports/jobs/worker/runner";
import { requireJob, rowCounts, type ImportJob } from "@/lib/imports/jobs/store/jobs";
import { startVerifier } from "@/lib/imports/jobs/verify/verifier";
import { findVerification, requestVerification } from "@/lib/imports/jobs/verify/verify";
import { appendRows, createJob } from "@/lib/imports/jobs/store/upload";
import type { ImportResource, JobOptions, Rehearsal } from "@/lib/imports/types";
import type { PreviewSession } from "@/lib/imports/parse/preview-session";
import { createPlatformClient, type PlatformClientOptions } from "@/lib/platform/client";
import { copyPgliteTemplate } from "../support/pglite-template";
import { waitFor } from "../support/wait";
import { call } from "./support/http";

/** A fresh job database for the surrounding describe block: opened before its tests, closed after. */
export function useJobDatabase(): { readonly handle: DatabaseHandle } {
  const holder = {} as { handle: DatabaseHandle };
  beforeAll(async () => {
    holder.handle = await openJobDatabase();
  });
  afterAll(async () => {
    await holder.handle?.close();
  });
  return holder;
}

/** A fresh PGlite database of the job tables for one test file (a copy of the migrated template). */
export async function openJobDatabase(): Promise<DatabaseHandle & { dataDir: string }> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "switchboard-imports-"));
  await copyPgliteTemplate(path.join(dataDir, "pglite"));
  const handle = await openDatabase({ dataDir: path.join(dataDir, "pglite") });
  return { ...handle, dataDir };
}

export type Target = { baseUrl: string; token: string; appId: string };

export function clientFor(target: Target, options: Partial<PlatformClientOptions> = {}) {
  return createPlatformClient({
    appId: target.appId,
    chatBaseUrl: target.baseUrl,
    callsBaseUrl: target.baseUrl,
    apiToken: target.token,
    ...options,
  });
}

/**
 * Uploads a file in chunks as the wizard does, without asking for a plan. `totalRows`
 * (default: the file's rows) larger than the file leaves rows missing, as a cut-off upload would.
 */
export async function uploadJob(
  handle: DatabaseHandle,
  resource: ImportResource,
  file: ImportFile,
  mapping: Record<string, string>,
  options: {
    excluded?: number[];
    chunkRows?: number;
    totalRows?: number;
    jobOptions?: JobOptions;
    /** The target the job is made on (absent: none, the default one). */
    targetId?: string;
  } = {},
): Promise<ImportJob> {
  const { db } = handle;
  const totalRows = options.totalRows ?? file.rows.length;
  const job = await createJob(db, {
    resource,
    fileName: `${resource}.csv`,
    columns: file.columns,
    mapping,
    totalRows,
    options: options.jobOptions,
    targetId: options.targetId,
  });
  const chunkRows = options.chunkRows ?? 2000;
  for (let start = 0; start < file.rows.length; start += chunkRows) {
    const rows = file.rows.slice(start, start + chunkRows).map((values, i) => ({
      index: start + i,
      values,
      excluded: options.excluded?.includes(start + i) || undefined,
    }));
    await appendRows(db, job.id, rows);
  }
  return job;
}

/**
 * Uploads the rows a wizard's preview holds (its header, fixes and exclusions) as the wizard
 * does, and asks for the plan.
 */
export async function uploadPreview(
  handle: DatabaseHandle,
  preview: PreviewSession,
  job: {
    resource: ImportResource;
    fileName: string;
    columns: string[];
    mapping: Record<string, string>;
    firstRow?: number;
  },
): Promise<ImportJob> {
  const { db } = handle;
  const created = await createJob(db, { ...job, totalRows: preview.counts().rows });
  await appendRows(db, created.id, preview.uploadRows(0, 100));
  return requestPlan(db, created.id);
}

/** Uploads a file in chunks as the wizard does, asks for the plan and waits for a planner to make it. */
export async function createPlannedJob(
  handle: DatabaseHandle,
  target: Target,
  resource: ImportResource,
  file: ImportFile,
  mapping: Record<string, string>,
  options: {
    excluded?: number[];
    chunkRows?: number;
    clientTimeoutMs?: number;
    jobOptions?: JobOptions;
    targetId?: string;
  } = {},
): Promise<ImportJob> {
  const job = await uploadJob(handle, resource, file, mapping, options);
  await requestPlan(handle.db, job.id);
  return waitForPlan(handle, target, job.id, options);
}

/** Reads the job every `pollMs` until `done` holds, and returns it; fails with `still(job)` after `timeoutMs`. */
export async function waitForJob(
  db: DatabaseHandle["db"],
  jobId: string,
  done: (job: ImportJob) => boolean,
  { timeoutMs = 60_000, pollMs = 50, still = (job: ImportJob) => `job still ${job.status}` } = {},
): Promise<ImportJob> {
  return waitFor(() => requireJob(db, jobId), done, {
    deadline: Date.now() + timeoutMs,
    intervalMs: pollMs,
    failure: still,
  });
}

/** Rows the job is done with: created, found existing, or failed. */
export async function rowsDone(db: DatabaseHandle["db"], jobId: string): Promise<number> {
  const counts = await rowCounts(db, jobId);
  return counts.created + counts.existed + counts.failed;
}

/** A planner of the test's own (plans and rehearsals), polling often. */
export function startTestPlanner(
  handle: DatabaseHandle,
  target: Target,
  options: {
    workerId?: string;
    clientTimeoutMs?: number;
    log?: (line: string) => void;
    fetch?: PlatformClientOptions["fetch"];
  } = {},
) {
  return startPlanner({
    getDb: async () => handle.db,
    createClient: async () =>
      clientFor(target, {
        timeoutMs: options.clientTimeoutMs ?? 10_000,
        rateLimitRetries: 3,
        fetch: options.fetch,
      }),
    workerId: options.workerId ?? "test-planner",
    pollMs: 20,
    log: options.log ?? (() => {}),
  });
}

/** Runs a planner of the test's own until the job is no longer `planning`; a failed plan throws its reason. */
export async function waitForPlan(
  handle: DatabaseHandle,
  target: Target,
  jobId: string,
  options: { clientTimeoutMs?: number; timeoutMs?: number } = {},
): Promise<ImportJob> {
  const planner = startTestPlanner(handle, target, { clientTimeoutMs: options.clientTimeoutMs });
  try {
    const job = await waitForJob(handle.db, jobId, (job) => job.status !== "planning", {
      timeoutMs: options.timeoutMs,
      still: () => "the plan is still being made",
    });
    if (job.status === "draft" && job.error) throw new Error(job.error);
    return job;
  } finally {
    await planner.stop();
  }
}

/** Runs a job with a runner of the test's own until it completes. */
export async function runJob(
  handle: DatabaseHandle,
  target: Target,
  jobId: string,
  options: Partial<RunnerOptions> & { timeoutMs?: number; clientTimeoutMs?: number } = {},
) {
  const { db } = handle;
  await controlJob(db, jobId, "run");
  const runner = startImportRunner({
    getDb: async () => db,
    createClient: async (hooks) =>
      clientFor(target, { ...hooks, timeoutMs: options.clientTimeoutMs ?? 10_000 }),
    pollMs: 100,
    log: () => {},
    ...options,
  });
  try {
    const started = Date.now();
    const job = await waitForJob(
      db,
      jobId,
      (job) => job.status === "completed" || job.status === "cancelled",
      {
        timeoutMs: options.timeoutMs,
        pollMs: 100,
      },
    );
    return { job, runner, seconds: (Date.now() - started) / 1000 };
  } finally {
    await runner.stop();
  }
}

/**
 * Asks for the migration's last stage (deferred deactivations and freezes) and runs a runner of
 * the test's own until nothing of it is pending; returns the stage as it then stands.
 */
export async function finishMigration(handle: DatabaseHandle, target: Target) {
  const { db } = handle;
  await requestFinalStage(db, null);
  const runner = startImportRunner({
    getDb: async () => db,
    createClient: async (hooks) => clientFor(target, { ...hooks, timeoutMs: 10_000 }),
    pollMs: 50,
    log: () => {},
  });
  try {
    return await waitFor(
      () => finalStage(db, null),
      (stage) => stage.state !== "in progress",
      { deadline: Date.now() + 30_000, intervalMs: 100, failure: () => "still finishing" },
    );
  } finally {
    await runner.stop();
  }
}

type Listed = {
  messages: Array<{
    type: string;
    created_at: number;
    message: string;
    user?: { user_id: string };
    file?: { url: string };
  }>;
};

/** Every message of a channel, oldest first, as the platform lists them. */
export async function channelHistory(
  target: Target,
  kind: "open_channels" | "group_channels",
  channelUrl: string,
  options: { replies?: boolean } = {},
) {
  const replies = options.replies ? "&include_reply_type=ALL" : "";
  const messages: Listed["messages"] = [];
  let ts = 0;
  for (;;) {
    const page = await call<Listed>(
      target,
      "GET",
      `/v3/${kind}/${channelUrl}/messages?message_ts=${ts}&prev_limit=0&next_limit=200&include=${messages.length === 0}${replies}`,
    );
    expect(page.status).toBe(200);
    messages.push(...page.body.messages);
    if (page.body.messages.length < 200) return messages;
    ts = page.body.messages[page.body.messages.length - 1]!.created_at;
  }
}

/**
 * Verifies a job's run (or rehearsal) with a verifier of the test's own, claimed as in
 * production, and returns the finished verification (its counts; findings are in the table).
 */
export async function verifyJob(
  handle: DatabaseHandle,
  target: Target,
  jobId: string,
  scope: "run" | "rehearsal" = "run",
) {
  const requested = await requestVerification(handle.db, jobId, scope, { sample: null });
  const verifier = startVerifier({
    getDb: async () => handle.db,
    createClient: async (hooks) => clientFor(target, hooks),
    workerId: "test-verifier",
    pollMs: 20,
    log: () => {},
  });
  try {
    return await waitFor(
      async () => (await findVerification(handle.db, requested.id))!,
      (verification) => verification.state !== "running",
      { deadline: Date.now() + 60_000, intervalMs: 50, failure: () => "Verify still running" },
    );
  } finally {
    await verifier.stop();
  }
}

/** Rehearses a planned job with a planner of the test's own, and returns its outcome. */
export async function rehearseJob(
  handle: DatabaseHandle,
  target: Target,
  jobId: string,
  { timeoutMs = 240_000 } = {},
): Promise<Rehearsal> {
  await startRehearsal(handle.db, jobId);
  const planner = startTestPlanner(handle, target);
  try {
    const job = await waitForJob(
      handle.db,
      jobId,
      (one) => (one.rehearsal as Rehearsal | null)?.state !== "running",
      { timeoutMs, still: () => "the rehearsal is still running" },
    );
    return job.rehearsal as Rehearsal;
  } finally {
    await planner.stop();
  }
}
