import { del, get, set } from "idb-keyval";
import type { ColumnMapping } from "@/lib/imports/fields";
import type { RowFilter, SavedFixes } from "@/lib/imports/parse/protocol";
import type { ImportResource } from "@/lib/imports/types";
import type { Fixes, WizardState, WizardStep } from "./wizard-state";

/**
 * The wizard's unfinished work, kept in this browser's IndexedDB: the file itself (IndexedDB
 * stores a File as it is, so a 100 MB file is not copied into a string), the chosen sheet and
 * header row, the mapping, and every fix and exclusion. Nothing reaches the server before the
 * administrator sends the rows, as before; on reload the worker reads the file again and
 * replays the fixes.
 */

export type ImportDraft = {
  version: 1;
  savedAt: number;
  resource: ImportResource;
  step: WizardStep;
  file: File | null;
  sheet: string | null;
  headerRow: number;
  mapping: ColumnMapping;
  filter: RowFilter;
  fixes: Fixes;
};

/** What the imports list shows of a draft, without reading the file. */
export type DraftSummary = { resource: ImportResource; fileName: string | null; step: WizardStep; savedAt: number; fixes: number; excluded: number };

const DRAFT_KEY = "switchboard:import-draft:v1";

export function draftOf(state: WizardState, file: File | null): ImportDraft | null {
  if (!state.resource) return null;
  return {
    version: 1,
    savedAt: 0,
    resource: state.resource,
    step: state.step,
    file,
    sheet: state.sheet,
    headerRow: state.headerRow,
    mapping: state.mapping,
    filter: state.filter,
    fixes: state.fixes,
  };
}

export async function saveDraft(draft: ImportDraft): Promise<void> {
  await set(DRAFT_KEY, { ...draft, savedAt: Date.now() });
}

export async function loadDraft(): Promise<ImportDraft | null> {
  const draft = await get<ImportDraft>(DRAFT_KEY);
  return draft && draft.version === 1 ? draft : null;
}

export async function discardDraft(): Promise<void> {
  await del(DRAFT_KEY);
}

export function summarizeDraft(draft: ImportDraft): DraftSummary {
  return {
    resource: draft.resource,
    fileName: draft.file?.name ?? null,
    step: draft.step,
    savedAt: draft.savedAt,
    fixes: Object.keys(draft.fixes.edits).length,
    excluded: Object.keys(draft.fixes.excluded).length,
  };
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
