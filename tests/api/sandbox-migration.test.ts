import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { MessageResource as Message } from "@/lib/schemas/messages";
import { createUsers } from "../fixtures/chat";
import { call, expectPlatformError, sharedSandbox, uniqueId } from "./support/http";
import { startSandboxServer, type SandboxServer } from "./support/sandbox-server";

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
        message(1, {
          custom_type: "greeting",
          data: '{"k":1}',
          mentioned_user_ids: [other],
          sorted_metaarray: [{ key: "lang", value: ["en"] }],
        }),
        {
          message_type: "FILE",
          user_id: other,
          url: "https://files.example.com/a.png",
          file_name: "a.png",
          file_size: 1234,
          file_type: "image/png",
          thumbnails: ["https://files.example.com/a_small.png"],
          require_auth: true,
          custom_field: "scanned",
          timestamp: t0 + 2,
          dedup_id: "file-1",
        },
        { message_type: "ADMM", message: "welcome", timestamp: t0 + 3, is_silent: true },
      ],
      update_read_ts: true,
      rewind_read_ts: false,
    });
    expect(response.status).toBe(200);
    expect(response.body).toEqual({});
    const stored = await messagesOf(
      channelUrl,
      "group",
      "next_limit=200&with_sorted_meta_array=true",
    );
    expect(stored.map((m) => [m.type, m.message, m.created_at, m.user?.user_id])).toEqual([
      ["MESG", "message 1", t0 + 1, sender],
      ["FILE", "", t0 + 2, other],
      ["ADMM", "welcome", t0 + 3, undefined],
    ]);
    expect(stored[0]).toMatchObject({
      custom_type: "greeting",
      data: '{"k":1}',
      channel_url: channelUrl,
      channel_type: "group",
      user: { user_id: sender, nickname: `nick ${sender}`, profile_url: "" },
      mentioned_users: [{ user_id: other, nickname: `nick ${other}`, profile_url: "" }],
      sorted_metaarray: [{ key: "lang", value: ["en"] }],
      silent: false,
    });
    expect(stored[1]).toMatchObject({
      file: {
        url: "https://files.example.com/a.png",
        name: "a.png",
        type: "image/png",
        size: 1234,
        data: "scanned",
      },
      thumbnails: ["https://files.example.com/a_small.png"],
      require_auth: true,
    });
    expect(stored[2]).not.toHaveProperty("user");
    expect(stored[2]).not.toHaveProperty("file");
    expect(stored[2]).toMatchObject({ silent: true });
    // sorted_metaarray is answered only when asked for, as on the real platform.
    expect((await messagesOf(channelUrl))[0]).not.toHaveProperty("sorted_metaarray");
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
      // An int64 in the platform's description: a fraction is the wrong type.
      "a fractional timestamp",
      { messages: [{ user_id: "x", message_type: "MESG", message: "m", timestamp: 1.5 }] },
      400100,
    ],
    [
      "a negative timestamp",
      { messages: [{ user_id: "x", message_type: "MESG", message: "m", timestamp: -1 }] },
      400111,
    ],
    [
      // Stored as a 64-bit integer: accepted, it could never be filed.
      "a timestamp beyond 64 bits",
      { messages: [{ user_id: "x", message_type: "MESG", message: "m", timestamp: 2 ** 64 }] },
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
    [
      "a FILE message without url",
      { messages: [{ user_id: "x", message_type: "FILE", timestamp: t0 }] },
      400105,
    ],
    [
      "a FILE message with an empty url",
      { messages: [{ user_id: "x", message_type: "FILE", url: "", timestamp: t0 }] },
      400111,
    ],
    [
      "a FILE message with file_size as text",
      {
        messages: [
          { user_id: "x", message_type: "FILE", url: "https://a/b", file_size: "9", timestamp: t0 },
        ],
      },
      400100,
    ],
    [
      "an ADMM message without message",
      { messages: [{ message_type: "ADMM", timestamp: t0 }] },
      400105,
    ],
    [
      "a MESG message without message",
      { messages: [{ user_id: "x", message_type: "MESG", timestamp: t0 }] },
      400105,
    ],
    [
      "a custom_type of 129 characters",
      {
        messages: [
          {
            user_id: "x",
            message_type: "MESG",
            message: "m",
            timestamp: t0,
            custom_type: "c".repeat(129),
          },
        ],
      },
      400110,
    ],
    [
      "mentioned_user_ids not an array",
      {
        messages: [
          {
            user_id: "x",
            message_type: "MESG",
            message: "m",
            timestamp: t0,
            mentioned_user_ids: "a",
          },
        ],
      },
      400100,
    ],
    [
      "a missing message_type",
      { messages: [{ user_id: "x", message: "m", timestamp: t0 }] },
      400105,
    ],
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

  it("lists messages around message_ts: prev_limit before, next_limit from it on, in time order", async () => {
    const channelUrl = await groupChannel();
    await migrate(channelUrl, {
      messages: [message(5), message(1), message(3), message(7), message(9)],
    });
    const times = async (query: string) =>
      (await messagesOf(channelUrl, "group", query)).map((m) => m.created_at - t0);
    // Without a reference point: from the beginning, 15 at most.
    expect(await times("")).toEqual([1, 3, 5, 7, 9]);
    expect(await times(`message_ts=${t0 + 5}`)).toEqual([1, 3, 5, 7, 9]);
    expect(await times(`message_ts=${t0 + 5}&prev_limit=1&next_limit=1`)).toEqual([3, 5]);
    expect(await times(`message_ts=${t0 + 5}&include=false&prev_limit=1&next_limit=1`)).toEqual([
      3, 7,
    ]);
    expect(await times(`message_ts=${t0 + 5}&prev_limit=0&next_limit=2&reverse=true`)).toEqual([
      7, 5,
    ]);
    expect(await times(`message_ts=${t0 + 4}&prev_limit=200&next_limit=0`)).toEqual([1, 3]);
    for (const query of ["next_limit=201", "prev_limit=-1", "message_ts=-1", "message_type=TEXT"]) {
      expectPlatformError(
        await call(sandbox, "GET", `/v3/group_channels/${channelUrl}/messages?${query}`),
        400,
        400111,
      );
    }
    for (const query of ["next_limit=x", "include=yes", "reverse=1"]) {
      expectPlatformError(
        await call(sandbox, "GET", `/v3/group_channels/${channelUrl}/messages?${query}`),
        400,
        400100,
      );
    }
  });

  it("pages forward by message_id without losing messages of one timestamp", async () => {
    const channelUrl = await groupChannel();
    await migrate(channelUrl, {
      messages: Array.from({ length: 7 }, (_, i) => message(100, { message: `same ${i}` })),
    });
    const [first] = await messagesOf(channelUrl, "group", "next_limit=1");
    const seen = [first!.message];
    let last = first!.message_id;
    for (;;) {
      const page = await messagesOf(
        channelUrl,
        "group",
        `message_id=${last}&include=false&prev_limit=0&next_limit=2`,
      );
      if (page.length === 0) break;
      seen.push(...page.map((m) => m.message));
      last = page.at(-1)!.message_id;
    }
    expect(seen).toEqual(Array.from({ length: 7 }, (_, i) => `same ${i}`));
    // With include (the default) the reference message itself is listed, among the next ones.
    const around = await messagesOf(
      channelUrl,
      "group",
      `message_id=${first!.message_id}&prev_limit=5&next_limit=1`,
    );
    expect(around.map((m) => m.message)).toEqual(["same 0"]);
    expectPlatformError(
      await call(sandbox, "GET", `/v3/group_channels/${channelUrl}/messages?message_id=999999999`),
      400,
      400201,
    );
  });

  it("filters by message_type, sender_id, sender_ids and custom_types", async () => {
    const channelUrl = await groupChannel();
    await migrate(channelUrl, {
      messages: [
        message(1, { custom_type: "a" }),
        message(2, { user_id: other, custom_type: "b" }),
        message(3),
        { message_type: "ADMM", message: "admin", timestamp: t0 + 4, custom_type: "a" },
        { message_type: "FILE", user_id: other, url: "https://x/y", timestamp: t0 + 5 },
      ],
    });
    const times = async (query: string) =>
      (await messagesOf(channelUrl, "group", query)).map((m) => m.created_at - t0);
    expect(await times("message_type=MESG")).toEqual([1, 2, 3]);
    expect(await times("message_type=ADMM")).toEqual([4]);
    expect(await times(`sender_id=${other}`)).toEqual([2, 5]);
    expect(await times(`sender_ids=${sender},${other}&message_type=FILE`)).toEqual([5]);
    expect(await times("custom_types=a")).toEqual([1, 4]);
    expect(await times("custom_types=a,b")).toEqual([1, 2, 4]);
    expect(await times("custom_types=*")).toEqual([1, 2, 3, 4, 5]);
    // Empty: the messages without a custom type.
    expect(await times("custom_types=")).toEqual([3, 5]);
    expect(await times("sender_id=nobody")).toEqual([]);
  });
});

