import { describe, expect, it } from "vitest";
import {
  draftOf,
  draftOptions,
  draftTransforms,
  savedFixes,
} from "@/components/imports/wizard/wizard-draft";
import {
  hasWork,
  initialWizardState,
  wizardReducer,
  type WizardEvent,
  type WizardState,
} from "@/components/imports/wizard/wizard-state";
import {
  autoMap,
  mappingProblems,
  suggestMapping,
  metadataKeyFix,
  similarity,
} from "@/lib/imports/mapping";
import { VALUE_SAMPLE_SIZE } from "@/lib/imports/column-values";
import { PreviewSession } from "@/lib/imports/parse/preview-session";

const counts = (errors: number) => ({
  rows: 4,
  valid: 4 - errors,
  errors,
  warnings: 0,
  excluded: 0,
});
const play = (events: WizardEvent[], from: WizardState = initialWizardState) =>
  events.reduce(wizardReducer, from);
const header = { columns: ["user_id", "nickname"], rows: 4, profiles: [], firstRow: 2 };
const loaded = {
  format: "csv" as const,
  sample: [],
  records: 5,
  suggestedHeaderRow: 0,
  headerFixed: false,
};

describe("the wizard's reducer", () => {
  const mapped = play([
    { type: "resource-chosen", resource: "users" },
    { type: "step-shown", step: "upload" },
    { type: "file-chosen", file: { name: "u.csv", size: 10 }, sheet: null },
    { type: "file-loaded", loaded },
    {
      type: "header-chosen",
      headerRow: 0,
      header,
      mapping: { user_id: "user_id", nickname: "nickname" },
      transforms: {},
      remembered: false,
    },
    { type: "step-shown", step: "map" },
  ]);

  it("shows the header row it was asked to read, even when that row cannot be the header", () => {
    const asked = play(
      [
        { type: "header-asked", headerRow: 1 },
        { type: "work-failed", problem: "Row 3 has more cells than the header (2)." },
      ],
      mapped,
    );
    expect(asked).toMatchObject({ headerRow: 1, header: null, problem: expect.any(String) });
  });

  it("validating opens the preview on the rows with errors when there are any", () => {
    expect(
      play(
        [
          { type: "work-started", activity: "validating" },
          { type: "validated", counts: counts(2) },
        ],
        mapped,
      ),
    ).toMatchObject({ step: "preview", filter: "errors", activity: null });
    expect(play([{ type: "validated", counts: counts(0) }], mapped).filter).toBe("all");
  });

  it("keeps every fix and exclusion, the last value of a cell winning, and an inclusion undoing an exclusion", () => {
    const fixed = play(
      [
        { type: "validated", counts: counts(2) },
        { type: "cell-fixed", counts: counts(1), edits: [[1, 1, "Ann"]] },
        {
          type: "cell-fixed",
          counts: counts(1),
          edits: [
            [1, 1, "Anne"],
            [3, 0, "u3"],
          ],
        },
        {
          type: "rows-excluded",
          counts: counts(0),
          rows: [
            [2, true],
            [0, true],
          ],
        },
        { type: "rows-excluded", counts: counts(0), rows: [[0, false]] },
      ],
      mapped,
    );
    expect(fixed.fixes).toEqual({ edits: { "1:1": "Anne", "3:0": "u3" }, excluded: { "2": true } });
    expect(savedFixes(fixed.fixes)).toEqual({
      edits: [
        [1, 1, "Anne"],
        [3, 0, "u3"],
      ],
      excluded: [[2, true]],
    });
    expect(hasWork(fixed)).toBe(true);
  });

  it("a new file or a new header row forgets the fixes made to the old one", () => {
    const fixed = play(
      [
        { type: "validated", counts: counts(1) },
        { type: "cell-fixed", counts: counts(0), edits: [[0, 0, "x"]] },
      ],
      mapped,
    );
    expect(
      play([{ type: "file-chosen", file: { name: "v.csv", size: 3 }, sheet: null }], fixed),
    ).toMatchObject({ fixes: { edits: {}, excluded: {} }, counts: null, header: null });
    expect(
      play(
        [
          {
            type: "header-chosen",
            headerRow: 1,
            header,
            mapping: {},
            transforms: {},
            remembered: false,
          },
        ],
        fixed,
      ).fixes.edits,
    ).toEqual({});
    expect(play([{ type: "file-loaded", loaded }], fixed).session).toBe(fixed.session + 1);
  });

  it("after an upload stopped, a fix sends every row again and a new mapping or header makes a new job", () => {
    const stopped = play(
      [
        { type: "validated", counts: counts(1) },
        { type: "upload-progress", upload: { jobId: "job-1", sent: 0, total: 4 } },
        { type: "upload-progress", upload: { jobId: "job-1", sent: 2, total: 4 } },
        { type: "upload-failed", upload: null, problem: "The connection was lost." },
      ],
      mapped,
    );
    expect(stopped.upload).toEqual({ jobId: "job-1", sent: 2, total: 4 });
    // Rows 0 and 1 are on the server with their old cells: the retry starts from row 0.
    expect(
      play([{ type: "cell-fixed", counts: counts(0), edits: [[0, 0, "x"]] }], stopped).upload,
    ).toEqual({ jobId: "job-1", sent: 0, total: 4 });
    expect(
      play([{ type: "rows-excluded", counts: counts(0), rows: [[1, true]] }], stopped).upload,
    ).toEqual({ jobId: "job-1", sent: 0, total: 4 });
    // The job holds the columns and the mapping it was made with.
    const remapped = { user_id: "nickname", nickname: "user_id" };
    expect(
      play([{ type: "mapping-changed", mapping: remapped, transforms: {} }], stopped).upload,
    ).toBeNull();
    expect(
      play(
        [
          {
            type: "header-chosen",
            headerRow: 1,
            header,
            mapping: {},
            transforms: {},
            remembered: false,
          },
        ],
        stopped,
      ).upload,
    ).toBeNull();
  });

  it("a transform is part of the mapping: it starts a new upload and is kept in the draft", () => {
    const transforms = { nickname: { replace: { pattern: "^ +", replacement: "" } } };
    const changed = play([{ type: "mapping-changed", mapping: mapped.mapping, transforms }], {
      ...mapped,
      upload: { jobId: "job-1", sent: 2, total: 4 },
    });
    expect(changed).toMatchObject({ transforms, upload: null });
    expect(draftOf(changed)?.transforms).toEqual(transforms);
    expect(draftTransforms({ transforms })).toEqual(transforms);
    // A draft from before transforms, or one whose transform storage mangled, reads as none.
    expect(draftTransforms({})).toEqual({});
    expect(draftTransforms({ transforms: { a: { invert: "yes" } } as never })).toEqual({});
    expect(play([{ type: "restarted" }], changed).transforms).toEqual({});
  });

  it("creating unknown senders is kept in the draft, and a stopped upload's job is made again with it", () => {
    const chosen = play(
      [{ type: "options-changed", options: { createUnknownSenders: true }, counts: counts(0) }],
      { ...mapped, activity: "fixing", upload: { jobId: "job-1", sent: 2, total: 4 } },
    );
    expect(chosen).toMatchObject({
      options: { createUnknownSenders: true },
      counts: counts(0),
      activity: null,
      upload: null,
    });
    expect(draftOf(chosen)?.options).toEqual({ createUnknownSenders: true });
    expect(draftOptions({ options: { createUnknownSenders: true } })).toEqual({
      createUnknownSenders: true,
    });
    // A draft from before options, or one whose storage mangled them, reads as none.
    expect(draftOptions({})).toEqual({});
    expect(draftOptions({ options: { createUnknownSenders: "yes" } as never })).toEqual({});
    expect(draftOptions({ options: { deleteEverything: true } as never })).toEqual({});
    expect(play([{ type: "restarted" }], chosen).options).toEqual({});
  });

  it("a failure ends the activity with its message; starting over keeps the resource only", () => {
    const failed = play(
      [
        { type: "work-started", activity: "reading" },
        { type: "work-failed", problem: "bad" },
      ],
      mapped,
    );
    expect(failed).toMatchObject({ activity: null, problem: "bad" });
    expect(play([{ type: "restarted" }], failed)).toMatchObject({
      step: "upload",
      resource: "users",
      file: null,
      header: null,
      problem: null,
    });
    expect(hasWork(initialWizardState)).toBe(false);
  });
});

