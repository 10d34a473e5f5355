import { describe, expect, it } from "vitest";
import type { ExportRecord, MessageRecord } from "@/lib/imports/sources";
import { expected, fixtureFile, fixtureFiles, fixtureZip } from "../fixtures/exports/build";
import { readAllRecords, summaryAsExpected } from "../fixtures/exports/read";

const looseFiles = (change: Record<string, string | null> = {}) =>
  [...fixtureFiles("discord", change)].map(([name, text]) => fixtureFile(text, name));
const message = (records: ExportRecord[], id: string) =>
  records.find((record): record is MessageRecord => record.type === "message" && record.id === id)!;
const general = "Acme Community - Text Channels - general [1100000000000000002].json";

describe("the Discord reader, on the hand-written DiscordChatExporter files", () => {
  it("finds what expected.json says, from the files dropped side by side and from their ZIP alike", async () => {
    const records = await readAllRecords(looseFiles());
    const { summary, counts } = await summaryAsExpected(records);
    expect(counts).toEqual(expected("discord"));
    expect(summary.problems.total).toBe(0);
    expect(summary).toMatchObject({ format: "discord", name: "Acme Community" });
    const zipped = await readAllRecords([fixtureFile(fixtureZip("discord"), "acme-discord.zip")]);
    expect(zipped.slice(1)).toEqual(records.slice(1));
    expect(zipped[0]).toMatchObject({ type: "export", source: { path: "acme-discord.zip" } });
  });

  it("makes people of authors, reactions and mentions, each before the message that names them", async () => {
    const records = await readAllRecords(looseFiles());
    const people = new Map<string, ExportRecord>();
    for (const record of records) {
      if (record.type === "person") people.set(record.id, record);
      if (record.type === "message") {
        for (const id of [
          record.senderId!,
          ...record.mentionIds,
          ...record.reactions.flatMap((reaction) => reaction.userIds),
        ])
          expect(people.has(id)).toBe(true);
      }
    }
    expect(people.get("1000000000000000002")).toMatchObject({
      username: "bob",
      displayName: "Bobby",
      email: null,
      isBot: false,
      deactivated: false,
      fromMessages: true,
    });
    expect(people.get("1000000000000000004")).toMatchObject({ deactivated: true });
    expect(people.get("1000000000000000006")).toMatchObject({
      isBot: true,
      displayName: "Deploy Bot",
    });
  });

  it("reads channels of every kind; a channel filed under Archive is archived", async () => {
    const records = await readAllRecords(looseFiles());
    expect(
      records.flatMap((record) =>
        record.type === "channel" ? [[record.id, record.kind, record.name, record.archived]] : [],
      ),
    ).toEqual([
      ["1100000000000000001", "public", "welcome", false],
      ["1100000000000000002", "public", "general", false],
      ["1100000000000000003", "public", "old-announcements", true],
      ["1200000000000000001", "dm", "bob", false],
      ["1200000000000000002", "group_dm", "alice, bob, carol", false],
    ]);
    // The channel's time, from its snowflake id.
    expect(records.find((record) => record.type === "channel")).toMatchObject({
      topic: "Read the rules, then say hi",
      createdAt: 1682330837011, // 2023-04-24T10:07:17.011Z
    });
  });

  it("attaches a reply to a reply to the top of its chain, and reads reactions, files, edits and notices", async () => {
    const records = await readAllRecords(looseFiles());
    expect(message(records, "1214150848020480000")).toMatchObject({
      parentId: "1214150344704000000",
      threadRootId: "1214150344704000000",
    });
    expect(message(records, "1214151602995200000")).toMatchObject({
      parentId: "1214150848020480000",
      threadRootId: "1214150344704000000",
    });
    expect(message(records, "1214150344704000000")).toMatchObject({
      createdAt: Date.parse("2024-03-04T10:00:00Z"),
      mentionIds: ["1000000000000000002"],
      reactions: [
        {
          name: "partyparrot",
          emojiId: "1097000000000000042",
          userIds: ["1000000000000000002", "1000000000000000003"],
          count: 2,
        },
        { name: "👍", emojiId: null, userIds: ["1000000000000000005"], count: 1 },
      ],
      source: { path: general, item: 1 },
    });
    expect(message(records, "1214165444198400000")).toMatchObject({
      edited: true,
      editedAt: Date.parse("2024-03-04T11:05:00Z"),
      files: [
        {
          id: "1214165444198400001",
          name: "dashboard.png",
          size: 234567,
          url: "https://cdn.discordapp.com/attachments/1100000000000000002/1214165444198400001/dashboard.png",
          state: "available",
        },
      ],
    });
    // A pin names the pinned message, but is no reply to it.
    expect(message(records, "1211236393943040000")).toMatchObject({
      notice: "pin",
      parentId: null,
    });
    expect(message(records, "1215222408806400000")).toMatchObject({
      notice: "join",
      mentionIds: [],
    });
    expect(message(records, "1214157894451200000")).toMatchObject({ isBot: true });
  });

  it("reads a channel split into parts as one channel, and a thread under its channel", async () => {
    const text = fixtureFiles("discord").get(general)!;
    const document = JSON.parse(text) as { messages: unknown[]; messageCount: number };
    const part = (messages: unknown[]) =>
      JSON.stringify({ ...document, messages, messageCount: messages.length });
    const thread = JSON.stringify({
      ...document,
      channel: {
        id: "1214150344704000000",
        type: "GuildPublicThread",
        categoryId: "1100000000000000002",
        category: "general",
        name: "Launch checklist",
        topic: null,
      },
      messages: [],
      messageCount: 0,
    });
    const records = await readAllRecords(
      looseFiles({
        [general]: null,
        "Acme Community - Text Channels - general [1100000000000000002] [part 1].json": part(
          document.messages.slice(0, 3),
        ),
        "Acme Community - Text Channels - general [1100000000000000002] [part 2].json": part(
          document.messages.slice(3),
        ),
        "Acme Community - general - Launch checklist [1214150344704000000].json": thread,
      }),
    );
    const channels = records.filter((record) => record.type === "channel");
    expect(channels.filter((channel) => channel.id === "1100000000000000002")).toHaveLength(1);
    expect(channels.find((channel) => channel.id === "1214150344704000000")).toMatchObject({
      kind: "public",
      parentChannelId: "1100000000000000002",
      archived: false,
    });
    const { counts } = await summaryAsExpected(records);
    expect(counts.messages).toBe(expected("discord").messages);
    expect(counts.members["1100000000000000002"]).toBe(6);
    expect(records.filter((record) => record.type === "problem")).toEqual([]);
  });

  it("says when a file lists messages newest first, and when a reply's root is not in the export", async () => {
    const text = fixtureFiles("discord").get(general)!;
    const document = JSON.parse(text) as { messages: Array<{ id: string }> };
    const records = await readAllRecords(
      looseFiles({
        [general]: JSON.stringify({
          ...document,
          // Newest first, and the first message gone (deleted before the export).
          messages: document.messages.slice(1).reverse(),
        }),
      }),
    );
    const problems = records.filter((record) => record.type === "problem");
    expect(problems.map((problem) => problem.code)).toEqual(["reversed-order", "missing-root"]);
    expect(problems[1]!.message).toContain(
      "answer message 1214150344704000000, which is not in the export",
    );
    // Read newest first, the reply to the reply found its parent before the root was due.
    expect(problems[1]!.message).toContain("1 reply in #general");
  });
});
