import { describe, expect, it } from "vitest";
import {
  draftSaveStatus,
  resumeDraft,
  type DraftSaves,
  type ResumeSteps,
} from "@/components/imports/wizard/use-draft-persistence";
import type { ImportDraft, SavedDraft } from "@/components/imports/wizard/wizard-draft";
import {
  initialWizardState,
  wizardReducer,
  type WizardEvent,
  type WizardState,
} from "@/components/imports/wizard/wizard-state";

/**
 * The draft kept across reloads (components/imports/wizard/use-draft-persistence.ts): where
 * saving stands, and how a saved draft fills the wizard again (the events folded through the
 * wizard's own reducer).
 */

const work = { version: 1, step: "map" } as ImportDraft;
const file = new File(["user_id\n"], "users.csv");

describe("where saving the draft stands", () => {
  const saves = (changes: Partial<DraftSaves>): DraftSaves => ({
    draft: work,
    savedDraft: null,
    failedDraft: null,
    sourceFile: file,
    storedFile: null,
    failedFile: null,
    ...changes,
  });

  it("saved only once both the work and its file are in the store", () => {
    expect(draftSaveStatus(saves({ savedDraft: work, storedFile: file }))).toBe("saved");
    expect(draftSaveStatus(saves({ savedDraft: work }))).toBe("saving");
    expect(draftSaveStatus(saves({ storedFile: file }))).toBe("saving");
    // No work and no file yet: nothing to save, nothing at risk.
    expect(draftSaveStatus(saves({ draft: null, sourceFile: null }))).toBe("saved");
  });

  it("a change after the last save is saving again", () => {
    const changed = { ...work, step: "preview" } as ImportDraft;
    expect(draftSaveStatus(saves({ draft: changed, savedDraft: work, storedFile: file }))).toBe(
      "saving",
    );
  });

  it("failed when the store refused the work or the file; another file is saved afresh", () => {
    expect(draftSaveStatus(saves({ failedDraft: work, storedFile: file }))).toBe("failed");
    expect(draftSaveStatus(saves({ savedDraft: work, failedFile: file }))).toBe("failed");
    const other = new File(["x"], "other.csv");
    expect(draftSaveStatus(saves({ savedDraft: work, failedFile: file, sourceFile: other }))).toBe(
      "saving",
    );
  });
});

describe("resuming a saved draft", () => {
  const saved: SavedDraft = {
    version: 1,
    savedAt: 1_700_000_000_000,
    resource: "messages",
    step: "preview",
    fileName: "messages.csv",
    sheet: "March",
    headerRow: 1,
    mapping: {},
    filter: "all",
    fixes: { edits: {}, excluded: {} },
    file,
  };

  function resume(restore: ResumeSteps["restore"], cancelled = () => false) {
    const events: WizardEvent[] = [];
    const kept: File[] = [];
    const restoredShown: Array<Partial<WizardState>> = [];
    const during: WizardState[] = [];
    const done = resumeDraft(saved, {
      dispatch: (event) => events.push(event),
      keepFile: (keptFile) => kept.push(keptFile),
      restore: (draft) => {
        during.push(events.reduce(wizardReducer, initialWizardState));
        return restore(draft);
      },
      onRestored: (restored) => restoredShown.push(restored),
      cancelled,
    });
    const state = () => events.reduce(wizardReducer, initialWizardState);
    return { done, events, kept, restoredShown, during, state };
  }

  it("shows the file being read again, then the work as it was left", async () => {
    const restored: Partial<WizardState> = { step: "preview", headerRow: 1, filter: "errors" };
    const run = resume(async () => restored);
    await run.done;
    expect(run.during[0]).toMatchObject({
      activity: "restoring",
      resource: "messages",
      file: { name: "users.csv", size: file.size },
      sheet: "March",
    });
    expect(run.kept).toEqual([file]);
    expect(run.restoredShown).toEqual([restored]);
    expect(run.state()).toMatchObject({
      activity: null,
      step: "preview",
      filter: "errors",
      resumed: { savedAt: saved.savedAt },
    });
  });

  it("a draft that cannot be restored goes back to the file, with the reason", async () => {
    const run = resume(async () => {
      throw new Error("The file holds no rows.");
    });
    await run.done;
    expect(run.restoredShown).toEqual([]);
    expect(run.state()).toMatchObject({
      step: "upload",
      activity: null,
      resumed: null,
      problem:
        "The saved import could not be restored: The file holds no rows. Choose the file again.",
    });
  });

  it("a wizard gone meanwhile is told nothing more, restored or not", async () => {
    let gone = false;
    const run = resume(
      async () => {
        gone = true;
        return { step: "map" };
      },
      () => gone,
    );
    await run.done;
    expect(run.restoredShown).toEqual([]);
    expect(run.events.map((event) => event.type)).not.toContain("draft-restored");

    const failed = resume(
      async () => {
        throw new Error("stopped");
      },
      () => true,
    );
    await failed.done;
    expect(failed.events.map((event) => event.type)).not.toContain("work-failed");
  });
});
