import { del, delMany, get, getMany, set } from "idb-keyval";
import type { ColumnMapping } from "@/lib/imports/fields";
import { columnTransformsSchema, type ColumnTransforms } from "@/lib/imports/transforms";
import type { RowFilter, SavedFixes } from "@/lib/imports/parse/protocol";
import { jobOptionsSchema } from "@/lib/imports/job-options";
import type { ImportResource, JobOptions } from "@/lib/imports/types";
import type { Fixes, WizardState, WizardStep } from "./wizard-state";

/**
 * The wizard's unfinished work, kept in this browser's IndexedDB: the file itself (IndexedDB
 * stores a File as it is, so a 100 MB file is not copied into a string), the chosen sheet and
 * header row, the mapping, and every fix and exclusion. Nothing reaches the server before the
 * administrator sends the rows, as before; on reload the worker reads the file again and
 * replays the fixes. The file is stored under a key of its own, once per file, so that saving a
 * fix writes a few bytes, not the file again.
 */

export type ImportDraft = {
  version: 1;
  savedAt: number;
  resource: ImportResource;
  step: WizardStep;
  fileName: string;
  sheet: string | null;
  headerRow: number;
  mapping: ColumnMapping;
  /** Absent in drafts saved before transforms existed; read with `draftTransforms`. */
  transforms?: ColumnTransforms;
  /** Absent in drafts saved before options existed; read with `draftOptions`. */
  options?: JobOptions;
  filter: RowFilter;
  fixes: Fixes;
};

/** A draft as read back, with its file. */
export type SavedDraft = ImportDraft & { file: File };

/** What the imports list shows of a draft, without reading the file. */
export type DraftSummary = {
  resource: ImportResource;
  fileName: string;
  step: WizardStep;
  savedAt: number;
  fixes: number;
  excluded: number;
};

const DRAFT_KEY = "switchboard:import-draft:v1";
const FILE_KEY = "switchboard:import-draft-file:v1";

/** The work of the wizard as a draft; null before there is a file with a header to work on. */
export function draftOf(state: WizardState): ImportDraft | null {
  if (!state.resource || !state.file || !state.header) return null;
  return {
    version: 1,
    savedAt: 0,
    resource: state.resource,
    step: state.step,
    fileName: state.file.name,
    sheet: state.sheet,
    headerRow: state.headerRow,
    mapping: state.mapping,
    transforms: state.transforms,
    options: state.options,
    filter: state.filter,
    fixes: state.fixes,
  };
}

export async function saveDraft(draft: ImportDraft): Promise<void> {
  await set(DRAFT_KEY, { ...draft, savedAt: Date.now() });
}

export async function saveDraftFile(file: File): Promise<void> {
  await set(FILE_KEY, file);
}

/** The saved work, without its file (for the imports list). */
export async function loadDraftSummary(): Promise<DraftSummary | null> {
  const draft = await get<ImportDraft>(DRAFT_KEY);
  return draft?.version === 1 ? summarizeDraft(draft) : null;
}

/** The saved work and its file, or null when either is missing. */
export async function loadDraft(): Promise<SavedDraft | null> {
  const [draft, file] = await getMany<unknown>([DRAFT_KEY, FILE_KEY]);
  const work = draft as ImportDraft | undefined;
  if (work?.version !== 1 || !(file instanceof Blob)) return null;
  return { ...work, file: file as File };
}

export async function discardDraft(): Promise<void> {
  await delMany([DRAFT_KEY, FILE_KEY]);
}

/** Drops the work but keeps nothing of a file either: used when the wizard starts over. */
export async function discardDraftWork(): Promise<void> {
  await del(DRAFT_KEY);
}

export function summarizeDraft(draft: ImportDraft): DraftSummary {
  return {
    resource: draft.resource,
    fileName: draft.fileName,
    step: draft.step,
    savedAt: draft.savedAt,
    fixes: Object.keys(draft.fixes.edits).length,
    excluded: Object.keys(draft.fixes.excluded).length,
  };
}

/** A draft's transforms as the schema reads them: storage in a browser is not trusted either. */
export function draftTransforms(draft: Pick<ImportDraft, "transforms">): ColumnTransforms {
  const parsed = columnTransformsSchema.safeParse(draft.transforms ?? {});
  return parsed.success ? parsed.data : {};
}

/** A draft's options as the schema reads them; none when absent or mangled. */
export function draftOptions(draft: Pick<ImportDraft, "options">): JobOptions {
  const parsed = jobOptionsSchema.safeParse(draft.options ?? {});
  return parsed.success ? parsed.data : {};
}

/** The fixes in the worker's form, in the order they were made. */
export function savedFixes(fixes: Fixes): SavedFixes {
  return {
    edits: Object.entries(fixes.edits).map(([key, value]) => {
      const [index, column] = key.split(":").map(Number);
      return [index!, column!, value];
    }),
    excluded: Object.keys(fixes.excluded).map((index) => [Number(index), true]),
  };
}
