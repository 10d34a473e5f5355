import type { Dispatch } from "react";
import type { ColumnMapping } from "@/lib/imports/fields";
import { optionsFor } from "@/lib/imports/job-options";
import {
  mappingProblems,
  recallMapping,
  rememberMapping,
  suggestMapping,
} from "@/lib/imports/mapping";
import type { PreviewClient } from "@/lib/imports/parse/preview-client";
import { formatBytes } from "@/lib/imports/parse/sniff";
import type { ColumnTransforms } from "@/lib/imports/transforms";
import { importLimits, type ImportResource, type JobOptions } from "@/lib/imports/types";
import { UploadFailed, uploadRows, type ImportUploadActions } from "./upload-rows";
import { draftOptions, draftTransforms, savedFixes, type SavedDraft } from "./wizard-draft";
import type { Activity, WizardEvent, WizardState } from "./wizard-state";

/**
 * What the wizard asks of the preview worker, one command per thing the administrator does:
 * each sends its request, turns the answer into the reducer's event, refreshes the preview's
 * pages and, where the rows may name other channels or users now, looks those up again. Plain
 * functions over a worker, so that the unit tests can drive them with a fake one.
 */

/** The worker as the commands use it: requests in, answers out. */
export type PreviewWorker = Pick<PreviewClient, "request">;

export type PreviewCommandsDeps = {
  state: WizardState;
  dispatch: Dispatch<WizardEvent>;
  /** The running worker; null before the first file. */
  client: PreviewWorker | null;
  /** The running worker, started on first use. */
  startWorker: () => PreviewWorker;
  /** The preview's cached pages: dropped for a new file, refreshed after a change. */
  pages: { remove: () => void; refresh: (session: number) => Promise<void> };
  /** Keeps the chosen file (with the draft); null when the wizard starts over. */
  keepFile: (file: File | null) => void;
  /** Looks up what the rows name, beside whatever the administrator does next. */
  checkReferences: (worker?: PreviewWorker | null, resource?: ImportResource | null) => void;
  /** Where mappings are remembered per set of headers (the browser's localStorage). */
  storage: () => Storage;
};

export type PreviewCommands = ReturnType<typeof previewCommands>;

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : "Something went wrong.";
}

