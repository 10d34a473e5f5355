import { describe, expect, it } from "vitest";
import {
  previewCommands,
  restoreWork,
  type PreviewCommandsDeps,
  type PreviewWorker,
} from "@/components/imports/wizard/preview-commands";
import type { SavedDraft } from "@/components/imports/wizard/wizard-draft";
import {
  initialWizardState,
  wizardReducer,
  type WizardEvent,
  type WizardState,
} from "@/components/imports/wizard/wizard-state";
import { mappingMemoryKey, rememberMapping } from "@/lib/imports/mapping";
import type { PreviewRequest, PreviewResults } from "@/lib/imports/parse/protocol";
import { importLimits } from "@/lib/imports/types";

/**
 * The preview worker's commands (components/imports/wizard/preview-commands.ts), driven against
 * a worker that answers from a script: what each sends, the events it dispatches (folded
 * through the wizard's own reducer) and when it refreshes the pages and looks names up again.
 */

type Script = { [K in PreviewRequest["type"]]?: PreviewResults[K] | Error };

const counts = (errors: number) => ({
  rows: 3,
  valid: 3 - errors,
  errors,
  warnings: 0,
  excluded: 0,
});
const header = {
  columns: ["user_id", "nickname"],
  rows: 3,
  profiles: [
    { filled: 3, sample: ["u1", "u2", "u3"] },
    { filled: 3, sample: ["Ann", "Bo", "Cy"] },
  ],
  firstRow: 2,
};
const loaded = {
  format: "csv" as const,
  sample: [],
  records: 4,
  suggestedHeaderRow: 0,
  headerFixed: false,
};

function scriptedWorker(script: Script) {
  const sent: PreviewRequest[] = [];
  const worker: PreviewWorker = {
    request: (async (request: PreviewRequest) => {
      sent.push(request);
      const answer = script[request.type];
      if (answer instanceof Error) throw answer;
      if (answer === undefined) throw new Error(`Not scripted: ${request.type}`);
      return answer;
    }) as PreviewWorker["request"],
  };
  return { worker, sent };
}

function memoryStorage(): Storage {
  const items = new Map<string, string>();
  return {
    get length() {
      return items.size;
    },
    clear: () => items.clear(),
    getItem: (key) => items.get(key) ?? null,
    key: (index) => [...items.keys()][index] ?? null,
    removeItem: (key) => void items.delete(key),
    setItem: (key, value) => void items.set(key, value),
  };
}

/** The commands over a state, with every effect they have on the page recorded. */
function harness(state: Partial<WizardState>, script: Script, started = true) {
  const { worker, sent } = scriptedWorker(script);
  const events: WizardEvent[] = [];
  const effects: string[] = [];
  const kept: Array<File | null> = [];
  const storage = memoryStorage();
  const from = { ...initialWizardState, ...state };
  const deps: PreviewCommandsDeps = {
    state: from,
    dispatch: (event) => events.push(event),
    client: started ? worker : null,
    startWorker: () => {
      effects.push("worker started");
      return worker;
    },
    pages: {
      remove: () => effects.push("pages dropped"),
      refresh: async (session) => void effects.push(`pages refreshed ${session}`),
    },
    keepFile: (file) => kept.push(file),
    checkReferences: (_worker, resource) => effects.push(`references ${resource ?? "(current)"}`),
    storage: () => storage,
  };
  const after = () => events.reduce(wizardReducer, from);
  return { commands: previewCommands(deps), sent, events, effects, kept, storage, after };
}

const file = () => new File(["user_id,nickname\n"], "users.csv");
const atPreview: Partial<WizardState> = {
  resource: "users",
  step: "preview",
  file: { name: "users.csv", size: 10 },
  header,
  mapping: { user_id: "user_id", nickname: "nickname" },
  counts: counts(1),
  session: 4,
};

