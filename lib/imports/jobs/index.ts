/**
 * The import jobs, for `app/`, `proxy.ts`, `lib/actions`, `lib/startup.ts` and other features:
 * nothing outside lib/imports/jobs imports a module deeper than this one (ESLint's zones say
 * so; tests may still reach the parts they test). Inside, a folder per stage: `store/` (the
 * job, its rows, the upload), `plan/`, `rehearse/`, `run/` (sending rows and messages),
 * `report/`, `verify/` (what the target holds against what the import holds), and `worker/`
 * (the background loops that claim and work the jobs).
 */
import "server-only";

// The console's reads: each opens the database itself.
export * from "./reads";

// Upload, then the administrator's commands, as the server actions call them.
export { createJob, appendRows, type CreateJobInput, type UploadedRow } from "./store/upload";
export { ImportJobError, type ImportJob } from "./store/jobs";
export { requestPlan } from "./plan/plan";
export { startRehearsal } from "./rehearse/rehearsal";
export { controlJob, type JobCommand } from "./run/control";
export { jobFromRowsNotDone } from "./report/rows-not-done";
export { requestFinalStage, type FinalStage } from "./finish/steps";
export { cancelVerification, DEFAULT_SAMPLE, requestVerification } from "./verify/verify";

// What the job pages show.
export { jobOver, type JobProgress, type ReportRow, type RowRequests } from "./report/report";
export type { RehearsalPace } from "./rehearse/pace";
export type { MigrationStage, StageJob } from "./report/overview";
export { outcomeWords, type OutcomeCounts } from "./report/outcome-words";
export * from "./verify/reads";
export type { VerificationFindingRow, VerificationSummary } from "./verify/report";

// The jobs' workers in this process (the console's, or `npm run worker`'s).
export { nudgeImportJobs, startImportJobs, stopImportJobs } from "./worker/process-runner";
