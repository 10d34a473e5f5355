import { describe, expect, it } from "vitest";
import {
  compareChannel,
  compareChannelMessages,
  compareMessage,
  compareUser,
  matchMessages,
  parseReactions,
  type ExpectedMessage,
} from "@/lib/imports/jobs/verify/compare";
import {
  expectedChannel,
  expectedMessage,
  expectedUser,
  mappedCell,
} from "@/lib/imports/jobs/verify/expected";
import { csvLine } from "@/lib/imports/jobs/report/csv";
import type { MessageResource } from "@/lib/schemas/messages";
import { listedMessage } from "@/tests/fixtures/messages";

const channel = "general";

const listed = (overrides: Partial<MessageResource> & { message_id: number }) =>
  listedMessage({ channel_url: channel, ...overrides });

const mark = (dedup: string) => [{ key: "import_dedup_id", value: [dedup] }];

function row(overrides: Partial<ExpectedMessage> = {}): ExpectedMessage {
  return {
    rowIndex: 0,
    dedupId: "d0",
    type: "MESG",
    sender: "ann",
    text: "hello",
    timestamp: 1_700_000_000_000,
    customType: "",
    data: "",
    mentions: [],
    ...overrides,
  };
}

describe("Verify's message comparison", () => {
  it("matches a row by the dedup id its message carries, and finds nothing when every field agrees", () => {
    const outcome = compareChannelMessages(
      channel,
      [row()],
      [listed({ message_id: 7, sorted_metaarray: mark("d0") })],
    );
    expect(outcome).toEqual({ matched: 1, findings: [] });
  });

  it("names each field that differs: sender, text, time, type, custom type, data, mentions, file", () => {
    const expected = row({
      type: "FILE",
      text: undefined,
      data: "x",
      customType: "note",
      mentions: ["bob", "cy"],
      file: { url: "https://files/a.png", name: "a.png", type: "image/png", size: 10 },
    });
    const actual = listed({
      message_id: 1,
      type: "MESG",
      data: "y",
      custom_type: "",
      mentioned_users: [{ user_id: "bob", nickname: "", profile_url: "" }],
      user: { user_id: "dan", nickname: "", profile_url: "" },
      file: { url: "https://files/b.png", name: "a.png", type: "image/png", size: 10, data: "" },
      sorted_metaarray: mark("d0"),
    });
    const fields = compareMessage(channel, expected, actual).map((finding) => finding.field);
    expect(fields).toEqual(["type", "sender", "custom_type", "data", "mentions", "file.url"]);
    const time = compareMessage(channel, row(), listed({ message_id: 1, created_at: 5 }));
    expect(time).toMatchObject([{ kind: "different", field: "time", rowIndex: 0 }]);
    expect(time[0]!.reason).toBe("time: imported 1700000000000, the target has 5.");
  });

  it("falls back to time and sender for a message without the mark, never taking one marked for another row", () => {
    const rows = [row({ dedupId: "a" }), row({ rowIndex: 1, dedupId: "b", text: "second" })];
    const messages = [
      listed({ message_id: 1, sorted_metaarray: mark("a") }),
      listed({ message_id: 2, message: "second" }),
    ];
    const { pairs, unmatchedRows, unmatchedMessages } = matchMessages(rows, messages);
    expect(pairs.map(([r, m]) => [r.rowIndex, m.message_id])).toEqual([
      [0, 1],
      [1, 2],
    ]);
    expect(unmatchedRows).toEqual([]);
    expect(unmatchedMessages).toEqual([]);
    // A marked message of another row is not taken by time and sender.
    const stolen = matchMessages([row({ dedupId: "c" })], [messages[0]!]);
    expect(stolen.unmatchedRows).toHaveLength(1);
  });

  it("lists a row with no message as missing and a message no row accounts for as extra (within the rows' time span)", () => {
    const rows = [
      row({ dedupId: "a" }),
      row({ rowIndex: 1, dedupId: "b", timestamp: 1_700_000_001_000 }),
    ];
    const outcome = compareChannelMessages(channel, rows, [
      listed({ message_id: 1, sorted_metaarray: mark("a") }),
      listed({ message_id: 2, created_at: 1_700_000_000_500, sorted_metaarray: mark("zzz") }),
      // Before the import's first message: the channel's own history, not an extra.
      listed({ message_id: 3, created_at: 1_600_000_000_000 }),
    ]);
    expect(outcome.matched).toBe(1);
    expect(outcome.findings.map((f) => [f.kind, f.rowIndex])).toEqual([
      ["missing", 1],
      ["extra", null],
    ]);
    expect(outcome.findings[1]!.reason).toContain("Message 2");
  });

  it("compares reactions as sets of people per key, when the row has them", () => {
    const withReactions = row({
      reactions: [
        { key: "thumbsup", user_ids: ["alice", "bob"] },
        { key: "heart", user_ids: ["carol"] },
      ],
    });
    const same = listed({
      message_id: 1,
      reactions: [
        { key: "heart", user_ids: ["carol"], updated_at: 1 },
        { key: "thumbsup", user_ids: ["bob", "alice"], updated_at: 1 },
      ],
    });
    expect(compareMessage(channel, withReactions, same)).toEqual([]);
    const removed = listed({
      message_id: 1,
      reactions: [
        { key: "thumbsup", user_ids: ["alice"], updated_at: 1 },
        { key: "heart", user_ids: ["carol", "dan"], updated_at: 1 },
      ],
    });
    expect(compareMessage(channel, withReactions, removed)).toEqual([
      {
        kind: "different",
        rowIndex: 0,
        key: expect.stringContaining("general"),
        field: "reactions",
        reason: 'reactions: "thumbsup" by "bob" is missing; "heart" by "dan" was not imported.',
      },
    ]);
    // A row that says nothing of reactions is not compared for them.
    expect(compareMessage(channel, row(), removed)).toEqual([]);
  });

  it("compares a reply's parent by the root's mark, by the root's time and sender when unread, and a root as no reply", () => {
    const root = listed({ message_id: 10, sorted_metaarray: mark("root") });
    const other = listed({ message_id: 11, sorted_metaarray: mark("other"), created_at: 1 });
    const reply = (parent: number, info?: MessageResource["parent_message_info"]) =>
      listed({
        message_id: 12,
        parent_message_id: parent,
        parent_message_info: info,
        sorted_metaarray: mark("r"),
      });
    const expected = row({
      dedupId: "r",
      parent: { dedupId: "root", timestamp: root.created_at, sender: "ann" },
    });
    const byId = new Map([root, other].map((m) => [m.message_id, m]));
    const parentOf = (id: number) => byId.get(id);
    expect(compareMessage(channel, expected, reply(10), parentOf)).toEqual([]);
    expect(compareMessage(channel, expected, reply(11), parentOf)).toMatchObject([
      { field: "parent", reason: expect.stringContaining("not its root") },
    ]);
    expect(compareMessage(channel, expected, reply(0), parentOf)).toMatchObject([
      { field: "parent", reason: "parent: a reply in the import, not a reply on the target." },
    ]);
    // The root was not read (a sample): the reply's own view of it decides.
    const info = {
      message: "",
      type: "MESG" as const,
      custom_type: "",
      ts: root.created_at,
      user: root.user,
    };
    expect(compareMessage(channel, expected, reply(99, info))).toEqual([]);
    expect(compareMessage(channel, expected, reply(99, { ...info, ts: 1 }))).toMatchObject([
      { field: "parent" },
    ]);
    // A root in the import must be no reply on the target.
    expect(compareMessage(channel, row({ parent: null }), reply(10), parentOf)).toMatchObject([
      { field: "parent", reason: expect.stringContaining("not a reply in the import") },
    ]);
  });

  it("reads reactions cells as CSV and as a JSON array, and refuses anything else", () => {
    expect(parseReactions("thumbsup:alice;bob|heart:carol")).toEqual([
      { key: "thumbsup", user_ids: ["alice", "bob"] },
      { key: "heart", user_ids: ["carol"] },
    ]);
    expect(parseReactions('[{"key":"heart","user_ids":["carol"]}]')).toEqual([
      { key: "heart", user_ids: ["carol"] },
    ]);
    expect(parseReactions("")).toEqual([]);
    expect(parseReactions("no colon")).toBeNull();
    expect(parseReactions('[{"key":1}]')).toBeNull();
  });

  it("reads parent and reactions from the row's cells through the job's mapping and transforms", () => {
    const job = {
      columns: ["channel", "id", "reply_to", "likes"],
      mapping: {
        channel: "channel_url",
        id: "source_id",
        reply_to: "parent_id",
        likes: "reactions",
      },
      transforms: { reply_to: { replace: { pattern: "^old-", replacement: "" } } },
    };
    const values = ["general", "m2", "old-m1", "thumbsup:ann"];
    expect(mappedCell(job, values, "parent_id")).toBe("m1");
    const roots = new Map([["m1", { dedupId: "root", timestamp: 5, sender: "ann" }]]);
    const expected = expectedMessage(
      job,
      {
        rowIndex: 3,
        state: "created",
        values,
        body: { message_type: "MESG", user_id: "ann", message: "hi", timestamp: 9, dedup_id: "x" },
        followUps: null,
      },
      roots,
    );
    expect(expected).toMatchObject({
      rowIndex: 3,
      dedupId: "x",
      parent: { dedupId: "root" },
      reactions: [{ key: "thumbsup", user_ids: ["ann"] }],
    });
    // Without those columns in the mapping, neither is compared.
    const plain = expectedMessage(
      { ...job, mapping: { channel: "channel_url" } },
      { ...expected, values, state: "created", body: {}, followUps: null },
      roots,
    );
    expect(plain.parent).toBeUndefined();
    expect(plain.reactions).toBeUndefined();
  });
});

