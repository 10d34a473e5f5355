import { failureSentence, unwrap, type ActionResult } from "@/lib/actions/action-result";
import type { ColumnMapping } from "@/lib/imports/fields";
import type { ColumnTransforms } from "@/lib/imports/transforms";
import type { PreviewClient } from "@/lib/imports/parse/preview-client";
import type { UploadRow } from "@/lib/imports/parse/protocol";
import type { ImportResource, JobOptions } from "@/lib/imports/types";

/** The server actions the upload calls (lib/actions/imports.ts), passed in by the page. */
export type ImportUploadActions = {
  createImportJob: (input: {
    resource: ImportResource;
    fileName: string;
    columns: string[];
    mapping: ColumnMapping;
    transforms: ColumnTransforms;
    totalRows: number;
    firstRow: number;
    /** The choices beyond the mapping; none when absent. */
    options?: JobOptions;
  }) => Promise<ActionResult<{ jobId: string }>>;
  appendImportRows: (input: {
    jobId: string;
    rows: UploadRow[];
  }) => Promise<ActionResult<{ received: number }>>;
  finishImportUpload: (input: { jobId: string }) => Promise<ActionResult<{ jobId: string }>>;
};

/** Where an upload stands, so that a failed one resumes instead of starting over. */
export type UploadState = { jobId: string | null; sent: number; total: number };

export const UPLOAD_CHUNK_ROWS = 2000;
// Bytes of UTF-8, well under the 1 MB the server takes per chunk (MAX_CHUNK_BYTES), counting JSON quoting.
export const UPLOAD_CHUNK_BYTES = 600_000;

export class UploadFailed extends Error {
  constructor(
    message: string,
    readonly state: UploadState,
  ) {
    super(message);
  }
}

/**
 * Sends every row in chunks and finishes the upload. The server keys rows by index, so
 * sending a chunk again after a failure cannot duplicate a row.
 */
export async function uploadRows(
  client: Pick<PreviewClient, "request">,
  actions: ImportUploadActions,
  job: {
    resource: ImportResource;
    fileName: string;
    columns: string[];
    mapping: ColumnMapping;
    transforms: ColumnTransforms;
    firstRow: number;
    options?: JobOptions;
  },
  state: UploadState,
  onProgress: (state: UploadState) => void,
): Promise<string> {
  let current = { ...state };
  // Each call's refusal (or lost connection) stops the upload where it stands, to resume from.
  const step = <T>(call: Promise<ActionResult<T>>) =>
    unwrap(call).catch((error: unknown) => {
      throw new UploadFailed(failureSentence(error), current);
    });
  if (current.jobId === null) {
    const created = await step(actions.createImportJob({ ...job, totalRows: current.total }));
    current = { ...current, jobId: created.jobId };
    onProgress(current);
  }
  const jobId = current.jobId!;
  while (current.sent < current.total) {
    const { rows } = await client.request({
      type: "upload-rows",
      start: current.sent,
      size: UPLOAD_CHUNK_ROWS,
      maxBytes: UPLOAD_CHUNK_BYTES,
    });
    if (rows.length === 0) break;
    await step(actions.appendImportRows({ jobId, rows }));
    // Counted in rows, not indexes: blank lines have an index but are never sent.
    current = { ...current, sent: current.sent + rows.length };
    onProgress(current);
  }
  return (await step(actions.finishImportUpload({ jobId }))).jobId;
}