describe("mapping that helps", () => {
  it("matches misspelt columns by likeness after names and aliases, and says so", () => {
    expect(similarity("nickname", "nicknmae")).toBeGreaterThanOrEqual(0.75);
    expect(autoMap("users", ["user_id", "Nicknmae", "Profil URL", "colour"])).toEqual({
      user_id: "user_id",
      Nicknmae: "nickname",
      "Profil URL": "profile_url",
      colour: "",
    });
    expect(suggestMapping("users", ["Nicknmae"]).columns.Nicknmae).toEqual({
      target: "nickname",
      reasons: ["similar name"],
    });
    expect(suggestMapping("users", ["Name"]).columns.Name).toEqual({
      target: "nickname",
      reasons: ["name matches"],
    });
    // An exact name is never taken by a look-alike column.
    expect(autoMap("users", ["nicknam", "nickname"])).toMatchObject({
      nickname: "nickname",
      nicknam: "",
    });
  });

  it("flags a metadata key with a comma at the mapping step, with its rename", () => {
    expect(metadataKeyFix("metadata.team,region")).toBe("team_region");
    expect(metadataKeyFix("metadata.team")).toBeNull();
    expect(
      mappingProblems("users", ["id", "name", "m"], {
        id: "user_id",
        name: "nickname",
        m: "metadata.a, b",
      }),
    ).toEqual([
      'The metadata key "a, b" of column "m" has a comma, which the platform does not accept in a key: rename it (for example "a_b").',
    ]);
  });
});