describe("Verify's users and channels", () => {
  it("compares nickname, profile URL, metadata and the active state as imported", () => {
    const expected = expectedUser({
      rowIndex: 2,
      state: "created",
      values: [],
      body: { user_id: "ann", nickname: "Ann", profile_url: "", metadata: { team: "a" } },
      followUps: { deactivate: true },
    });
    const actual = {
      user_id: "ann",
      nickname: "Ann",
      profile_url: "",
      is_active: true,
      metadata: { team: "b" },
    };
    expect(compareUser(expected, actual).map((f) => f.field)).toEqual([
      "is_active",
      "metadata.team",
    ]);
    expect(compareUser(expected, undefined)).toMatchObject([{ kind: "missing", rowIndex: 2 }]);
    // A user that was there before the import is only looked for: the import overwrote nothing.
    const existed = expectedUser({
      rowIndex: 2,
      state: "existed",
      values: [],
      body: { user_id: "ann" },
      followUps: null,
    });
    expect(compareUser(existed, { ...actual, nickname: "Someone" })).toEqual([]);
  });

  it("expects a deactivation or a freeze only once the migration's last stage has made it", () => {
    const row = {
      rowIndex: 3,
      state: "created",
      values: [],
      body: { user_id: "bob", nickname: "Bob", profile_url: "", name: "General" },
      followUps: { deactivate: true, freeze: true },
    };
    expect(expectedUser({ ...row, lastStageDone: false }).isActive).toBe(true);
    expect(expectedUser({ ...row, lastStageDone: true }).isActive).toBe(false);
    expect(
      expectedChannel({ ...row, lastStageDone: false }, true, "c").fields.freeze,
    ).toBeUndefined();
    expect(expectedChannel({ ...row, lastStageDone: true }, true, "c").fields.freeze).toBe(true);
  });

  it("names the members a channel has lost", () => {
    const expected = {
      rowIndex: 0,
      channelUrl: "room",
      existenceOnly: false,
      fields: { name: "Room" },
      members: ["ann", "bob", "cy"],
    };
    expect(compareChannel(expected, { fields: { name: "Room" }, members: ["ann", "cy"] })).toEqual([
      {
        kind: "different",
        rowIndex: 0,
        key: "room",
        field: "members",
        reason: 'members: "bob" is not a member on the target.',
      },
    ]);
  });

  it("writes report cells a spreadsheet would run as text", () => {
    expect(csvLine(["different", "=HYPERLINK(1)", "a,b"])).toBe(
      `different,'=HYPERLINK(1),"a,b"\r\n`,
    );
  });
});
