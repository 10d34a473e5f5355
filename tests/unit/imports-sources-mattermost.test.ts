import { describe, expect, it } from "vitest";
import type { ExportRecord, MessageRecord } from "@/lib/imports/sources";
import { expected, fixtureFile, fixtureFiles, fixtureZip } from "../fixtures/exports/build";
import { readAllRecords, summaryAsExpected } from "../fixtures/exports/read";

const readZip = () =>
  readAllRecords([fixtureFile(fixtureZip("mattermost"), "export_2024-03-08.zip")]);
const message = (records: ExportRecord[], channelId: string, id: string) =>
  records.find(
    (record): record is MessageRecord =>
      record.type === "message" && record.channelId === channelId && record.id === id,
  )!;

describe("the Mattermost reader, on the hand-written bulk export", () => {
  it("finds what expected.json says, in the export's ZIP", async () => {
    const records = await readZip();
    const { summary, counts } = await summaryAsExpected(records);
    expect(counts).toEqual(expected("mattermost"));
    expect(summary.problems.total).toBe(0);
    expect(summary).toMatchObject({ format: "mattermost", name: "Acme Community" });
    // The attachments' sizes come from the ZIP.
    expect(summary.files.bytes).toBe(121 + 51 + 87);
  });

  it("reads the JSONL alone too, without the attachments' sizes", async () => {
    const jsonl = fixtureFiles("mattermost").get("import.jsonl")!;
    const records = await readAllRecords([fixtureFile(jsonl, "import.jsonl")]);
    const { summary, counts } = await summaryAsExpected(records);
    expect(counts).toEqual(expected("mattermost"));
    expect(summary.files.bytes).toBe(0);
  });

  it("reads people with their names, bots and the deactivated; channels with their memberships", async () => {
    const records = await readZip();
    const people = new Map(
      records.flatMap((record) => (record.type === "person" ? [[record.id, record]] : [])),
    );
    expect(people.get("bob")).toMatchObject({
      username: "bob",
      displayName: "Bobby",
      realName: "Bob Smith",
      email: "bob@example.com",
      isBot: false,
      deactivated: false,
      source: { path: "import.jsonl", line: 8 },
    });
    expect(people.get("carol")).toMatchObject({ displayName: "Carol Díaz" });
    expect(people.get("dave")).toMatchObject({ deactivated: true });
    expect(people.get("deploybot")).toMatchObject({ isBot: true, displayName: "Deploy Bot" });
    expect(
      records.flatMap((record) =>
        record.type === "channel" ? [[record.id, record.kind, record.name, record.archived]] : [],
      ),
    ).toEqual([
      ["acme/town-square", "public", "Town Square", false],
      ["acme/off-topic", "public", "Off-Topic", false],
      ["acme/old-project", "public", "Old Project", true],
      ["acme/leads", "private", "Leads", false],
      ["direct:alice,bob", "dm", "Alice Johnson, Bobby", false],
      ["direct:alice,bob,carol", "group_dm", "Alice Johnson, Bobby, Carol Díaz", false],
    ]);
    expect(
      records.find(
        (record) => record.type === "members" && record.channelId === "acme/old-project",
      ),
    ).toMatchObject({
      userIds: ["alice", "bob", "dave"],
      listed: true,
    });
  });

  it("reads replies, reactions, mentions, files, edits, bots and notices", async () => {
    const records = await readZip();
    const root = message(records, "acme/town-square", "1709546460000-alice");
    expect(root).toMatchObject({
      parentId: null,
      mentionIds: ["bob", "carol"],
      reactions: [
        { name: "wave", emojiId: null, userIds: ["bob", "carol"], count: 2 },
        { name: "heart", emojiId: null, userIds: ["erin"], count: 1 },
      ],
      // 11 lines, the crowd's 100, the bot, the first post: line 114.
      source: { path: "import.jsonl", line: 114 },
    });
    expect(message(records, "acme/town-square", "1709546580000-carol")).toMatchObject({
      parentId: "1709546460000-alice",
      threadRootId: "1709546460000-alice",
      edited: true,
      editedAt: 1709546700000,
      reactions: [{ name: "+1", userIds: ["alice"], count: 1 }],
    });
    expect(message(records, "acme/town-square", "1709550000000-deploybot")).toMatchObject({
      isBot: true,
    });
    expect(message(records, "acme/town-square", "1709546400000-alice")).toMatchObject({
      notice: "join",
      subtype: "system_join_channel",
    });
    expect(message(records, "acme/town-square", "1709640000000-alice")).toMatchObject({
      notice: "topic",
    });
    expect(message(records, "direct:alice,bob", "1709806060000-bob").files).toEqual([
      { id: null, name: "deploy.log", mimeType: null, size: 87, url: null, state: "available" },
    ]);
  });
});
