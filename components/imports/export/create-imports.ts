import { actionErrorMessage } from "@/lib/actions/action-result";
import {
  flowFileName,
  flowColumns,
  flowMapping,
  flowResources,
  type ExportChoices,
  type ExportForecast,
  type FlowResource,
} from "@/lib/imports/export-flow";
import type { ExportReaderClient } from "@/lib/imports/parse/export-client";
import type { RowsBatch } from "@/lib/imports/parse/export-protocol";
import {
  UPLOAD_CHUNK_BYTES,
  UPLOAD_CHUNK_ROWS,
  type ImportUploadActions,
} from "@/components/imports/wizard/upload-rows";

/**
 * "Create the imports" (issue 24, item 2(d)): the three jobs a users file, a group channels
 * file and a messages file would make, created with the forecast's row counts, filled with
 * the worker's chunks as it reads the export once more, and finished (which asks for their
 * plans). The same server actions as the flat-file wizard, so the jobs are the same.
 */

export type CreatedImports = Partial<Record<FlowResource, string>>;

export type CreateProgress = {
  jobs: CreatedImports;
  sent: Record<FlowResource, number>;
  total: Record<FlowResource, number>;
};

export class CreateFailed extends Error {
  constructor(
    message: string,
    /** The jobs made so far: the page links to them. */
    readonly jobs: CreatedImports,
  ) {
    super(message);
  }
}

/** Only imports with rows are made: an export with no DMs still has channels, but one with no messages has no messages import. */
export async function createImportsFromExport(
  reader: Pick<ExportReaderClient, "rows">,
  actions: ImportUploadActions,
  input: { exportName: string; choices: ExportChoices; forecast: ExportForecast },
  onProgress: (progress: CreateProgress) => void,
): Promise<Required<CreatedImports> | CreatedImports> {
  const { choices, forecast } = input;
  const progress: CreateProgress = {
    jobs: {},
    sent: { users: 0, group_channels: 0, messages: 0 },
    total: { ...forecast.rows },
  };
  const fail = (message: string): never => {
    throw new CreateFailed(message, { ...progress.jobs });
  };
  for (const resource of flowResources) {
    if (forecast.rows[resource] === 0) continue;
    const created = await actions.createImportJob({
      resource,
      fileName: flowFileName(input.exportName, resource),
      columns: [...flowColumns[resource]],
      mapping: flowMapping(resource),
      transforms: {},
      totalRows: forecast.rows[resource],
      firstRow: 1,
    });
    if (!("data" in created))
      fail(actionErrorMessage(created) ?? "The import could not be created.");
    else progress.jobs[resource] = created.data.jobId;
    onProgress({ ...progress });
  }

  let restart = true;
  for (;;) {
    const next: RowsBatch = await reader.rows(choices, {
      restart,
      maxRows: UPLOAD_CHUNK_ROWS,
      maxBytes: UPLOAD_CHUNK_BYTES,
    });
    restart = false;
    if (next.batch === null) {
      const made = next.forecast?.rows;
      for (const resource of flowResources)
        if (made && made[resource] !== forecast.rows[resource])
          fail(
            `The export changed since the forecast: it now makes ${made[resource]} rows of ${resource.replace("_", " ")}, not ${forecast.rows[resource]}. Drop it again.`,
          );
      break;
    }
    const { resource, rows } = next.batch;
    const jobId = progress.jobs[resource];
    if (!jobId) fail("The export changed since the forecast. Drop it again.");
    let appended;
    try {
      appended = await actions.appendImportRows({ jobId: jobId!, rows });
    } catch {
      fail("The connection to the console was lost while sending rows. Create the imports again.");
    }
    if (!appended || !("data" in appended))
      fail((appended && actionErrorMessage(appended)) ?? "Rows could not be sent.");
    progress.sent[resource] += rows.length;
    onProgress({ ...progress, sent: { ...progress.sent } });
  }

  // Finished in the platform's order, so each plan sees the imports before it.
  for (const resource of flowResources) {
    const jobId = progress.jobs[resource];
    if (!jobId) continue;
    const finished = await actions.finishImportUpload({ jobId });
    if (!("data" in finished))
      fail(actionErrorMessage(finished) ?? "The upload could not be finished.");
  }
  return progress.jobs;
}