export function previewCommands({
  state,
  dispatch,
  client,
  startWorker,
  pages,
  keepFile,
  checkReferences,
  storage,
}: PreviewCommandsDeps) {
  const { resource, header, session } = state;

  async function run(
    activity: Exclude<Activity, "uploading" | "restoring">,
    work: () => Promise<void>,
  ) {
    dispatch({ type: "work-started", activity });
    try {
      await work();
    } catch (error) {
      dispatch({ type: "work-failed", problem: messageOf(error) });
    }
  }

  async function readFile(
    worker: PreviewWorker,
    file: File,
    kind: ImportResource,
    sheet: string | null,
  ) {
    pages.remove();
    const result = await worker.request({ type: "load", file, resource: kind, sheet });
    dispatch({ type: "file-loaded", loaded: result });
    return result;
  }

  async function chooseHeader(worker: PreviewWorker, row: number, kind: ImportResource) {
    // A row that cannot be the header still shows as chosen, beside the reason it cannot.
    dispatch({ type: "header-asked", headerRow: row });
    const choice = await worker.request({ type: "header", headerRow: row });
    const recalled = recallMapping(storage(), kind, choice.columns);
    const suggested =
      recalled ??
      suggestMapping(
        kind,
        choice.columns,
        choice.profiles.map((profile) => profile.sample),
      );
    dispatch({
      type: "header-chosen",
      headerRow: row,
      header: choice,
      mapping: suggested.mapping,
      transforms: suggested.transforms,
      remembered: recalled !== null,
    });
  }

  /** After a change to the rows: their pages are read again and, if asked, their names looked up. */
  async function changed(lookUp: boolean) {
    await pages.refresh(session);
    if (lookUp) checkReferences();
  }

  return {
    /**
     * A file chosen (or another sheet of it): read, with the header row the worker suggests.
     * A file too big to read at all is refused with the limit.
     */
    async openFile(file: File, sheet: string | null = null): Promise<void> {
      if (!resource) return;
      const summary = { name: file.name, size: file.size };
      const maxBytes = importLimits(resource).bytes;
      if (file.size > maxBytes) {
        dispatch({
          type: "file-refused",
          file: summary,
          problem: `The file is ${formatBytes(file.size)}; the console imports files of up to ${formatBytes(maxBytes)}. Split it and import the parts one after another.`,
        });
        return;
      }
      const worker = startWorker();
      keepFile(file);
      dispatch({ type: "file-chosen", file: summary, sheet });
      await run("reading", async () => {
        const result = await readFile(worker, file, resource, sheet);
        await chooseHeader(worker, result.suggestedHeaderRow, resource);
        dispatch({ type: "work-done" });
      });
    },

    async pickHeaderRow(row: number) {
      if (!resource) return;
      await run("reading", async () => {
        await chooseHeader(startWorker(), row, resource);
        dispatch({ type: "work-done" });
      });
    },

    async validate() {
      if (!client || !resource || !header) return;
      rememberMapping(storage(), resource, header.columns, state.mapping, state.transforms);
      await run("validating", async () => {
        const result = await client.request({
          type: "validate",
          mapping: state.mapping,
          transforms: state.transforms,
          options: state.options,
        });
        await pages.refresh(session);
        dispatch({ type: "validated", counts: result });
        checkReferences();
      });
    },

    async edit(index: number, column: number, value: string) {
      if (!client) return;
      await run("fixing", async () => {
        const result = await client.request({ type: "edit", index, column, value });
        dispatch({ type: "cell-fixed", counts: result.counts, edits: [[index, column, value]] });
        await changed(true);
      });
    },

    async exclude(index: number, excluded: boolean) {
      if (!client) return;
      await run("fixing", async () => {
        const result = await client.request({ type: "exclude", index, excluded });
        dispatch({ type: "rows-excluded", counts: result.counts, rows: [[index, excluded]] });
        // A row taken back may name something not looked up yet.
        await changed(!excluded);
      });
    },

    async excludeErrors() {
      if (!client) return;
      await run("fixing", async () => {
        const result = await client.request({ type: "exclude-errors" });
        dispatch({
          type: "rows-excluded",
          counts: result.counts,
          rows: result.rows.map((index) => [index, true]),
        });
        await changed(false);
      });
    },

    /** Find and replace in one column; resolves with the number of cells changed. */
    async replace(
      column: number,
      find: string,
      replacement: string,
      wholeCell: boolean,
    ): Promise<number> {
      if (!client) return 0;
      let count = 0;
      await run("fixing", async () => {
        const result = await client.request({
          type: "replace",
          column,
          find,
          replacement,
          wholeCell,
        });
        count = result.edits.length;
        dispatch({ type: "cell-fixed", counts: result.counts, edits: result.edits });
        await changed(true);
      });
      return count;
    },

    /** A new choice beyond the mapping: the preview checks the rows it changes again. */
    async chooseOptions(options: JobOptions) {
      if (!client) return;
      await run("fixing", async () => {
        const result = await client.request({ type: "options", options });
        dispatch({ type: "options-changed", options, counts: result });
        await changed(false);
      });
    },

    /**
     * Sends every row to the server (resuming a stopped upload); resolves with the job, or
     * null when the upload stopped, which the wizard then shows.
     */
    async send(actions: ImportUploadActions): Promise<string | null> {
      const { file, counts } = state;
      if (!client || !resource || !header || !file || !counts) return null;
      const start = state.upload ?? { jobId: null, sent: 0, total: counts.rows };
      dispatch({ type: "upload-progress", upload: start });
      try {
        return await uploadRows(
          client,
          actions,
          {
            resource,
            fileName: file.name,
            columns: header.columns,
            mapping: state.mapping,
            transforms: state.transforms,
            firstRow: header.firstRow,
            options: optionsFor(resource, state.options),
          },
          start,
          (upload) => dispatch({ type: "upload-progress", upload }),
        );
      } catch (error) {
        dispatch({
          type: "upload-failed",
          upload: error instanceof UploadFailed ? error.state : null,
          problem: error instanceof Error ? error.message : "The rows could not be sent.",
        });
        return null;
      }
    },

    /** Another file: nothing of this one is kept, the resource stays chosen. */
    restart() {
      keepFile(null);
      pages.remove();
      dispatch({ type: "restarted" });
    },

    /** A draft restored at the preview: the names in its rows are looked up, as after validating. */
    afterRestore(restored: Partial<WizardState>) {
      if (restored.step === "preview" && restored.resource)
        checkReferences(startWorker(), restored.resource);
    },

    /** The work of a saved draft, replayed on a fresh copy of its file: see `restoreWork`. */
    restore(draft: SavedDraft): Promise<Partial<WizardState>> {
      return restoreWork(startWorker(), draft, (worker, file, kind, sheet) =>
        readFile(worker, file, kind, sheet),
      );
    },
  };
}

/**
 * Reads a draft's file again with its sheet and header row; a draft left at the preview is
 * validated again and its fixes replayed, unless its mapping no longer fits the file (it then
 * opens at the mapping, where the problem shows).
 */
export async function restoreWork(
  worker: PreviewWorker,
  draft: SavedDraft,
  readFile: (
    worker: PreviewWorker,
    file: File,
    kind: ImportResource,
    sheet: string | null,
  ) => Promise<unknown>,
): Promise<Partial<WizardState>> {
  await readFile(worker, draft.file, draft.resource, draft.sheet);
  const choice = await worker.request({ type: "header", headerRow: draft.headerRow });
  const mapping: ColumnMapping = draft.mapping;
  const transforms: ColumnTransforms = draftTransforms(draft);
  const options = draftOptions(draft);
  const restored: Partial<WizardState> = {
    resource: draft.resource,
    headerRow: draft.headerRow,
    header: choice,
    mapping,
    transforms,
    options,
    step: draft.step === "preview" ? "map" : draft.step,
  };
  if (
    draft.step !== "preview" ||
    mappingProblems(draft.resource, choice.columns, mapping, transforms).length > 0
  )
    return restored;
  await worker.request({ type: "validate", mapping, transforms, options });
  const counts = await worker.request({ type: "apply-fixes", fixes: savedFixes(draft.fixes) });
  return { ...restored, step: "preview", counts, fixes: draft.fixes, filter: draft.filter };
}
