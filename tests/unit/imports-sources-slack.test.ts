import { zipSync, strToU8 } from "fflate";
import { describe, expect, it } from "vitest";
import type { ExportRecord, MessageRecord } from "@/lib/imports/sources";
import { expected, fixtureFile, fixtureFiles, fixtureZip } from "../fixtures/exports/build";
import { readAllRecords, summaryAsExpected } from "../fixtures/exports/read";

const zipName = "Acme Slack export Nov 20 2023 - Mar 8 2024.zip";
const read = (bytes = fixtureZip("slack")) => readAllRecords([fixtureFile(bytes, zipName)]);
const message = (records: ExportRecord[], channelId: string, id: string) =>
  records.find(
    (record): record is MessageRecord =>
      record.type === "message" && record.channelId === channelId && record.id === id,
  )!;

describe("the Slack reader, on the hand-written export", () => {
  it("finds what expected.json says the export holds, and no problem", async () => {
    const records = await read();
    const { summary, counts } = await summaryAsExpected(records);
    expect(counts).toEqual(expected("slack"));
    expect(summary.problems.total).toBe(0);
    expect(summary.format).toBe("slack");
    expect(summary.name).toBe("Acme Slack export Nov 20 2023 - Mar 8 2024");
    expect(summary.conversations.public).toMatchObject({ largest: 104, over100: 1 });
  });

  it("yields people, then conversations with their members, then messages; each message's sender first", async () => {
    const records = await read();
    expect(records[0]).toMatchObject({ type: "export", format: "slack" });
    const seen = new Set<string>();
    const channels = new Set<string>();
    let lastKind = "";
    for (const record of records) {
      if (record.type === "person") {
        expect(lastKind).not.toBe("message");
        seen.add(record.id);
      }
      if (record.type === "channel") channels.add(record.id);
      if (record.type === "members") expect(channels.has(record.channelId)).toBe(true);
      if (record.type === "message") {
        expect(channels.has(record.channelId)).toBe(true);
        if (record.senderId) expect(seen.has(record.senderId)).toBe(true);
      }
      lastKind = record.type;
    }
  });

  it("reads people: names, email, avatar, bots and the deleted", async () => {
    const records = await read();
    const people = new Map(
      records.flatMap((record) => (record.type === "person" ? [[record.id, record]] : [])),
    );
    expect(people.get("U02BOB")).toMatchObject({
      username: "bob",
      displayName: "Bobby",
      realName: "Bob Smith",
      email: "bob@example.com",
      avatarUrl: "https://avatars.slack-edge.com/2023-02-01/bob_512.png",
      isBot: false,
      deactivated: false,
      fromMessages: false,
      source: { path: "users.json", item: 2 },
    });
    // No display name: the real name is shown.
    expect(people.get("U03CAROL")).toMatchObject({ displayName: "Carol Díaz" });
    expect(people.get("U04DAVE")).toMatchObject({ deactivated: true, email: null });
    expect(people.get("U06DEPLOY")).toMatchObject({ isBot: true });
    expect(people.get("USLACKBOT")).toMatchObject({ isBot: true });
  });

  it("reads conversations of every kind, with their members", async () => {
    const records = await read();
    const channels = records.filter((record) => record.type === "channel");
    expect(
      channels.map((channel) => [channel.id, channel.kind, channel.name, channel.archived]),
    ).toEqual([
      ["C01GENERAL", "public", "general", false],
      ["C02RANDOM", "public", "random", false],
      ["C03OLDPROJ", "public", "old-project", true],
      ["G01LEADS", "private", "leads", false],
      ["G02PARTY", "group_dm", "mpdm-alice--bob--carol-1", false],
      ["D01ALICEBOB", "dm", "alice, Bobby", false],
    ]);
    expect(channels[0]).toMatchObject({
      topic: "Company-wide announcements",
      purpose: "This is the one channel that will always include everyone.",
      createdAt: 1704103200000,
      creatorId: "U01ALICE",
    });
    expect(channels[1]!.topic).toBeNull();
    const members = records.find(
      (record) => record.type === "members" && record.channelId === "D01ALICEBOB",
    );
    expect(members).toMatchObject({ userIds: ["U01ALICE", "U02BOB"], listed: true });
  });

  it("reads threads, reactions, mentions, files, edits, bots and notices as Slack writes them", async () => {
    const records = await read();
    const root = message(records, "C01GENERAL", "1709546460.000200");
    expect(root).toMatchObject({
      senderId: "U01ALICE",
      createdAt: 1709546460000,
      parentId: null,
      notice: null,
      reactions: [
        { name: "wave", emojiId: null, userIds: ["U02BOB", "U03CAROL"], count: 2 },
        { name: "heart", emojiId: null, userIds: ["U05ERIN"], count: 1 },
      ],
      // A channel link is not a mention of a person.
      mentionIds: [],
      source: { path: "general/2024-03-04.json", item: 2 },
    });
    expect(message(records, "C01GENERAL", "1709546520.000300")).toMatchObject({
      parentId: "1709546460.000200",
      threadRootId: "1709546460.000200",
      mentionIds: ["U01ALICE"],
    });
    expect(message(records, "C01GENERAL", "1709546580.000400")).toMatchObject({
      edited: true,
      editedAt: 1709546700000,
      reactions: [{ name: "+1::skin-tone-2", userIds: ["U01ALICE"], count: 1 }],
    });
    expect(message(records, "C01GENERAL", "1709633100.000500")).toMatchObject({
      subtype: "thread_broadcast",
      parentId: "1709546460.000200",
      alsoInChannel: true,
    });
    expect(message(records, "C01GENERAL", "1709550000.000700")).toMatchObject({
      senderId: "U06DEPLOY",
      isBot: true,
      subtype: "bot_message",
      text: "Deploy *v1.2.3* finished on production :rocket:",
    });
    expect(message(records, "C01GENERAL", "1709546400.000100")).toMatchObject({
      notice: "join",
      subtype: "channel_join",
      mentionIds: [],
    });
    expect(message(records, "C01GENERAL", "1709640000.000300")).toMatchObject({ notice: "topic" });
    expect(message(records, "C03OLDPROJ", "1700560800.000100")).toMatchObject({
      notice: "archive",
    });
    expect(message(records, "C01GENERAL", "1709632800.000100").files).toEqual([
      {
        id: "F01ROADMAP",
        name: "roadmap-q2.pdf",
        mimeType: "application/pdf",
        size: 48213,
        url: "https://files.slack.com/files-pri/T01ACME-F01ROADMAP/roadmap-q2.pdf",
        state: "available",
      },
    ]);
    expect(message(records, "G01LEADS", "1709719260.000200").files[1]).toMatchObject({
      id: "F03OLDCHART",
      state: "hidden",
      url: null,
    });
    expect(message(records, "D01ALICEBOB", "1709806060.000200").files[0]).toMatchObject({
      state: "deleted",
    });
    // A deleted person's reply keeps its sender.
    expect(message(records, "C03OLDPROJ", "1700474520.000300").senderId).toBe("U04DAVE");
  });

  it("reads messages in time order within each conversation", async () => {
    const records = await read();
    const byChannel = new Map<string, number[]>();
    for (const record of records)
      if (record.type === "message")
        byChannel.set(record.channelId, [
          ...(byChannel.get(record.channelId) ?? []),
          record.createdAt,
        ]);
    for (const times of byChannel.values()) expect(times).toEqual([...times].sort((a, b) => a - b));
  });

  it("reads the same export re-zipped inside a folder, and with users.json last in the ZIP", async () => {
    const plain = await read();
    const strip = (records: ExportRecord[]) =>
      records.map((record) => ("source" in record ? { ...record, source: null } : record));
    const inFolder = await read(fixtureZip("slack", {}, "Acme Slack export/"));
    expect(strip(inFolder)).toEqual(strip(plain));
    const files = [...fixtureFiles("slack")].sort(([a], [b]) =>
      a.endsWith("users.json") ? 1 : b.endsWith("users.json") ? -1 : a < b ? 1 : -1,
    );
    const reordered = zipSync(
      Object.fromEntries(files.map(([path, text]) => [path, strToU8(text)])),
    );
    expect(await read(reordered)).toEqual(plain);
  });
});
