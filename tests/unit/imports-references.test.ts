import { describe, expect, it } from "vitest";
import { PreviewSession } from "@/lib/imports/parse/preview-session";
import { prepareRow } from "@/lib/imports/prepare";
import {
  referenceIssues,
  referenceLookupSchema,
  rowReferences,
  type KnownReferences,
} from "@/lib/imports/references";

const known = (
  channels: Record<string, boolean>,
  users: Record<string, boolean>,
): KnownReferences => ({
  channels: new Map(Object.entries(channels)),
  users: new Map(Object.entries(users)),
});

const messageColumns = ["channel", "sender", "type", "text", "sent"];
const messageMapping = {
  channel: "channel_url",
  sender: "user_id",
  type: "message_type",
  text: "message",
  sent: "timestamp",
};
const message = (channel: string, sender: string) =>
  prepareRow(
    "messages",
    messageColumns,
    messageMapping,
    [channel, sender, "MESG", "hi", "1700000000000"],
    0,
  );

describe("the references a row names", () => {
  it("a message names its channel and its sender", () => {
    expect(rowReferences("messages", message("general", "ada"))).toEqual({
      channel: "general",
      users: [{ id: "ada", field: "user_id" }],
    });
  });

  it("a group channel names its members and operators, each under its own column", () => {
    const row = prepareRow(
      "group_channels",
      ["url", "members", "operators", "strict"],
      { url: "channel_url", members: "user_ids", operators: "operator_ids", strict: "strict" },
      ["team-one", "ada;bob", "ada", "true"],
      0,
    );
    const references = rowReferences("group_channels", row);
    expect(references?.strict).toBe(true);
    expect(references?.users).toEqual(
      expect.arrayContaining([
        { id: "ada", field: "operator_ids" },
        { id: "bob", field: "user_ids" },
      ]),
    );
  });

  it("users name nothing", () => {
    expect(rowReferences("users", { key: "ada", body: { user_id: "ada" }, followUps: {} })).toBe(
      undefined,
    );
  });
});

describe("issues of what was looked up", () => {
  it("a missing channel and a missing sender are errors under their own cells", () => {
    const issues = referenceIssues(
      "messages",
      rowReferences("messages", message("nowhere", "ghost")),
      known({ nowhere: false }, { ghost: false }),
    );
    expect(issues).toEqual([
      expect.objectContaining({
        field: "channel_url",
        severity: "error",
        message: expect.stringContaining(
          'No channel "nowhere" on the platform or in a channel import',
        ),
      }),
      expect.objectContaining({
        field: "user_id",
        severity: "error",
        message: expect.stringContaining('No user "ghost" on the platform or in a users import'),
      }),
    ]);
  });

  it("says nothing of values that exist or were not looked up (yet)", () => {
    const references = rowReferences("messages", message("general", "ada"));
    expect(referenceIssues("messages", references, known({ general: true }, {}))).toEqual([]);
  });

  it("a missing member leaves a channel without them (warning), or refuses a strict one (error)", () => {
    const missing = known({}, { bob: false, cy: false, di: false, ed: false });
    const open = referenceIssues(
      "group_channels",
      {
        users: ["bob", "cy", "di", "ed", "ada"].map((id) => ({ id, field: "user_ids" })),
      },
      missing,
    );
    expect(open).toEqual([
      expect.objectContaining({
        field: "user_ids",
        severity: "warning",
        message: expect.stringContaining('Users "bob", "cy", "di" and 1 more on neither'),
      }),
    ]);
    const strict = referenceIssues(
      "group_channels",
      { users: [{ id: "bob", field: "operator_ids" }], strict: true },
      missing,
    );
    expect(strict).toEqual([
      expect.objectContaining({ field: "operator_ids", severity: "error", code: 400111 }),
    ]);
  });
});

