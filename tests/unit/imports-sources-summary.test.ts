import { describe, expect, it } from "vitest";
import {
  communitySummarySchema,
  summarize,
  type ExportRecord,
  type MessageRecord,
} from "@/lib/imports/sources";

const source = { path: "x.json", item: 1 };
const person = (
  id: string,
  isBot = false,
  deactivated = false,
  fromMessages = false,
): ExportRecord => ({
  type: "person",
  id,
  username: id,
  displayName: id,
  realName: null,
  email: null,
  avatarUrl: null,
  isBot,
  deactivated,
  fromMessages,
  source,
});
const channel = (
  id: string,
  kind: "public" | "private" | "dm" | "group_dm",
  archived = false,
): ExportRecord => ({
  type: "channel",
  id,
  kind,
  name: id,
  topic: null,
  purpose: null,
  createdAt: null,
  creatorId: null,
  archived,
  parentChannelId: null,
  source,
});
const message = (
  channelId: string,
  id: string,
  at: number,
  more: Partial<MessageRecord> = {},
): ExportRecord => ({
  type: "message",
  channelId,
  id,
  senderId: "a",
  createdAt: at,
  text: "",
  subtype: null,
  notice: null,
  parentId: null,
  threadRootId: null,
  alsoInChannel: false,
  reactions: [],
  files: [],
  mentionIds: [],
  edited: false,
  editedAt: null,
  isBot: false,
  source,
  ...more,
});

describe("the community summary", () => {
  it("counts people apart by bot and deactivated, and conversations by kind with their members", async () => {
    const crowd = Array.from({ length: 101 }, (_, at) => `u${at}`);
    const summary = await summarize([
      { type: "export", format: "slack", name: "Acme", source: { path: "acme.zip" } },
      person("a"),
      person("bot", true),
      person("gone", false, true),
      // A deactivated bot is a bot.
      person("oldbot", true, true),
      person("guest", false, false, true),
      channel("big", "public"),
      channel("small", "private", true),
      channel("d1", "dm"),
      { type: "members", channelId: "big", userIds: crowd, listed: true, source },
      { type: "members", channelId: "small", userIds: ["a", "gone"], listed: true, source },
      { type: "members", channelId: "d1", userIds: ["a", "guest"], listed: true, source },
      message("big", "1", 3000),
      message("big", "2", 1000, { parentId: "1", threadRootId: "1" }),
      message("big", "3", 2000, { parentId: "2", threadRootId: "1", edited: true }),
      message("small", "1", 5000, { parentId: "9", threadRootId: "9", isBot: true }),
      message("d1", "1", 4000, {
        notice: "join",
        reactions: [{ name: "wave", emojiId: null, userIds: ["a"], count: 3 }],
        files: [
          { id: null, name: "a.png", mimeType: null, size: 10, url: null, state: "available" },
        ],
        mentionIds: ["a", "guest"],
      }),
    ]);
    expect(communitySummarySchema.parse(summary)).toEqual(summary);
    expect(summary.people).toEqual({
      total: 5,
      active: 2,
      bots: 2,
      deactivated: 1,
      fromMessages: 1,
    });
    expect(summary.conversations.public).toEqual({
      conversations: 1,
      members: 101,
      largest: 101,
      over100: 1,
      messages: 3,
    });
    expect(summary.conversations.private).toMatchObject({
      conversations: 1,
      members: 2,
      messages: 1,
    });
    expect(summary.conversations.dm).toMatchObject({ conversations: 1, members: 2, messages: 1 });
    expect(summary.archived).toBe(1);
    // DMs are counted, not listed; channels most messages first.
    expect(summary.channels.map((listed) => [listed.id, listed.members, listed.messages])).toEqual([
      ["big", 101, 3],
      ["small", 2, 1],
    ]);
    expect(summary.messages).toEqual({
      total: 5,
      replies: 3,
      // One root per thread, in its own channel: "1" in big, "9" in small.
      threads: 2,
      notices: 1,
      joins: 1,
      fromBots: 1,
      edited: 1,
      withMentions: 1,
      mentions: 2,
    });
    expect(summary.reactions).toEqual({ entries: 1, total: 3, messages: 1 });
    expect(summary.files).toEqual({ total: 1, available: 1, deleted: 0, hidden: 0, bytes: 10 });
    expect([summary.firstMessageAt, summary.lastMessageAt]).toEqual([1000, 5000]);
  });

  it("counts problems by kind and keeps the first fifty to show", async () => {
    const problems = Array.from({ length: 60 }, (_, at): ExportRecord => ({
      type: "problem",
      code: at % 2 ? "duplicate-id" : "unknown-person",
      message: `problem ${at}`,
      skipped: 1,
      source,
    }));
    const summary = await summarize(problems);
    expect(summary.problems.total).toBe(60);
    expect(summary.problems.byCode).toEqual({ "duplicate-id": 30, "unknown-person": 30 });
    expect(summary.problems.first.map((problem) => problem.message)).toEqual(
      problems.slice(0, 50).map((problem) => (problem.type === "problem" ? problem.message : "")),
    );
    expect(summary.firstMessageAt).toBeNull();
  });
});
