import type { ColumnMapping } from "@/lib/imports/fields";
import type { ColumnTransforms } from "@/lib/imports/transforms";
import type {
  HeaderChoice,
  LoadedFile,
  PreviewCounts,
  PreviewProgress,
  RowFilter,
} from "@/lib/imports/parse/protocol";
import type { ImportResource, JobOptions } from "@/lib/imports/types";
import type { UploadState } from "./upload-rows";

/**
 * The import wizard as one reducer: named steps, one activity at a time, and events that say
 * what happened. Everything the administrator has done to the file lives in `fixes`, so it can be
 * saved as a draft and replayed on a fresh copy of the file.
 */

export type WizardStep = "choose" | "upload" | "map" | "preview";

/** What the wizard is busy with; null when it waits for the administrator. */
export type Activity = "reading" | "validating" | "fixing" | "uploading" | "restoring";

/** Cell fixes keyed `index:column` and exclusions keyed by row index, as the worker applies them. */
export type Fixes = { edits: Record<string, string>; excluded: Record<string, boolean> };

export type WizardState = {
  step: WizardStep;
  resource: ImportResource | null;
  file: { name: string; size: number } | null;
  /** The sheet read from a workbook; null for text files (and for a workbook's first sheet before loading). */
  sheet: string | null;
  loaded: LoadedFile | null;
  headerRow: number;
  header: HeaderChoice | null;
  mapping: ColumnMapping;
  /** What is done to mapped columns' values before they are read. */
  transforms: ColumnTransforms;
  /** Whether the mapping came from a file with the same headers. */
  remembered: boolean;
  /** The administrator's choices beyond the mapping, sent with the job (unknown senders created). */
  options: JobOptions;
  counts: PreviewCounts | null;
  filter: RowFilter;
  fixes: Fixes;
  /** Bumped each time the worker holds a newly loaded file: preview pages of older files are never shown. */
  session: number;
  activity: Activity | null;
  progress: PreviewProgress | null;
  problem: string | null;
  upload: UploadState | null;
  uploadError: string | null;
  /** Set when the wizard was filled from a saved draft, for the "resumed" notice. */
  resumed: { savedAt: number } | null;
};

export const emptyFixes: Fixes = { edits: {}, excluded: {} };

export const initialWizardState: WizardState = {
  step: "choose",
  resource: null,
  file: null,
  sheet: null,
  loaded: null,
  headerRow: 0,
  header: null,
  mapping: {},
  transforms: {},
  remembered: false,
  options: {},
  counts: null,
  filter: "all",
  fixes: emptyFixes,
  session: 0,
  activity: null,
  progress: null,
  problem: null,
  upload: null,
  uploadError: null,
  resumed: null,
};

export type WizardEvent =
  | { type: "resource-chosen"; resource: ImportResource }
  | { type: "step-shown"; step: WizardStep }
  | { type: "file-chosen"; file: { name: string; size: number }; sheet: string | null }
  | { type: "file-refused"; file: { name: string; size: number }; problem: string }
  | { type: "file-loaded"; loaded: LoadedFile }
  /** Reading the file with this header row started: the choice shows it, even if reading fails. */
  | { type: "header-asked"; headerRow: number }
  | {
      type: "header-chosen";
      headerRow: number;
      header: HeaderChoice;
      mapping: ColumnMapping;
      transforms: ColumnTransforms;
      remembered: boolean;
    }
  | { type: "mapping-changed"; mapping: ColumnMapping; transforms: ColumnTransforms }
  | { type: "work-started"; activity: Activity }
  | { type: "progress"; progress: PreviewProgress }
  | { type: "work-done" }
  | { type: "work-failed"; problem: string }
  | { type: "validated"; counts: PreviewCounts }
  | { type: "cell-fixed"; counts: PreviewCounts; edits: Array<[number, number, string]> }
  | { type: "rows-excluded"; counts: PreviewCounts; rows: Array<[number, boolean]> }
  | { type: "references-checked"; counts: PreviewCounts }
  /** The preview checked the rows again with the new options. */
  | { type: "options-changed"; options: JobOptions; counts: PreviewCounts }
  | { type: "filter-changed"; filter: RowFilter }
  | { type: "upload-progress"; upload: UploadState }
  | { type: "upload-failed"; upload: UploadState | null; problem: string }
  | { type: "draft-restored"; state: Partial<WizardState>; savedAt: number }
  | { type: "restarted" };

