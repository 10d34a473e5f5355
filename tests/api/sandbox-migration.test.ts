import { beforeAll, describe, expect, it } from "vitest";
import type { MessageResource as Message } from "@/lib/schemas/messages";
import { createUsers } from "../fixtures/chat";
import { call, expectPlatformError, sharedSandbox, uniqueId } from "./support/http";

const sandbox = sharedSandbox();
const t0 = 1_600_000_000_000;

const migrate = (channelUrl: string, body: unknown) =>
  call(sandbox, "POST", `/v3/migration/${channelUrl}`, body);

async function messagesOf(
  channelUrl: string,
  type: "group" | "open" = "group",
  query = "next_limit=200",
) {
  const response = await call<{ messages: Message[] }>(
    sandbox,
    "GET",
    `/v3/${type}_channels/${channelUrl}/messages?${query}`,
  );
  expect(response.status, JSON.stringify(response.body)).toBe(200);
  return response.body.messages;
}

describe("sandbox: message migration", () => {
  let sender: string;
  let other: string;

  beforeAll(async () => {
    [sender, other] = (await createUsers(sandbox, 2, "sender")) as [string, string];
  });

  async function groupChannel(): Promise<string> {
    const response = await call<{ channel_url: string }>(sandbox, "POST", "/v3/group_channels", {
      user_ids: [sender, other],
    });
    return response.body.channel_url;
  }

  const message = (i: number, extra: Record<string, unknown> = {}) => ({
    user_id: sender,
    message_type: "MESG",
    message: `message ${i}`,
    timestamp: t0 + i,
    ...extra,
  });

  it("stores MESG, FILE and ADMM messages in a group channel and answers {}", async () => {
    const channelUrl = await groupChannel();
    const response = await migrate(channelUrl, {
      messages: [
        message(1, { custom_type: "greeting", data: '{"k":1}' }),
        message(2, { message_type: "FILE", user_id: other }),
        message(3, { message_type: "ADMM" }),
      ],
      update_read_ts: true,
    });
    expect(response.status).toBe(200);
    expect(response.body).toEqual({});
    const stored = await messagesOf(channelUrl);
    expect(stored.map((m) => [m.type, m.message, m.created_at, m.user.user_id])).toEqual([
      ["MESG", "message 1", t0 + 1, sender],
      ["FILE", "message 2", t0 + 2, other],
      ["ADMM", "message 3", t0 + 3, sender],
    ]);
    expect(stored[0]).toMatchObject({
      custom_type: "greeting",
      data: '{"k":1}',
      channel_url: channelUrl,
      channel_type: "group",
      user: { user_id: sender, nickname: `nick ${sender}`, profile_url: "" },
    });
  });

  it("stores messages in an open channel too", async () => {
    const channelUrl = uniqueId("open");
    await call(sandbox, "POST", "/v3/open_channels", { channel_url: channelUrl });
    expect((await migrate(channelUrl, { messages: [message(1)] })).status).toBe(200);
    expect((await messagesOf(channelUrl, "open")).map((m) => m.channel_type)).toEqual(["open"]);
    expectPlatformError(
      await call(sandbox, "GET", `/v3/group_channels/${channelUrl}/messages`),
      400,
      400201,
    );
  });

  it("refuses a channel that does not exist (400201)", async () => {
    expectPlatformError(
      await migrate(uniqueId("missing"), { messages: [message(1)] }),
      400,
      400201,
    );
  });

  it("refuses a whole request when one sender does not exist (400201), storing nothing", async () => {
    const channelUrl = await groupChannel();
    const response = await migrate(channelUrl, {
      messages: [message(1), message(2, { user_id: "ghost_sender" }), message(3)],
    });
    const body = expectPlatformError(response, 400, 400201);
    expect(body.message).toContain("ghost_sender");
    expect(await messagesOf(channelUrl)).toEqual([]);
  });

  it("accepts 100 messages and refuses 101 (400111)", async () => {
    const channelUrl = await groupChannel();
    const hundred = Array.from({ length: 100 }, (_, i) => message(i));
    expect((await migrate(channelUrl, { messages: hundred })).status).toBe(200);
    expect(await messagesOf(channelUrl)).toHaveLength(100);
    const other = await groupChannel();
    expectPlatformError(
      await migrate(other, { messages: [...hundred, message(100)] }),
      400,
      400111,
    );
    expect(await messagesOf(other)).toEqual([]);
  });

  it("stores a repeated dedup_id once, across requests and within one", async () => {
    const channelUrl = await groupChannel();
    const batch = {
      messages: [message(1, { dedup_id: "a" }), message(2, { dedup_id: "b" }), message(3)],
    };
    expect((await migrate(channelUrl, batch)).status).toBe(200);
    // A retried request: the dedup'd messages are skipped, the one without dedup_id is stored again.
    expect((await migrate(channelUrl, batch)).status).toBe(200);
    expect(
      (
        await migrate(channelUrl, {
          messages: [message(4, { dedup_id: "c" }), message(5, { dedup_id: "c" })],
        })
      ).status,
    ).toBe(200);
    const stored = await messagesOf(channelUrl);
    expect(stored.map((m) => m.message)).toEqual([
      "message 1",
      "message 2",
      "message 3",
      "message 3",
      "message 4",
    ]);
  });

  it("keeps dedup_ids apart per channel", async () => {
    const [first, second] = [await groupChannel(), await groupChannel()];
    await migrate(first, { messages: [message(1, { dedup_id: "same" })] });
    await migrate(second, { messages: [message(1, { dedup_id: "same" })] });
    expect(await messagesOf(first)).toHaveLength(1);
    expect(await messagesOf(second)).toHaveLength(1);
  });

  it("stores a dedup_id once when requests race", async () => {
    const channelUrl = await groupChannel();
    const responses = await Promise.all(
      Array.from({ length: 6 }, () =>
        migrate(channelUrl, { messages: [message(1, { dedup_id: "raced" })] }),
      ),
    );
    expect(responses.map((response) => response.status)).toEqual(Array(6).fill(200));
    expect(await messagesOf(channelUrl)).toHaveLength(1);
  });

  it.each([
    ["no messages", {}, 400105],
    ["messages not an array", { messages: "hello" }, 400100],
    [
      "an unknown message_type",
      { messages: [{ user_id: "x", message_type: "TEXT", message: "m", timestamp: t0 }] },
      400111,
    ],
    [
      "a timestamp as text",
      { messages: [{ user_id: "x", message_type: "MESG", message: "m", timestamp: `${t0}` }] },
      400100,
    ],
    [
      "a fractional timestamp",
      { messages: [{ user_id: "x", message_type: "MESG", message: "m", timestamp: 1.5 }] },
      400111,
    ],
    [
      "a missing timestamp",
      { messages: [{ user_id: "x", message_type: "MESG", message: "m" }] },
      400105,
    ],
    [
      "a missing user_id",
      { messages: [{ message_type: "MESG", message: "m", timestamp: t0 }] },
      400105,
    ],
    [
      "a message of 5001 characters",
      {
        messages: [
          { user_id: "x", message_type: "MESG", message: "m".repeat(5001), timestamp: t0 },
        ],
      },
      400110,
    ],
    ["update_read_ts as text", { messages: [], update_read_ts: "true" }, 400100],
  ])("refuses %s", async (_, body, code) => {
    const channelUrl = await groupChannel();
    expectPlatformError(await migrate(channelUrl, body), 400, code);
    expect(await messagesOf(channelUrl)).toEqual([]);
  });

  it("refuses malformed JSON (400403)", async () => {
    const channelUrl = await groupChannel();
    const response = await call(sandbox, "POST", `/v3/migration/${channelUrl}`, undefined, {
      rawBody: '{"messages": [}',
      headers: { "content-type": "application/json" },
    });
    expectPlatformError(response, 400, 400403);
  });

  it("lists messages from message_ts on, at most next_limit, oldest first", async () => {
    const channelUrl = await groupChannel();
    await migrate(channelUrl, { messages: [message(5), message(1), message(3)] });
    expect((await messagesOf(channelUrl, "group", "")).map((m) => m.created_at)).toEqual([
      t0 + 1,
      t0 + 3,
      t0 + 5,
    ]);
    expect(
      (await messagesOf(channelUrl, "group", `message_ts=${t0 + 2}`)).map((m) => m.created_at),
    ).toEqual([t0 + 3, t0 + 5]);
    expect(await messagesOf(channelUrl, "group", "next_limit=1")).toHaveLength(1);
    for (const query of ["next_limit=0", "next_limit=201", "message_ts=-1"]) {
      expectPlatformError(
        await call(sandbox, "GET", `/v3/group_channels/${channelUrl}/messages?${query}`),
        400,
        400111,
      );
    }
  });
});