describe("the preview's bulk changes", () => {
  const file = () =>
    new PreviewSession("users", [
      ["user_id", "nickname"],
      ["u1", "Ann"],
      ["u2", ""],
      ["u3", "N/A"],
      ["u4", ""],
    ]);

  it("profiles each column: fill rate and its first values, at most VALUE_SAMPLE_SIZE", () => {
    expect(file().chooseHeader(0).profiles).toEqual([
      { filled: 4, sample: ["u1", "u2", "u3", "u4"] },
      { filled: 2, sample: ["Ann", "N/A"] },
    ]);
    const many = new PreviewSession("users", [
      ["user_id"],
      ...Array.from({ length: VALUE_SAMPLE_SIZE + 50 }, (_, at) => [`u${at}`]),
    ]);
    const [profile] = many.chooseHeader(0).profiles;
    expect(profile!.filled).toBe(VALUE_SAMPLE_SIZE + 50);
    expect(profile!.sample).toHaveLength(VALUE_SAMPLE_SIZE);
  });

  it("excludes every row with an error, and replaces in one column (whole cell or each occurrence)", () => {
    const session = file();
    session.chooseHeader(0);
    session.validate({ user_id: "user_id", nickname: "nickname" });
    expect(session.counts()).toMatchObject({ valid: 2, errors: 2 });
    const replaced = session.replace(1, "", "Someone", true);
    expect(replaced.edits).toEqual([
      [1, 1, "Someone"],
      [3, 1, "Someone"],
    ]);
    expect(replaced.counts).toMatchObject({ valid: 4, errors: 0 });
    expect(
      session.replace(0, "u", "user-", false).edits.map(([index, , value]) => [index, value]),
    ).toEqual([
      [0, "user-1"],
      [1, "user-2"],
      [2, "user-3"],
      [3, "user-4"],
    ]);
    session.edit(2, 1, "");
    expect(session.excludeErrors()).toMatchObject({
      rows: [2],
      counts: { errors: 0, excluded: 1, valid: 3 },
    });
  });

  it("replaces with the text as typed: $$, $& and $' are not patterns", () => {
    const session = file();
    session.chooseHeader(0);
    session.validate({ user_id: "user_id", nickname: "nickname" });
    expect(session.replace(1, "Ann", "$$ & $& & $'", false).edits).toEqual([
      [0, 1, "$$ & $& & $'"],
    ]);
  });

  it("replays saved fixes on a fresh copy of the file", () => {
    const session = file();
    session.chooseHeader(0);
    session.validate({ user_id: "user_id", nickname: "nickname" });
    const restored = session.applyFixes({
      edits: [
        [1, 1, "Bob"],
        [99, 0, "gone"],
      ],
      excluded: [[3, true]],
    });
    expect(restored).toMatchObject({ valid: 3, errors: 0, excluded: 1 });
    expect(session.viewRow(1).values).toEqual(["u2", "Bob"]);
  });
});