describe("unknown senders created as deactivated users", () => {
  const ghost = () => rowReferences("messages", message("general", "ghost"));
  const missing = known({ general: true }, { ghost: false });

  it("off: a sender on neither the platform nor a users import is an error", () => {
    expect(referenceIssues("messages", ghost(), missing, {})).toEqual([
      expect.objectContaining({ field: "user_id", severity: "error", code: 400201 }),
    ]);
  });

  it("on: the same sender is a warning that says it is created as a deactivated user", () => {
    const issues = referenceIssues("messages", ghost(), missing, { createUnknownSenders: true });
    expect(issues).toEqual([
      {
        field: "user_id",
        severity: "warning",
        message: expect.stringContaining(
          'No user "ghost" on the platform or in a users import of this console: created as a deactivated user',
        ),
      },
    ]);
    // A sender that exists, or one not looked up yet, says nothing either way.
    expect(
      referenceIssues("messages", ghost(), known({}, {}), { createUnknownSenders: true }),
    ).toEqual([]);
  });

  it("reacting users are created the same way (the plan creates every unknown user it finds)", () => {
    const reacted = { channel: "general", users: [{ id: "ghost", field: "reactions" }] };
    expect(referenceIssues("messages", reacted, missing)).toEqual([
      expect.objectContaining({ field: "reactions", severity: "error" }),
    ]);
    expect(referenceIssues("messages", reacted, missing, { createUnknownSenders: true })).toEqual([
      expect.objectContaining({
        field: "reactions",
        severity: "warning",
        message: expect.stringContaining("created as a deactivated user"),
      }),
    ]);
  });

  it("on: a missing channel stays an error, and a channel import's missing members are untouched", () => {
    const issues = referenceIssues(
      "messages",
      rowReferences("messages", message("nowhere", "ghost")),
      known({ nowhere: false }, { ghost: false }),
      { createUnknownSenders: true },
    );
    expect(issues.map((issue) => [issue.field, issue.severity])).toEqual([
      ["channel_url", "error"],
      ["user_id", "warning"],
    ]);
    const strict = referenceIssues(
      "group_channels",
      { users: [{ id: "ghost", field: "user_ids" }], strict: true },
      missing,
      { createUnknownSenders: true },
    );
    expect(strict).toEqual([expect.objectContaining({ severity: "error", code: 400111 })]);
  });

  it("in the preview: ticking the option makes the rows valid with the warning, unticking makes them errors again", () => {
    const session = new PreviewSession("messages", [
      messageColumns,
      ["general", "ada", "MESG", "hi", "1700000000000"],
      ["general", "ghost", "MESG", "hello", "1700000001000"],
      ["general", "ghost", "MESG", "again", "1700000002000"],
    ]);
    session.chooseHeader(0);
    session.validate(messageMapping);
    const asked = session.uncheckedReferences(1000);
    expect(session.referencesChecked(asked, { channels: [], users: ["ghost"] })).toMatchObject({
      valid: 1,
      errors: 2,
      warnings: 0,
    });

    expect(session.setOptions({ createUnknownSenders: true })).toMatchObject({
      valid: 3,
      errors: 0,
      warnings: 2,
    });
    expect(session.viewRow(1).issues).toEqual([
      expect.objectContaining({
        field: "user_id",
        severity: "warning",
        message: expect.stringContaining("created as a deactivated user"),
      }),
    ]);
    expect(session.rows("warnings", 0, 10).total).toBe(2);
    expect(session.rows("errors", 0, 10).total).toBe(0);
    // Validating again (a new mapping) keeps the option.
    expect(session.validate(messageMapping)).toMatchObject({ valid: 3, warnings: 2 });

    expect(session.setOptions({})).toMatchObject({ valid: 1, errors: 2, warnings: 0 });
    expect(session.viewRow(2).issues).toEqual([
      expect.objectContaining({ field: "user_id", severity: "error" }),
    ]);
  });
});

describe("a look-up request", () => {
  it("holds at most 1,000 values of each kind", () => {
    const ids = Array.from({ length: 1001 }, (_, i) => `c${i}`);
    expect(referenceLookupSchema.safeParse({ channels: ids }).success).toBe(false);
    expect(referenceLookupSchema.parse({ users: ["a"] })).toEqual({ channels: [], users: ["a"] });
  });
});

