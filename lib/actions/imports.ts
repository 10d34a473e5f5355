"use server";

import { z } from "zod";
import { getDb } from "@/lib/db/client";
import {
  appendRows,
  cancelVerification,
  controlJob,
  createJob,
  DEFAULT_SAMPLE,
  jobFromRowsNotDone,
  nudgeImportJobs,
  readJobTarget,
  requestFinalStage,
  requestPlan,
  requestVerification,
  startRehearsal,
} from "@/lib/imports/jobs";
import { jobOptionsSchema } from "@/lib/imports/job-options";
import { columnTransformsSchema } from "@/lib/imports/transforms";
import { getPlatformTarget } from "@/lib/platform";
import { defaultTargetKey } from "@/lib/targets";
import { importResources, MAX_CHUNK_ROWS, MAX_MESSAGE_IMPORT_ROWS } from "@/lib/imports/types";
import { explained } from "./import-refusals";
import { ActionError, adminAction } from "./safe-action";

const jobRef = z.object({ jobId: z.uuid({ error: "There is no such import." }) });

export const createImportJob = adminAction(
  z.object({
    resource: z
      .enum(importResources as [string, ...string[]])
      .transform((value) => value as (typeof importResources)[number]),
    fileName: z.string().trim().min(1, "The file needs a name.").max(255),
    columns: z.array(z.string().max(1000)).min(1, "The file has no columns.").max(500),
    mapping: z.record(z.string(), z.string().max(200)),
    transforms: columnTransformsSchema.default({}),
    totalRows: z
      .number()
      .int()
      .min(1, "The file has no data rows to import.")
      // The kind's own limit is checked when the job is made (`importLimits`).
      .max(
        MAX_MESSAGE_IMPORT_ROWS,
        `One import takes at most ${MAX_MESSAGE_IMPORT_ROWS.toLocaleString("en")} rows; split the file.`,
      ),
    /** The row a spreadsheet shows for the first data row (header row included). */
    firstRow: z.number().int().min(1).max(1_000_000).default(2),
    options: jobOptionsSchema.default({}),
  }),
  async (input) =>
    explained(async () => {
      // The job keeps the target it is made on, whatever the console works on later.
      const { id: targetId } = await getPlatformTarget();
      return { jobId: (await createJob(await getDb(), { ...input, targetId })).id };
    }),
);

export const appendImportRows = adminAction(
  jobRef.extend({
    rows: z
      .array(
        z.object({
          index: z.number().int().min(0),
          values: z.array(z.string()),
          excluded: z.boolean().optional(),
        }),
      )
      .max(
        MAX_CHUNK_ROWS,
        `A chunk holds at most ${MAX_CHUNK_ROWS.toLocaleString("en")} rows; send smaller chunks.`,
      ),
  }),
  async ({ jobId, rows }) => explained(async () => appendRows(await getDb(), jobId, rows)),
);

/**
 * Nothing is planned, rehearsed or sent for a job whose target was removed since it was made:
 * refused here in the target's words (a TargetError), rather than failing in the worker.
 */
async function requireJobTarget(jobId: string): Promise<void> {
  const targetId = await readJobTarget(jobId);
  if (targetId !== undefined) await getPlatformTarget(targetId ?? defaultTargetKey);
}

/**
 * Asks for the plan (the dry run against the platform) once every row is in. A worker makes
 * it in the background; the job page shows how far it has got.
 */
const askForPlan = ({ jobId }: { jobId: string }) =>
  explained(async () => {
    await requireJobTarget(jobId);
    await requestPlan(await getDb(), jobId);
    nudgeImportJobs();
    return { jobId };
  });

/** All rows are in: the plan is asked for at once. */
export const finishImportUpload = adminAction(jobRef, askForPlan);
/** "Plan again", or after a plan that could not be made. */
export const planImportJob = adminAction(jobRef, askForPlan);

export const rehearseImportJob = adminAction(jobRef, async ({ jobId }) =>
  explained(async () => {
    await requireJobTarget(jobId);
    await startRehearsal(await getDb(), jobId);
    nudgeImportJobs();
    return { jobId };
  }),
);

export const controlImportJob = adminAction(
  jobRef.extend({ command: z.enum(["run", "pause", "resume", "cancel"]) }),
  async ({ jobId, command }) =>
    explained(async () => {
      if (command === "run" || command === "resume") await requireJobTarget(jobId);
      const job = await controlJob(await getDb(), jobId, command);
      nudgeImportJobs();
      return { jobId, status: job.status };
    }),
);

/** A cancelled or finished job's rows that did not reach their final state, as a new job (planned at once). */
export const newJobFromRowsNotDone = adminAction(jobRef, async ({ jobId }) =>
  explained(async () => {
    const job = await jobFromRowsNotDone(await getDb(), jobId);
    nudgeImportJobs();
    return { jobId: job.id };
  }),
);

/**
 * The last stage of the migration to the current target: the deferred deactivations and
 * freezes, once every import into it is over. `targetId`: the target the page showed and its
 * confirmation named; refused if the console works on another one since (another tab).
 */
export const finishMigration = adminAction(
  z.object({ targetId: z.string().max(300) }),
  async (input) =>
    explained(async () => {
      const target = await getPlatformTarget();
      if (input.targetId !== target.id)
        throw new ActionError(
          `The console now works on ${target.name} (chosen in another tab or window), not on the target this page showed. Nothing was started: reload the page.`,
        );
      const stage = await requestFinalStage(await getDb(), target.id);
      nudgeImportJobs();
      return { state: stage.state };
    }),
);

/**
 * Verify: compares what the target (or the rehearsal's scratch application) holds with what the
 * import holds, in the background, reading only. A remote platform is sampled
 * (`DEFAULT_SAMPLE` messages per channel) under its read limit; the sandbox is read whole.
 */
export const verifyImportJob = adminAction(
  jobRef.extend({ scope: z.enum(["run", "rehearsal"]) }),
  async ({ jobId, scope }) =>
    explained(async () => {
      // The job's own target, whatever the console works on now.
      const targetId = await readJobTarget(jobId);
      const remote =
        scope === "run" &&
        targetId !== undefined &&
        (await getPlatformTarget(targetId ?? defaultTargetKey)).kind === "remote";
      await requestVerification(await getDb(), jobId, scope, {
        sample: remote ? DEFAULT_SAMPLE : null,
      });
      nudgeImportJobs();
      return { jobId };
    }),
);

/** Stops the running Verify of the job; what it found so far is kept. */
export const cancelImportVerification = adminAction(jobRef, async ({ jobId }) =>
  explained(async () => {
    await cancelVerification(await getDb(), jobId);
    return { jobId };
  }),
);
