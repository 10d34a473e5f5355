import { asc, count, eq } from "drizzle-orm";
import { beforeAll, describe, expect, it } from "vitest";
import {
  sandboxMessageBatches,
  sandboxMessages,
  sandboxOpenChannels,
  sandboxUsers,
} from "@/lib/db/schema";
import { ensureDefaultApplication } from "@/lib/sandbox";
import { deleteChannel } from "@/lib/sandbox/channels";
import { ErrorCode } from "@/lib/sandbox/errors";
import { fileMessages, fileStoredMessagesLater, migrateMessages } from "@/lib/sandbox/messages";
import { migrationSchema } from "@/lib/schemas/messages";
import { useTestDatabase } from "./support/test-database";

// A migration request is stored as one row of sandbox_message_batches; its messages are filed
// into sandbox_messages when migrations to the channel pause or when the history is read.
describe("sandbox: stored migration requests", () => {
  const database = useTestDatabase();
  const appId = "filing";
  const t0 = 1_600_000_000_000;

  beforeAll(async () => {
    const { db } = database;
    await ensureDefaultApplication(db, appId, undefined);
    await db
      .insert(sandboxUsers)
      .values(["ann", "bob"].map((userId) => ({ appId, userId, nickname: userId, createdAt: t0 })));
  });

  async function channel(): Promise<string> {
    const channelUrl = `channel_${Math.random().toString(36).slice(2)}`;
    await database.db
      .insert(sandboxOpenChannels)
      .values({ appId, channelUrl, name: channelUrl, createdAt: t0 / 1000 });
    return channelUrl;
  }

  const migrate = (channelUrl: string, texts: string[], sender = "ann") =>
    migrateMessages(
      database.db,
      appId,
      channelUrl,
      migrationSchema.parse({
        messages: texts.map((message, index) => ({
          user_id: sender,
          message_type: "MESG",
          message,
          timestamp: t0 + index,
        })),
      }),
    );

  const stored = async (channelUrl: string) =>
    (
      await database.db
        .select({ n: count() })
        .from(sandboxMessageBatches)
        .where(eq(sandboxMessageBatches.channelUrl, channelUrl))
    )[0]!.n;

  const filed = async (channelUrl: string) =>
    (
      await database.db
        .select({ message: sandboxMessages.message })
        .from(sandboxMessages)
        .where(eq(sandboxMessages.channelUrl, channelUrl))
        .orderBy(asc(sandboxMessages.messageId))
    ).map((row) => row.message);

  it("answers each request gathered into one statement with its own outcome", async () => {
    const [first, second] = [await channel(), await channel()];
    const outcomes = await Promise.allSettled([
      migrate(first, ["one"]),
      migrate("no_such_channel", ["lost"]),
      migrate(second, ["from nobody"], "nobody"),
      migrate(second, ["two"]),
    ]);
    expect(outcomes.map((outcome) => outcome.status)).toEqual([
      "fulfilled",
      "rejected",
      "rejected",
      "fulfilled",
    ]);
    const reasons = outcomes.map((outcome) =>
      outcome.status === "rejected" ? (outcome.reason as { code: number; message: string }) : null,
    );
    expect(reasons[1]).toMatchObject({ code: ErrorCode.notFound });
    expect(reasons[1]!.message).toContain("no_such_channel");
    expect(reasons[2]).toMatchObject({ code: ErrorCode.notFound });
    expect(reasons[2]!.message).toContain("nobody");
    expect([await stored(first), await stored(second)]).toEqual([1, 1]);
  });

  it("files the requests in the order they were stored, a few per round", async () => {
    const channelUrl = await channel();
    for (let i = 0; i < 7; i++) await migrate(channelUrl, [`${i}a`, `${i}b`]);
    expect(await stored(channelUrl)).toBe(7);
    await fileMessages(database.db, appId, channelUrl, 2);
    expect(await stored(channelUrl)).toBe(0);
    expect(await filed(channelUrl)).toEqual(
      Array.from({ length: 7 }, (_, i) => [`${i}a`, `${i}b`]).flat(),
    );
  });

  it("files every request exactly once when readers race, and each then sees them all", async () => {
    const channelUrl = await channel();
    for (let i = 0; i < 12; i++) await migrate(channelUrl, [`${i}`]);
    const seen = await Promise.all(
      [1, 2, 3, 4].map(async () => {
        await fileMessages(database.db, appId, channelUrl, 3);
        return filed(channelUrl);
      }),
    );
    const all = Array.from({ length: 12 }, (_, i) => `${i}`);
    for (const history of seen) expect(history).toEqual(all);
  });

  it("leaves no message behind when its channel is deleted while it is being filed", async () => {
    const channelUrl = await channel();
    for (let i = 0; i < 60; i++) {
      await migrate(
        channelUrl,
        Array.from({ length: 100 }, (_, n) => `${i}/${n}`),
      );
    }
    // One round of all 6,000 messages; the deletion comes while it runs (on PostgreSQL).
    const filing = fileMessages(database.db, appId, channelUrl, 1_000);
    await new Promise((resolve) => setTimeout(resolve, 15));
    await deleteChannel(database.db, appId, "open", channelUrl);
    await filing;
    await database.db
      .insert(sandboxOpenChannels)
      .values({ appId, channelUrl, name: channelUrl, createdAt: t0 / 1000 });
    expect(await filed(channelUrl)).toEqual([]);
    expect(await stored(channelUrl)).toBe(0);
  });

  it("stores nothing for a channel deleted while requests to it are being stored", async () => {
    for (let attempt = 0; attempt < 5; attempt++) {
      const channelUrl = await channel();
      const requests = Array.from({ length: 40 }, (_, i) =>
        migrate(channelUrl, [`old ${i}`]).catch(() => "refused"),
      );
      await new Promise((resolve) => setImmediate(resolve));
      await deleteChannel(database.db, appId, "open", channelUrl);
      await Promise.all(requests);
      await database.db
        .insert(sandboxOpenChannels)
        .values({ appId, channelUrl, name: channelUrl, createdAt: t0 / 1000 });
      await fileMessages(database.db, appId, channelUrl);
      expect(await filed(channelUrl), `attempt ${attempt}`).toEqual([]);
    }
  });

  it("files at start what a stop or a crash left stored", async () => {
    const channelUrl = await channel();
    // As a crash leaves it: stored, and no timer in this process to file it.
    await database.db.insert(sandboxMessageBatches).values({
      appId,
      channelUrl,
      channelType: "open",
      messages: JSON.stringify([
        { message_type: "MESG", timestamp: t0, user_id: "ann", message: "left" },
      ]),
    });
    await fileStoredMessagesLater(database.db);
    await expect.poll(() => stored(channelUrl), { timeout: 5_000 }).toBe(0);
    expect(await filed(channelUrl)).toEqual(["left"]);
  });

  it("files a channel's requests by itself once migrations to it pause", async () => {
    const channelUrl = await channel();
    await migrate(channelUrl, ["early"]);
    await new Promise((resolve) => setTimeout(resolve, 600));
    // Another request within the idle time puts the filing off.
    await migrate(channelUrl, ["late"]);
    await new Promise((resolve) => setTimeout(resolve, 600));
    expect(await stored(channelUrl)).toBe(2);
    await expect.poll(() => stored(channelUrl), { timeout: 5_000 }).toBe(0);
    expect(await filed(channelUrl)).toEqual(["early", "late"]);
  });
});