export function editKey(index: number, column: number): string {
  return `${index}:${column}`;
}

export function wizardReducer(state: WizardState, event: WizardEvent): WizardState {
  switch (event.type) {
    case "resource-chosen":
      return { ...state, resource: event.resource };
    case "step-shown":
      return { ...state, step: event.step, problem: null, resumed: null };
    case "file-chosen":
      // A new file: nothing of the previous one (header, mapping, fixes, counts) applies any more.
      return {
        ...state,
        file: event.file,
        sheet: event.sheet,
        loaded: null,
        header: null,
        counts: null,
        fixes: emptyFixes,
        upload: null,
        uploadError: null,
        problem: null,
        resumed: null,
      };
    case "file-refused":
      return {
        ...state,
        file: event.file,
        loaded: null,
        header: null,
        counts: null,
        problem: event.problem,
      };
    case "file-loaded":
      return {
        ...state,
        loaded: event.loaded,
        sheet: event.loaded.sheet ?? null,
        session: state.session + 1,
      };
    case "header-asked":
      return { ...state, headerRow: event.headerRow, header: null, counts: null };
    case "header-chosen":
      return {
        ...state,
        headerRow: event.headerRow,
        header: event.header,
        mapping: event.mapping,
        transforms: event.transforms,
        remembered: event.remembered,
        counts: null,
        fixes: emptyFixes,
        // The job of an upload that stopped holds the old columns and mapping: make a new one.
        upload: null,
      };
    case "mapping-changed":
      return {
        ...state,
        mapping: event.mapping,
        transforms: event.transforms,
        remembered: false,
        upload: null,
      };
    case "work-started":
      return { ...state, activity: event.activity, problem: null, progress: null };
    case "progress":
      return { ...state, progress: event.progress };
    case "work-done":
      return { ...state, activity: null, progress: null };
    case "work-failed":
      return { ...state, activity: null, progress: null, problem: event.problem };
    case "validated":
      return {
        ...state,
        activity: null,
        progress: null,
        counts: event.counts,
        step: "preview",
        filter: event.counts.errors > 0 ? "errors" : "all",
      };
    case "cell-fixed": {
      const edits = { ...state.fixes.edits };
      for (const [index, column, value] of event.edits) edits[editKey(index, column)] = value;
      return {
        ...state,
        activity: null,
        counts: event.counts,
        fixes: { ...state.fixes, edits },
        upload: sendAgain(state.upload),
      };
    }
    case "rows-excluded": {
      const excluded = { ...state.fixes.excluded };
      for (const [index, value] of event.rows) {
        if (value) excluded[String(index)] = true;
        else delete excluded[String(index)];
      }
      return {
        ...state,
        activity: null,
        counts: event.counts,
        fixes: { ...state.fixes, excluded },
        upload: sendAgain(state.upload),
      };
    }
    case "references-checked":
      // Arrives beside the administrator's own work: the counts only, nothing else changes.
      return state.counts ? { ...state, counts: event.counts } : state;
    case "options-changed":
      return {
        ...state,
        activity: null,
        options: event.options,
        counts: event.counts,
        // The job of an upload that stopped was made with the old options: make a new one.
        upload: null,
      };
    case "filter-changed":
      return { ...state, filter: event.filter };
    case "upload-progress":
      return { ...state, activity: "uploading", upload: event.upload, uploadError: null };
    case "upload-failed":
      return {
        ...state,
        activity: null,
        upload: event.upload ?? state.upload,
        uploadError: event.problem,
      };
    case "draft-restored":
      return {
        ...state,
        ...event.state,
        activity: null,
        progress: null,
        resumed: { savedAt: event.savedAt },
      };
    case "restarted":
      return {
        ...initialWizardState,
        resource: state.resource,
        step: "upload",
        session: state.session,
      };
  }
}

/**
 * A fix or exclusion after an upload stopped: the rows already sent hold the old cells, so the
 * retry sends every row again into the same job (the server replaces a row sent twice).
 */
function sendAgain(upload: UploadState | null): UploadState | null {
  return upload && { ...upload, sent: 0 };
}

/** Whether leaving the page now would lose something the administrator did to the file. */
export function hasWork(state: WizardState): boolean {
  return state.header !== null && (state.step === "map" || state.step === "preview");
}