/** Every message of a channel, page by page (message_id keeps pages of one timestamp whole). */
async function wholeHistory(server: SandboxServer, channelUrl: string): Promise<Message[]> {
  const list = async (query: string) =>
    (
      await call<{ messages: Message[] }>(
        server,
        "GET",
        `/v3/group_channels/${channelUrl}/messages?${query}`,
      )
    ).body.messages;
  const history = await list("message_ts=0&next_limit=200");
  for (;;) {
    const last = history.at(-1);
    if (!last) return history;
    const page = await list(
      `message_id=${last.message_id}&include=false&prev_limit=0&next_limit=200`,
    );
    if (page.length === 0) return history;
    history.push(...page);
  }
}

// A migration request is stored as one row and its messages are filed into the channel's
// history when migrations to it pause or when it is next read, in rounds of up to 50 requests
// (lib/sandbox/messages.ts).
describe("sandbox: migrated history, filed when read", () => {
  let server: SandboxServer;
  let sender: string;

  beforeAll(async () => {
    server = await startSandboxServer();
    [sender] = (await createUsers(server, 1, "filed")) as [string];
  });
  afterAll(async () => {
    await server.stop();
  });

  async function groupChannel(customType = ""): Promise<string> {
    const response = await call<{ channel_url: string }>(server, "POST", "/v3/group_channels", {
      user_ids: [sender],
      custom_type: customType,
    });
    expect(response.status).toBe(200);
    return response.body.channel_url;
  }

  const send = async (channelUrl: string, messages: unknown[]) => {
    const response = await call(server, "POST", `/v3/migration/${channelUrl}`, { messages });
    expect(response.status, JSON.stringify(response.body)).toBe(200);
  };

  it("keeps the requests' order and first dedup_id across rounds, whoever reads first", async () => {
    const channelUrl = await groupChannel();
    // 230 requests at one timestamp: only the order they were answered in tells them apart.
    for (let i = 0; i < 230; i++) {
      await send(channelUrl, [
        {
          user_id: sender,
          message_type: "MESG",
          message: `request ${i}`,
          timestamp: t0,
          // Request 220 repeats request 5's dedup_id, in a later round: the first one stays.
          dedup_id: i === 220 ? "d5" : `d${i}`,
        },
      ]);
    }
    const readers = await Promise.all([1, 2, 3].map(() => wholeHistory(server, channelUrl)));
    const expected = Array.from({ length: 230 }, (_, i) => `request ${i}`).filter(
      (text) => text !== "request 220",
    );
    for (const history of readers) expect(history.map((m) => m.message)).toEqual(expected);
    const ids = readers[0]!.map((m) => m.message_id);
    expect(ids).toEqual([...ids].sort((a, b) => a - b));
  });

  it("loses no answered request when the server is killed before anything read them", async () => {
    const channelUrl = await groupChannel();
    await send(channelUrl, [
      { user_id: sender, message_type: "MESG", message: "before the crash", timestamp: t0 },
    ]);
    await server.restart({ kill: true });
    expect((await wholeHistory(server, channelUrl)).map((m) => m.message)).toEqual([
      "before the crash",
    ]);
  });

  it("loses and repeats nothing when the server is killed while filing in the background", async () => {
    const channelUrl = await groupChannel();
    const sent: string[] = [];
    for (let request = 0; request < 400; request++) {
      const texts = Array.from({ length: 25 }, (_, i) => `${request}/${i}`);
      sent.push(...texts);
      await send(
        channelUrl,
        texts.map((message) => ({ user_id: sender, message_type: "MESG", message, timestamp: t0 })),
      );
    }
    // Filing starts a second after the last request, ten requests a statement: killed 80 ms in,
    // a run on PostgreSQL had filed 240 of the 400 requests.
    await new Promise((resolve) => setTimeout(resolve, 1_080));
    await server.restart({ kill: true });
    expect((await wholeHistory(server, channelUrl)).map((m) => m.message)).toEqual(sent);
  });

  it("files the messages of a sender deleted before the history was read", async () => {
    const [gone] = (await createUsers(server, 1, "gone")) as [string];
    const channelUrl = await groupChannel();
    await send(channelUrl, [
      { user_id: gone, message_type: "MESG", message: "from a leaver", timestamp: t0 },
    ]);
    expect((await call(server, "DELETE", `/v3/users/${gone}`)).status).toBe(200);
    const [filed] = await wholeHistory(server, channelUrl);
    expect(filed).toMatchObject({
      message: "from a leaver",
      user: { user_id: gone, nickname: "" },
    });
  });

  it("forgets the stored requests of a deleted channel", async () => {
    const channelUrl = `reused_${uniqueId()}`;
    const create = () =>
      call(server, "POST", "/v3/open_channels", { channel_url: channelUrl, name: "Reused" });
    expect((await create()).status).toBe(200);
    await send(channelUrl, [
      { user_id: sender, message_type: "MESG", message: "old", timestamp: t0 },
    ]);
    expect((await call(server, "DELETE", `/v3/open_channels/${channelUrl}`)).status).toBe(200);
    expect((await create()).status).toBe(200);
    const listed = await call<{ messages: Message[] }>(
      server,
      "GET",
      `/v3/open_channels/${channelUrl}/messages?message_ts=0`,
    );
    expect(listed.body.messages).toEqual([]);
  });

  it("lists a channel whose only messages are not filed yet among the non-empty", async () => {
    const tag = `pending_${uniqueId()}`;
    const [withMessages] = [await groupChannel(tag), await groupChannel(tag)];
    await send(withMessages!, [
      { user_id: sender, message_type: "MESG", message: "waiting", timestamp: t0 },
    ]);
    const listed = await call<{ channels: Array<{ channel_url: string }> }>(
      server,
      "GET",
      `/v3/group_channels?custom_types=${tag}`,
    );
    expect(listed.body.channels.map((channel) => channel.channel_url)).toEqual([withMessages]);
  });
});