describe("the preview worker's commands", () => {
  it("a file is read with the header row the worker suggests, and mapped by its columns", async () => {
    const run = harness({ resource: "users", step: "upload" }, { load: loaded, header }, false);
    const picked = file();
    await run.commands.openFile(picked);
    expect(run.sent.map((request) => request.type)).toEqual(["load", "header"]);
    expect(run.sent[0]).toMatchObject({ type: "load", resource: "users", sheet: null });
    expect(run.kept).toEqual([picked]);
    expect(run.effects).toEqual(["worker started", "pages dropped"]);
    expect(run.after()).toMatchObject({
      file: { name: "users.csv" },
      header,
      mapping: { user_id: "user_id", nickname: "nickname" },
      remembered: false,
      activity: null,
      session: 1,
    });
  });

  it("a file with the headers of an earlier one gets the mapping it was validated with", async () => {
    const run = harness({ resource: "users", step: "upload" }, { load: loaded, header }, false);
    const earlier = { user_id: "nickname", nickname: "user_id" };
    rememberMapping(run.storage, "users", header.columns, earlier);
    await run.commands.openFile(file());
    expect(run.after()).toMatchObject({ mapping: earlier, remembered: true });
  });

  it("a file over the kind's limit is refused with the limit, and nothing reads it", async () => {
    const run = harness({ resource: "users", step: "upload" }, {}, false);
    const big = { name: "huge.csv", size: importLimits("users").bytes + 1 } as File;
    await run.commands.openFile(big);
    expect(run.sent).toEqual([]);
    expect(run.effects).toEqual([]);
    expect(run.kept).toEqual([]);
    expect(run.after().problem).toMatch(
      /^The file is .*; the console imports files of up to .*Split it/,
    );
  });

  it("a header row that cannot be read shows as chosen, beside the worker's reason", async () => {
    const run = harness(
      { ...atPreview, step: "upload", counts: null },
      { header: new Error("Row 3 has more cells than the header (2).") },
    );
    await run.commands.pickHeaderRow(2);
    expect(run.after()).toMatchObject({
      headerRow: 2,
      header: null,
      activity: null,
      problem: "Row 3 has more cells than the header (2).",
    });
  });

  it("validating remembers the mapping, refreshes the pages, then looks the names up", async () => {
    const run = harness({ ...atPreview, step: "map", counts: null }, { validate: counts(2) });
    await run.commands.validate();
    expect(run.sent[0]).toMatchObject({ type: "validate", mapping: atPreview.mapping });
    expect(run.storage.getItem(mappingMemoryKey("users", header.columns))).not.toBeNull();
    expect(run.effects).toEqual(["pages refreshed 4", "references (current)"]);
    expect(run.after()).toMatchObject({ step: "preview", filter: "errors", counts: counts(2) });
  });

  it("a fix is kept and looked up again; an exclusion is not, taking a row back is", async () => {
    const run = harness(atPreview, {
      edit: { counts: counts(0), row: {} as never },
      exclude: { counts: counts(0) },
    });
    await run.commands.edit(1, 1, "Bob");
    await run.commands.exclude(2, true);
    expect(run.effects).toEqual(["pages refreshed 4", "references (current)", "pages refreshed 4"]);
    await run.commands.exclude(2, false);
    expect(run.effects.slice(3)).toEqual(["pages refreshed 4", "references (current)"]);
    expect(run.after().fixes).toEqual({ edits: { "1:1": "Bob" }, excluded: {} });
  });

  it("replacing resolves with the cells it changed, and keeps each as a fix", async () => {
    const run = harness(atPreview, {
      replace: {
        counts: counts(0),
        edits: [
          [0, 1, "Ann"],
          [2, 1, "Ann"],
        ],
      },
    });
    expect(await run.commands.replace(1, "ann", "Ann", true)).toBe(2);
    expect(run.sent[0]).toEqual({
      type: "replace",
      column: 1,
      find: "ann",
      replacement: "Ann",
      wholeCell: true,
    });
    expect(run.after().fixes.edits).toEqual({ "0:1": "Ann", "2:1": "Ann" });
  });

  it("a failed command ends the activity with the worker's words; before a file, nothing is sent", async () => {
    const run = harness(atPreview, { "exclude-errors": new Error("The preview stopped.") });
    await run.commands.excludeErrors();
    expect(run.after()).toMatchObject({ activity: null, problem: "The preview stopped." });
    expect(run.effects).toEqual([]);

    const early = harness({ resource: "users" }, {}, false);
    await early.commands.edit(0, 0, "x");
    await early.commands.chooseOptions({ createUnknownSenders: true });
    expect(await early.commands.replace(0, "a", "b", false)).toBe(0);
    expect(early.sent).toEqual([]);
  });

  it("starting over lets go of the file and the pages, keeping the resource", () => {
    const run = harness(atPreview, {});
    run.commands.restart();
    expect(run.kept).toEqual([null]);
    expect(run.effects).toEqual(["pages dropped"]);
    expect(run.after()).toMatchObject({ resource: "users", step: "upload", file: null });
  });
});

describe("restoring a draft's work", () => {
  const draft = (changes: Partial<SavedDraft> = {}): SavedDraft => ({
    version: 1,
    savedAt: 1_700_000_000_000,
    resource: "users",
    step: "preview",
    fileName: "users.csv",
    sheet: null,
    headerRow: 0,
    mapping: { user_id: "user_id", nickname: "nickname" },
    transforms: { nickname: { replace: { pattern: "^ +", replacement: "" } } },
    filter: "errors",
    fixes: { edits: { "1:1": "Bob" }, excluded: { "2": true } },
    file: file(),
    ...changes,
  });
  const read = async () => undefined;

  it("a draft left at the preview is validated again and its fixes replayed in order", async () => {
    const { worker, sent } = scriptedWorker({
      header,
      validate: counts(2),
      "apply-fixes": counts(0),
    });
    const restored = await restoreWork(worker, draft(), read);
    expect(sent.map((request) => request.type)).toEqual(["header", "validate", "apply-fixes"]);
    expect(sent[1]).toMatchObject({
      transforms: { nickname: { replace: { pattern: "^ +", replacement: "" } } },
    });
    expect(sent[2]).toEqual({
      type: "apply-fixes",
      fixes: { edits: [[1, 1, "Bob"]], excluded: [[2, true]] },
    });
    expect(restored).toMatchObject({ step: "preview", counts: counts(0), filter: "errors" });
  });

  it("a draft whose mapping no longer fits opens at the mapping; mangled options read as none", async () => {
    const { worker, sent } = scriptedWorker({ header });
    const restored = await restoreWork(
      worker,
      draft({
        mapping: { nickname: "nickname" },
        options: { createUnknownSenders: "yes" } as never,
      }),
      read,
    );
    expect(sent.map((request) => request.type)).toEqual(["header"]);
    expect(restored).toMatchObject({ step: "map", options: {}, header });
    expect(restored.counts).toBeUndefined();
  });

  it("a draft at an earlier step reopens there, with the header row it had", async () => {
    const { worker } = scriptedWorker({ header });
    const restored = await restoreWork(worker, draft({ step: "upload", headerRow: 3 }), read);
    expect(restored).toMatchObject({ step: "upload", headerRow: 3 });
  });
});