describe("the preview's look-up of what exists", () => {
  const records = [
    messageColumns,
    ["general", "ada", "MESG", "hi", "1700000000000"],
    ["nowhere", "ghost", "MESG", "hello", "1700000001000"],
    ["general", "ghost", "MESG", "again", "1700000002000"],
  ];

  it("asks each distinct value once, marks the cells of missing ones, and re-asks only what a fix brings", () => {
    const session = new PreviewSession(
      "messages",
      records.map((row) => [...row]),
    );
    session.chooseHeader(0);
    session.validate(messageMapping);
    const asked = session.uncheckedReferences(1000);
    expect(asked).toEqual({
      channels: ["general", "nowhere"],
      users: ["ada", "ghost"],
      more: { channels: 0, users: 0 },
    });
    const counts = session.referencesChecked(asked, { channels: ["nowhere"], users: ["ghost"] });
    expect(counts).toMatchObject({ valid: 1, errors: 2 });
    expect(session.viewRow(1).issues.map((issue) => issue.field)).toEqual([
      "channel_url",
      "user_id",
    ]);
    expect(session.viewRow(2).issues.map((issue) => issue.field)).toEqual(["user_id"]);
    expect(session.uncheckedReferences(1000).channels).toEqual([]);

    // A fix to a known channel clears its error at once; a fix to a new one is asked about.
    session.edit(1, 0, "general");
    expect(session.viewRow(1).issues.map((issue) => issue.field)).toEqual(["user_id"]);
    session.edit(2, 1, "bob");
    expect(session.viewRow(2).issues).toEqual([]);
    expect(session.uncheckedReferences(1000)).toMatchObject({ channels: [], users: ["bob"] });
    // An excluded row is neither asked about nor counted.
    session.exclude(1, true);
    expect(session.counts()).toMatchObject({ valid: 2, errors: 0, excluded: 1 });
  });

  it("a row with another error still shows its missing sender", () => {
    const session = new PreviewSession("messages", [
      messageColumns,
      ["general", "ghost", "MESG", "hi", "yesterday"],
      ["general", "", "MESG", "hi", "yesterday"],
    ]);
    session.chooseHeader(0);
    session.validate(messageMapping);
    const asked = session.uncheckedReferences(1000);
    expect(asked).toMatchObject({ channels: ["general"], users: ["ghost"] });
    session.referencesChecked(asked, { channels: [], users: ["ghost"] });
    expect(session.viewRow(0).issues).toEqual([
      expect.objectContaining({ field: "timestamp", severity: "error" }),
      expect.objectContaining({
        field: "user_id",
        severity: "error",
        message: expect.stringContaining('No user "ghost" on the platform'),
      }),
    ]);
    // A sender the row does not name is required, not looked up.
    expect(session.viewRow(1).issues.map((issue) => issue.message)).toEqual([
      expect.stringContaining('"yesterday" is not a time'),
      "Sender id is required.",
    ]);
  });

  it("a channel row with another error still shows its missing members", () => {
    const session = new PreviewSession("group_channels", [
      ["url", "members", "kind"],
      ["team-one", "ada;ghost", "k".repeat(129)],
    ]);
    session.chooseHeader(0);
    session.validate({ url: "channel_url", members: "user_ids", kind: "custom_type" });
    const asked = session.uncheckedReferences(1000);
    expect(asked.users).toEqual(["ada", "ghost"]);
    session.referencesChecked(asked, { channels: [], users: ["ghost"] });
    expect(session.viewRow(0).issues).toEqual([
      expect.objectContaining({ field: "custom_type", severity: "error" }),
      expect.objectContaining({
        field: "user_ids",
        severity: "warning",
        message: expect.stringContaining('"ghost"'),
      }),
    ]);
  });

  it("asks at most `limit` values of each kind and says how many more there are", () => {
    const session = new PreviewSession(
      "messages",
      records.map((row) => [...row]),
    );
    session.chooseHeader(0);
    session.validate(messageMapping);
    expect(session.uncheckedReferences(1)).toMatchObject({
      channels: ["general"],
      more: { channels: 1, users: 1 },
    });
  });
});