describe("sandbox: migration rate limit", () => {
  let server: SandboxServer;

  beforeAll(async () => {
    server = await startSandboxServer({ SANDBOX_RATE_LIMIT: "write=100,migration=2" });
  });
  afterAll(async () => {
    await server.stop();
  });

  it("limits migration apart from other writes", async () => {
    const [userId] = await createUsers(server, 1, "rl");
    const created = await call<{ channel_url: string }>(server, "POST", "/v3/group_channels", {
      user_ids: [userId],
    });
    const body = {
      messages: [{ message_type: "MESG", user_id: userId, message: "m", timestamp: t0 }],
    };
    const responses = [];
    for (let i = 0; i < 4; i++) {
      responses.push(await call(server, "POST", `/v3/migration/${created.body.channel_url}`, body));
    }
    expect(responses.map((response) => response.status)).toEqual([200, 200, 429, 429]);
    expect(responses[0]!.headers.get("x-ratelimit-limit")).toBe("2;w=1");
    expectPlatformError(responses[2]!, 429, 500910);
    // Other writes have their own, larger budget, untouched by the migration requests.
    const write = await call(server, "PUT", `/v3/users/${userId}`, { nickname: "x" });
    expect(write.status).toBe(200);
    expect(write.headers.get("x-ratelimit-limit")).toBe("100;w=1");
  });
});
