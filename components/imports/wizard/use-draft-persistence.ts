"use client";

import { useEffect, useMemo, useState, type Dispatch } from "react";
import {
  discardDraft,
  discardDraftWork,
  draftOf,
  loadDraft,
  saveDraft,
  saveDraftFile,
  type ImportDraft,
  type SavedDraft,
} from "./wizard-draft";
import type { WizardEvent, WizardState } from "./wizard-state";

/** Whether the work is safely in this browser's draft store, as the wizard tells it. */
export type DraftSave = "saving" | "saved" | "failed";

/** What the draft store last took and last refused, beside what the wizard holds now. */
export type DraftSaves = {
  draft: ImportDraft | null;
  savedDraft: ImportDraft | null;
  failedDraft: ImportDraft | null;
  sourceFile: File | null;
  storedFile: File | null;
  failedFile: File | null;
};

/** Saved once both the work and its file are stored; failed when either of them was refused. */
export function draftSaveStatus(saves: DraftSaves): DraftSave {
  const { draft, savedDraft, failedDraft, sourceFile, storedFile, failedFile } = saves;
  if (savedDraft === draft && storedFile === sourceFile) return "saved";
  if (failedDraft === draft || (failedFile !== null && failedFile === sourceFile)) return "failed";
  return "saving";
}

export type ResumeSteps = {
  dispatch: Dispatch<WizardEvent>;
  /** Keeps the draft's file as the wizard's, and as the one already in the store. */
  keepFile: (file: File) => void;
  /** Reads the file again and replays the work (`PreviewCommands.restore`). */
  restore: (draft: SavedDraft) => Promise<Partial<WizardState>>;
  /** Told of the restored work once it shows. */
  onRestored: (restored: Partial<WizardState>) => void;
  /** Whether the wizard has gone meanwhile: nothing more is shown then. */
  cancelled: () => boolean;
};

/**
 * Fills the wizard from a saved draft. The wizard shows that it is resuming while the file is
 * read again; a draft that cannot be restored (the file changed, the worker failed) sends the
 * administrator back to choosing the file, with the reason.
 */
export async function resumeDraft(draft: SavedDraft, steps: ResumeSteps): Promise<void> {
  const { dispatch } = steps;
  dispatch({
    type: "file-chosen",
    file: { name: draft.file.name, size: draft.file.size },
    sheet: draft.sheet,
  });
  dispatch({ type: "resource-chosen", resource: draft.resource });
  dispatch({ type: "work-started", activity: "restoring" });
  try {
    steps.keepFile(draft.file);
    const restored = await steps.restore(draft);
    if (steps.cancelled()) return;
    dispatch({ type: "draft-restored", state: restored, savedAt: draft.savedAt });
    steps.onRestored(restored);
  } catch (error) {
    if (steps.cancelled()) return;
    dispatch({ type: "step-shown", step: "upload" });
    const reason = error instanceof Error ? error.message : "Something went wrong.";
    dispatch({
      type: "work-failed",
      problem: `The saved import could not be restored: ${reason} Choose the file again.`,
    });
  }
}

/**
 * The wizard's drafts across reloads (wizard-draft.ts): a saved draft is read once, on arrival,
 * and every later change to the work is saved, the file once per file. Returns where saving
 * stands, for the draft status and the leave guard.
 */
export function useDraftPersistence(
  state: WizardState,
  sourceFile: File | null,
  steps: Omit<ResumeSteps, "cancelled">,
): DraftSave {
  const [draftReady, setDraftReady] = useState(false);
  const [savedDraft, setSavedDraft] = useState<ImportDraft | null>(null);
  const [failedDraft, setFailedDraft] = useState<ImportDraft | null>(null);
  // The file in the draft store, and the one the store refused.
  const [storedFile, setStoredFile] = useState<File | null>(null);
  const [failedFile, setFailedFile] = useState<File | null>(null);

  useEffect(() => {
    let cancelled = false;
    async function resume() {
      const draft = await loadDraft().catch(() => null);
      if (cancelled) return;
      if (draft?.file)
        await resumeDraft(draft, {
          ...steps,
          keepFile: (file) => {
            steps.keepFile(file);
            setStoredFile(file);
          },
          cancelled: () => cancelled,
        });
      if (!cancelled) setDraftReady(true);
    }
    void resume();
    return () => {
      cancelled = true;
    };
    // Once per visit: the draft is the state of the last one.
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, []);

  // Every change to the work is saved as the draft, once the previous draft has been read.
  const restoring = state.activity === "restoring";
  const draft = useMemo(
    () => draftOf(state),
    // The fields a draft holds; progress and activity changes are not work.
    // eslint-disable-next-line react-hooks/exhaustive-deps
    [
      state.resource,
      state.file,
      state.step,
      state.sheet,
      state.headerRow,
      state.header,
      state.mapping,
      state.transforms,
      state.options,
      state.filter,
      state.fixes,
    ],
  );
  useEffect(() => {
    if (!draftReady || restoring) return;
    let current = true;
    (draft ? saveDraft(draft) : discardDraftWork())
      .then(() => current && setSavedDraft(draft))
      .catch(() => current && setFailedDraft(draft));
    return () => {
      current = false;
    };
  }, [draftReady, restoring, draft]);
  // The file is stored once per file, apart from the work, which changes with every fix.
  useEffect(() => {
    if (!draftReady || restoring || sourceFile === storedFile) return;
    let current = true;
    (sourceFile ? saveDraftFile(sourceFile) : discardDraft())
      .then(() => current && setStoredFile(sourceFile))
      .catch(() => current && setFailedFile(sourceFile));
    return () => {
      current = false;
    };
  }, [draftReady, restoring, sourceFile, storedFile]);

  return draftSaveStatus({ draft, savedDraft, failedDraft, sourceFile, storedFile, failedFile });
}
