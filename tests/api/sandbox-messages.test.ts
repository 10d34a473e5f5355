import { beforeAll, describe, expect, it } from "vitest";
import type { GroupChannelResource } from "@/lib/schemas/channels";
import type { MessageResource as Message } from "@/lib/schemas/messages";
import { createUsers } from "../fixtures/chat";
import { call, expectPlatformError, sharedSandbox, uniqueId } from "./support/http";

const sandbox = sharedSandbox();
const t0 = 1_600_000_000_000;

type Kind = "group" | "open";

const send = (channelUrl: string, body: unknown, kind: Kind = "group") =>
  call<Message>(sandbox, "POST", `/v3/${kind}_channels/${channelUrl}/messages`, body);

const migrate = (channelUrl: string, messages: unknown[]) =>
  call(sandbox, "POST", `/v3/migration/${channelUrl}`, { messages });

async function sent(channelUrl: string, body: unknown, kind: Kind = "group"): Promise<Message> {
  const response = await send(channelUrl, body, kind);
  expect(response.status, JSON.stringify(response.body)).toBe(200);
  return response.body;
}

async function list(channelUrl: string, query = "", kind: Kind = "group"): Promise<Message[]> {
  const response = await call<{ messages: Message[] }>(
    sandbox,
    "GET",
    `/v3/${kind}_channels/${channelUrl}/messages?next_limit=200&${query}`,
  );
  expect(response.status, JSON.stringify(response.body)).toBe(200);
  return response.body.messages;
}

async function totalCount(channelUrl: string, kind: Kind = "group"): Promise<number> {
  const response = await call<{ total: number }>(
    sandbox,
    "GET",
    `/v3/${kind}_channels/${channelUrl}/messages/total_count`,
  );
  expect(response.status, JSON.stringify(response.body)).toBe(200);
  return response.body.total;
}

const getMessage = (channelUrl: string, messageId: number | string, query = "") =>
  call<Message>(sandbox, "GET", `/v3/group_channels/${channelUrl}/messages/${messageId}?${query}`);

async function groupChannel(body: Record<string, unknown>): Promise<string> {
  const response = await call<{ channel_url: string }>(sandbox, "POST", "/v3/group_channels", body);
  expect(response.status, JSON.stringify(response.body)).toBe(200);
  return response.body.channel_url;
}

async function channel(url: string): Promise<GroupChannelResource> {
  const response = await call<GroupChannelResource>(sandbox, "GET", `/v3/group_channels/${url}`);
  expect(response.status, JSON.stringify(response.body)).toBe(200);
  return response.body;
}

describe("sandbox: sending messages", () => {
  let alice: string;
  let bob: string;
  let carol: string;
  let outsider: string;
  let channelUrl: string;

  beforeAll(async () => {
    [alice, bob, carol, outsider] = (await createUsers(sandbox, 4, "send")) as [
      string,
      string,
      string,
      string,
    ];
    channelUrl = await groupChannel({ user_ids: [alice, bob, carol] });
  });

  const text = (extra: Record<string, unknown> = {}) => ({
    message_type: "MESG",
    user_id: alice,
    message: "hello",
    ...extra,
  });

  it("sends a text message and answers it as get and the list do", async () => {
    const before = Date.now();
    const message = await sent(
      channelUrl,
      text({
        custom_type: "greeting",
        data: '{"k":1}',
        mentioned_user_ids: [bob],
        sorted_metaarray: [{ key: "lang", value: ["en"] }],
        is_silent: true,
        send_push: false,
        mark_as_read: true,
      }),
    );
    expect(message).toMatchObject({
      type: "MESG",
      message: "hello",
      custom_type: "greeting",
      data: '{"k":1}',
      channel_url: channelUrl,
      channel_type: "group",
      user: { user_id: alice, nickname: `nick ${alice}`, profile_url: "" },
      mentioned_users: [{ user_id: bob, nickname: `nick ${bob}`, profile_url: "" }],
      silent: true,
      parent_message_id: 0,
      is_reply_to_channel: false,
      updated_at: 0,
    });
    expect(message.message_id).toBeGreaterThan(0);
    expect(message.created_at).toBeGreaterThanOrEqual(before);
    expect(message.created_at).toBeLessThanOrEqual(Date.now());
    expect(message).not.toHaveProperty("sorted_metaarray");

    const read = await getMessage(channelUrl, message.message_id, "with_sorted_meta_array=true");
    expect(read.status).toBe(200);
    expect(read.body).toEqual({ ...message, sorted_metaarray: [{ key: "lang", value: ["en"] }] });
    const listed = await list(channelUrl, `message_id=${message.message_id}&prev_limit=0`);
    expect(listed[0]).toEqual(message);
  });

  it("sends a file message named by url, or by files as one object or an array of one", async () => {
    const byUrl = await sent(channelUrl, {
      message_type: "FILE",
      user_id: bob,
      url: "https://files.example.com/a.png",
      file_name: "a.png",
      file_size: 10,
      file_type: "image/png",
      thumbnails: ["https://files.example.com/a_small.png"],
      require_auth: true,
      custom_field: "scanned",
    });
    expect(byUrl).toMatchObject({
      type: "FILE",
      message: "",
      user: { user_id: bob },
      file: {
        url: "https://files.example.com/a.png",
        name: "a.png",
        type: "image/png",
        size: 10,
        data: "scanned",
      },
      thumbnails: ["https://files.example.com/a_small.png"],
      require_auth: true,
    });
    const file = {
      url: "https://files.example.com/b.pdf",
      file_name: "b.pdf",
      file_size: 20,
      file_type: "application/pdf",
    };
    for (const files of [file, [file]]) {
      const byFiles = await sent(channelUrl, { message_type: "FILE", user_id: bob, files });
      expect(byFiles.file).toEqual({
        url: file.url,
        name: "b.pdf",
        type: "application/pdf",
        size: 20,
        data: "",
      });
    }
  });

  it.each([
    ["neither url nor files", {}, 400105],
    ["an empty url", { url: "" }, 400111],
    [
      "both url and files",
      { url: "https://x.example/a", files: { url: "https://x.example/b" } },
      400111,
    ],
    [
      "two files",
      { files: [{ url: "https://x.example/a" }, { url: "https://x.example/b" }] },
      400111,
    ],
    ["files as text", { files: "https://x.example/a" }, 400100],
    ["a file whose url is not text", { files: { url: 5 } }, 400100],
    ["a file in an array whose url is missing", { files: [{ file_name: "a" }] }, 400105],
  ])("refuses a file message with %s, storing nothing", async (_, fields, code) => {
    const url = await groupChannel({ user_ids: [alice] });
    expectPlatformError(
      await send(url, { message_type: "FILE", user_id: alice, ...fields }),
      400,
      code,
    );
    expect(await totalCount(url)).toBe(0);
  });

  it("sends an admin message without a sender, whatever user_id comes with it", async () => {
    // The platform's Python SDK sends a user_id with every message type.
    const message = await sent(channelUrl, {
      message_type: "ADMM",
      user_id: "nobody-at-all",
      message: "maintenance tonight",
    });
    expect(message).toMatchObject({ type: "ADMM", message: "maintenance tonight" });
    expect(message).not.toHaveProperty("user");
  });

  it("gives the message the created_at it is sent with, in the channel's time order", async () => {
    const url = await groupChannel({ user_ids: [alice, bob] });
    await migrate(url, [
      { message_type: "MESG", user_id: bob, message: "first", timestamp: t0 + 1 },
      { message_type: "MESG", user_id: bob, message: "third", timestamp: t0 + 3 },
    ]);
    const second = await sent(url, text({ message: "second", created_at: t0 + 2 }));
    expect(second.created_at).toBe(t0 + 2);
    expect((await list(url)).map((message) => message.message)).toEqual([
      "first",
      "second",
      "third",
    ]);
  });

  it("sends to an open channel from any active user, a participant or not", async () => {
    const url = uniqueId("open");
    expect((await call(sandbox, "POST", "/v3/open_channels", { channel_url: url })).status).toBe(
      200,
    );
    const message = await sent(url, text({ user_id: outsider }), "open");
    expect(message).toMatchObject({ channel_type: "open", user: { user_id: outsider } });
    expect((await list(url, "", "open")).map((m) => m.message_id)).toEqual([message.message_id]);
    expect(await totalCount(url, "open")).toBe(1);
  });

  describe("who may send", () => {
    it("refuses a sender that does not exist (400201), storing nothing", async () => {
      const url = await groupChannel({ user_ids: [alice] });
      const body = expectPlatformError(await send(url, text({ user_id: "ghost" })), 400, 400201);
      expect(body.message).toContain("ghost");
      expect(await totalCount(url)).toBe(0);
    });

    it("refuses a deactivated sender (400300), even one still a member", async () => {
      const [gone] = await createUsers(sandbox, 1, "gone");
      const url = await groupChannel({ user_ids: [gone, alice] });
      await call(sandbox, "PUT", `/v3/users/${gone}`, {
        is_active: false,
        leave_all_when_deactivated: false,
      });
      expect((await channel(url)).members?.map((member) => member.user_id)).toContain(gone);
      expectPlatformError(await send(url, text({ user_id: gone })), 400, 400300);
      const open = uniqueId("open");
      await call(sandbox, "POST", "/v3/open_channels", { channel_url: open });
      expectPlatformError(await send(open, text({ user_id: gone }), "open"), 400, 400300);
      expect(await totalCount(url)).toBe(0);
    });

    it("refuses a user who is not a member, or only invited (400108)", async () => {
      const url = await groupChannel({
        user_ids: [alice, bob],
        invitation_status: { [bob]: "invited_by_non_friend" },
      });
      const notMember = expectPlatformError(
        await send(url, text({ user_id: outsider })),
        400,
        400108,
      );
      expect(notMember.message).toContain(outsider);
      expectPlatformError(await send(url, text({ user_id: bob })), 400, 400108);
      expect(await totalCount(url)).toBe(0);
    });

    it("lets only operators send to a frozen channel (900050, HTTP 400); admin messages go in", async () => {
      const url = await groupChannel({ user_ids: [alice, bob], operator_ids: [bob] });
      await call(sandbox, "PUT", `/v3/group_channels/${url}/freeze`, { freeze: true });
      const frozen = expectPlatformError(await send(url, text()), 400, 900050);
      expect(frozen.message).toContain("frozen");
      await sent(url, text({ user_id: bob, message: "from the operator" }));
      await sent(url, { message_type: "ADMM", message: "from the platform" });
      await call(sandbox, "PUT", `/v3/group_channels/${url}/freeze`, { freeze: false });
      await sent(url, text({ message: "after the thaw" }));
      expect((await list(url)).map((message) => message.message)).toEqual([
        "from the operator",
        "from the platform",
        "after the thaw",
      ]);
    });

    it("refuses a frozen open channel's non-operators too", async () => {
      const url = uniqueId("open");
      await call(sandbox, "POST", "/v3/open_channels", { channel_url: url, operator_ids: [bob] });
      await call(sandbox, "PUT", `/v3/open_channels/${url}/freeze`, { freeze: true });
      expectPlatformError(await send(url, text(), "open"), 400, 900050);
      await sent(url, text({ user_id: bob }), "open");
    });
  });

  it.each([
    ["no message_type", { user_id: "x", message: "m" }, 400105],
    ["an unknown message_type", { message_type: "TEXT", user_id: "x", message: "m" }, 400111],
    ["no user_id on a text message", { message_type: "MESG", message: "m" }, 400105],
    ["no message on a text message", { message_type: "MESG", user_id: "x" }, 400105],
    [
      "a message of 5001 characters",
      { message_type: "MESG", user_id: "x", message: "m".repeat(5001) },
      400110,
    ],
    [
      "created_at as text",
      { message_type: "MESG", user_id: "x", message: "m", created_at: "1" },
      400100,
    ],
    [
      "a negative created_at",
      { message_type: "MESG", user_id: "x", message: "m", created_at: -1 },
      400111,
    ],
    [
      "a created_at beyond 64 bits",
      { message_type: "MESG", user_id: "x", message: "m", created_at: 2 ** 64 },
      400111,
    ],
    [
      "parent_message_id as text",
      { message_type: "MESG", user_id: "x", message: "m", parent_message_id: "1" },
      400100,
    ],
    [
      "is_silent as text",
      { message_type: "MESG", user_id: "x", message: "m", is_silent: "true" },
      400100,
    ],
    [
      "a custom_type of 129 characters",
      { message_type: "MESG", user_id: "x", message: "m", custom_type: "c".repeat(129) },
      400110,
    ],
  ])("refuses %s", async (_, body, code) => {
    expectPlatformError(await send(channelUrl, body), 400, code);
  });

  it("refuses a channel that does not exist, or of the other kind (400201)", async () => {
    expectPlatformError(await send(uniqueId("none"), text()), 400, 400201);
    expectPlatformError(await send(channelUrl, text(), "open"), 400, 400201);
  });

  describe("dedup_id", () => {
    it("answers the stored message for a dedup_id sent again, and stores nothing", async () => {
      const url = await groupChannel({ user_ids: [alice, bob] });
      const first = await sent(url, text({ dedup_id: "once" }));
      const again = await sent(url, text({ dedup_id: "once", message: "changed", user_id: bob }));
      expect(again).toEqual(first);
      expect(await totalCount(url)).toBe(1);
      // Per channel: the same dedup_id elsewhere is another message.
      const other = await groupChannel({ user_ids: [alice] });
      expect((await sent(other, text({ dedup_id: "once" }))).message_id).not.toBe(first.message_id);
    });

    it("sees a migrated message's dedup_id, filed or not yet", async () => {
      const url = await groupChannel({ user_ids: [alice, bob] });
      await migrate(url, [
        { message_type: "MESG", user_id: bob, message: "migrated", timestamp: t0, dedup_id: "m1" },
      ]);
      // Right after the migration answered, before it is filed (a second after the last one).
      const answered = await sent(url, text({ dedup_id: "m1", message: "sent" }));
      expect(answered).toMatchObject({
        message: "migrated",
        created_at: t0,
        user: { user_id: bob },
      });
      expect((await list(url)).map((message) => message.message)).toEqual(["migrated"]);
      expect(await totalCount(url)).toBe(1);
    });

    it("stores one message when sends of one dedup_id race", async () => {
      const url = await groupChannel({ user_ids: [alice] });
      const answers = await Promise.all(
        Array.from({ length: 6 }, (_, i) =>
          sent(url, text({ dedup_id: "raced", message: `${i}` })),
        ),
      );
      expect(new Set(answers.map((message) => message.message_id)).size).toBe(1);
      expect(await totalCount(url)).toBe(1);
    });

    it("checks the request before its dedup_id: a sender deactivated since is refused", async () => {
      const [later] = await createUsers(sandbox, 1, "later");
      const url = await groupChannel({ user_ids: [later] });
      await sent(url, text({ user_id: later, dedup_id: "d" }));
      await call(sandbox, "PUT", `/v3/users/${later}`, { is_active: false });
      expectPlatformError(await send(url, text({ user_id: later, dedup_id: "d" })), 400, 400300);
    });
  });
});

describe("sandbox: threads", () => {
  let alice: string;
  let bob: string;
  let carol: string;

  beforeAll(async () => {
    [alice, bob, carol] = (await createUsers(sandbox, 3, "thread")) as [string, string, string];
  });

  const text = (userId: string, message: string, extra: Record<string, unknown> = {}) => ({
    message_type: "MESG",
    user_id: userId,
    message,
    ...extra,
  });

  async function threadChannel() {
    const url = await groupChannel({ user_ids: [alice, bob, carol] });
    const root = await sent(url, text(alice, "root", { created_at: t0 + 10 }));
    return { url, root };
  }

  it("sends replies in a root's thread, at their own time, answered with the root", async () => {
    const { url, root } = await threadChannel();
    const reply = await sent(
      url,
      text(bob, "reply", { parent_message_id: root.message_id, created_at: t0 + 20 }),
    );
    expect(reply).toMatchObject({
      parent_message_id: root.message_id,
      created_at: t0 + 20,
      is_reply_to_channel: false,
      parent_message_info: {
        message: "root",
        type: "MESG",
        custom_type: "",
        ts: t0 + 10,
        user: { user_id: alice, nickname: `nick ${alice}`, profile_url: "" },
      },
    });
    expect(await totalCount(url)).toBe(2);
  });

  it("lists replies only when include_reply_type asks, in any letter case", async () => {
    const { url, root } = await threadChannel();
    const reply = await sent(url, text(bob, "reply", { parent_message_id: root.message_id }));
    const shown = await sent(
      url,
      text(carol, "shown", { parent_message_id: root.message_id, reply_to_channel: true }),
    );
    const after = await sent(url, text(alice, "after"));
    const ids = (messages: Message[]) => messages.map((message) => message.message_id);
    expect(ids(await list(url))).toEqual([root.message_id, after.message_id]);
    expect(ids(await list(url, "include_reply_type=NONE"))).toEqual([
      root.message_id,
      after.message_id,
    ]);
    expect(ids(await list(url, "include_reply_type=all"))).toEqual([
      root.message_id,
      reply.message_id,
      shown.message_id,
      after.message_id,
    ]);
    expect(ids(await list(url, "include_reply_type=ONLY_REPLY_TO_CHANNEL"))).toEqual([
      root.message_id,
      shown.message_id,
      after.message_id,
    ]);
    const listed = await list(url, "include_reply_type=all");
    expect(listed.map((message) => message.parent_message_id)).toEqual([
      0,
      root.message_id,
      root.message_id,
      0,
    ]);
    expect(listed[2]?.is_reply_to_channel).toBe(true);
    expectPlatformError(
      await call(sandbox, "GET", `/v3/group_channels/${url}/messages?include_reply_type=some`),
      400,
      400111,
    );
  });

  it("describes each root's thread with include_thread_info, and each reply's root with include_parent_message_info", async () => {
    const { url, root } = await threadChannel();
    const lonely = await sent(url, text(alice, "no replies", { created_at: t0 + 11 }));
    for (const [userId, at] of [
      [carol, 30],
      [bob, 40],
      [carol, 50],
    ] as const) {
      await sent(
        url,
        text(userId, "r", { parent_message_id: root.message_id, created_at: t0 + at }),
      );
    }
    const listed = await list(
      url,
      "include_reply_type=all&include_thread_info=True&include_parent_message_info=TRUE",
    );
    const byId = new Map(listed.map((message) => [message.message_id, message]));
    expect(byId.get(root.message_id)?.thread_info).toEqual({
      reply_count: 3,
      last_replied_at: t0 + 50,
      most_replies: [
        { user_id: carol, nickname: `nick ${carol}`, profile_url: "" },
        { user_id: bob, nickname: `nick ${bob}`, profile_url: "" },
      ],
      updated_at: t0 + 50,
    });
    expect(byId.get(lonely.message_id)?.thread_info).toEqual({
      reply_count: 0,
      last_replied_at: 0,
      most_replies: [],
      updated_at: 0,
    });
    const replies = listed.filter((message) => message.parent_message_id !== 0);
    expect(replies).toHaveLength(3);
    for (const reply of replies) {
      expect(reply).not.toHaveProperty("thread_info");
      expect(reply.parent_message_info).toMatchObject({ message: "root", ts: t0 + 10 });
    }
    // Without the flags, neither is answered.
    for (const message of await list(url, "include_reply_type=all")) {
      expect(message).not.toHaveProperty("thread_info");
      expect(message).not.toHaveProperty("parent_message_info");
    }
    // A single message answers them too.
    const read = await getMessage(url, root.message_id, "include_thread_info=true");
    expect(read.body.thread_info?.reply_count).toBe(3);
  });

  it("replies to a migrated root, listed in time order among migrated messages", async () => {
    const url = await groupChannel({ user_ids: [alice, bob] });
    await migrate(url, [
      { message_type: "MESG", user_id: alice, message: "old root", timestamp: t0, dedup_id: "r" },
    ]);
    const [root] = await list(url);
    await migrate(url, [
      { message_type: "MESG", user_id: alice, message: "later", timestamp: t0 + 5 },
    ]);
    const reply = await sent(
      url,
      text(bob, "reply", { parent_message_id: root!.message_id, created_at: t0 + 1 }),
    );
    expect(reply.parent_message_info?.message).toBe("old root");
    expect((await list(url, "include_reply_type=all")).map((message) => message.message)).toEqual([
      "old root",
      "reply",
      "later",
    ]);
  });

  it("refuses a root elsewhere, missing, a reply, or an admin message, and an admin reply (400111)", async () => {
    const { url, root } = await threadChannel();
    const other = await threadChannel();
    const reply = await sent(url, text(bob, "reply", { parent_message_id: root.message_id }));
    const admin = await sent(url, { message_type: "ADMM", message: "notice" });
    const cases: Array<[unknown, string]> = [
      [text(bob, "x", { parent_message_id: other.root.message_id }), "names no message"],
      [text(bob, "x", { parent_message_id: 999_999_999_999 }), "names no message"],
      [text(bob, "x", { parent_message_id: reply.message_id }), "names a reply"],
      [text(bob, "x", { parent_message_id: admin.message_id }), "admin message"],
      [
        { message_type: "ADMM", message: "x", parent_message_id: root.message_id },
        "admin message is no reply",
      ],
      [
        text(bob, "x", { parent_message_id: root.message_id, created_at: t0 + 9 }),
        "before the root",
      ],
    ];
    for (const [body, reason] of cases) {
      const refused = expectPlatformError(await send(url, body), 400, 400111);
      expect(refused.message).toContain(reason);
    }
    expect(await totalCount(url)).toBe(3);
  });
});

describe("sandbox: reading, updating and deleting one message", () => {
  let alice: string;
  let bob: string;
  let url: string;

  beforeAll(async () => {
    [alice, bob] = (await createUsers(sandbox, 2, "one")) as [string, string];
    url = await groupChannel({ user_ids: [alice, bob] });
  });

  const textMessage = (message = "original") =>
    sent(url, { message_type: "MESG", user_id: alice, message });

  it("gets one message; another channel's, a missing one or a bad id is refused", async () => {
    const message = await textMessage();
    expect((await getMessage(url, message.message_id)).body).toEqual(message);
    const other = await groupChannel({ user_ids: [alice] });
    expectPlatformError(await getMessage(other, message.message_id), 400, 400201);
    expectPlatformError(await getMessage(url, 999_999_999_999), 400, 400201);
    expectPlatformError(await getMessage(url, "abc"), 400, 400100);
    expectPlatformError(await getMessage(url, "0"), 400, 400111);
    expectPlatformError(await getMessage(url, "99999999999999999999"), 400, 400111);
    expectPlatformError(
      await call(sandbox, "GET", `/v3/open_channels/${url}/messages/${message.message_id}`),
      400,
      400201,
    );
  });

  it("updates the properties given, answering the message with its updated_at", async () => {
    const message = await textMessage();
    const before = Date.now();
    const response = await call<Message>(
      sandbox,
      "PUT",
      `/v3/group_channels/${url}/messages/${message.message_id}`,
      {
        message_type: "MESG",
        message: "edited",
        custom_type: "edited",
        data: "d",
        mentioned_user_ids: [bob],
        sorted_metaarray: [{ key: "k", value: ["v"] }],
      },
    );
    expect(response.status, JSON.stringify(response.body)).toBe(200);
    expect(response.body).toMatchObject({
      message_id: message.message_id,
      message: "edited",
      custom_type: "edited",
      data: "d",
      mentioned_users: [{ user_id: bob }],
      created_at: message.created_at,
      user: { user_id: alice },
    });
    expect(response.body.updated_at).toBeGreaterThanOrEqual(before);
    const read = await getMessage(url, message.message_id, "with_sorted_meta_array=true");
    expect(read.body).toMatchObject({
      message: "edited",
      sorted_metaarray: [{ key: "k", value: ["v"] }],
    });
    // Only what is given changes.
    const partial = await call<Message>(
      sandbox,
      "PUT",
      `/v3/group_channels/${url}/messages/${message.message_id}`,
      { message_type: "MESG", data: "only data" },
    );
    expect(partial.body).toMatchObject({
      message: "edited",
      custom_type: "edited",
      data: "only data",
    });
  });

  it.each([
    ["no message_type", { message: "x" }, 400105],
    ["another message_type", { message_type: "ADMM", message: "x" }, 400111],
    ["a message of 5001 characters", { message_type: "MESG", message: "m".repeat(5001) }, 400110],
    ["mentioned_user_ids as text", { message_type: "MESG", mentioned_user_ids: "x" }, 400100],
  ])("refuses an update with %s, changing nothing", async (_, body, code) => {
    const message = await textMessage();
    expectPlatformError(
      await call(sandbox, "PUT", `/v3/group_channels/${url}/messages/${message.message_id}`, body),
      400,
      code,
    );
    expect((await getMessage(url, message.message_id)).body).toEqual(message);
  });

  it("refuses text on a file message and an update of a missing message", async () => {
    const file = await sent(url, {
      message_type: "FILE",
      user_id: alice,
      url: "https://files.example.com/f",
    });
    expectPlatformError(
      await call(sandbox, "PUT", `/v3/group_channels/${url}/messages/${file.message_id}`, {
        message_type: "FILE",
        message: "text",
      }),
      400,
      400111,
    );
    expectPlatformError(
      await call(sandbox, "PUT", `/v3/group_channels/${url}/messages/999999999999`, {
        message_type: "MESG",
        message: "x",
      }),
      400,
      400201,
    );
  });

  it("deletes a message: no longer read, listed or counted, and its dedup_id free again", async () => {
    const channelUrl = await groupChannel({ user_ids: [alice, bob] });
    const kept = await sent(channelUrl, { message_type: "MESG", user_id: alice, message: "kept" });
    const gone = await sent(channelUrl, {
      message_type: "MESG",
      user_id: alice,
      message: "gone",
      dedup_id: "g",
    });
    expect(await totalCount(channelUrl)).toBe(2);
    const deleted = await call(
      sandbox,
      "DELETE",
      `/v3/group_channels/${channelUrl}/messages/${gone.message_id}`,
    );
    expect(deleted.status).toBe(200);
    expect(deleted.body).toEqual({});
    expectPlatformError(await getMessage(channelUrl, gone.message_id), 400, 400201);
    expect((await list(channelUrl)).map((message) => message.message_id)).toEqual([
      kept.message_id,
    ]);
    expect(await totalCount(channelUrl)).toBe(1);
    expectPlatformError(
      await call(sandbox, "DELETE", `/v3/group_channels/${channelUrl}/messages/${gone.message_id}`),
      400,
      400201,
    );
    const again = await sent(channelUrl, {
      message_type: "MESG",
      user_id: alice,
      message: "again",
      dedup_id: "g",
    });
    expect(again.message_id).not.toBe(gone.message_id);
  });

  it("counts every message of a channel, replies and migrated ones included", async () => {
    const channelUrl = await groupChannel({ user_ids: [alice, bob] });
    expect(await totalCount(channelUrl)).toBe(0);
    const root = await sent(channelUrl, { message_type: "MESG", user_id: alice, message: "r" });
    await sent(channelUrl, {
      message_type: "MESG",
      user_id: bob,
      message: "reply",
      parent_message_id: root.message_id,
    });
    await migrate(channelUrl, [
      { message_type: "MESG", user_id: bob, message: "old", timestamp: t0 },
    ]);
    expect(await totalCount(channelUrl)).toBe(3);
    expectPlatformError(
      await call(sandbox, "GET", `/v3/group_channels/${uniqueId("none")}/messages/total_count`),
      400,
      400201,
    );
  });
});

describe("sandbox: message list reference points", () => {
  let url: string;
  let ids: number[];

  beforeAll(async () => {
    const [sender] = await createUsers(sandbox, 1, "ref");
    url = await groupChannel({ user_ids: [sender] });
    await migrate(
      url,
      [1, 2, 3].map((i) => ({
        message_type: "MESG",
        user_id: sender,
        message: `m${i}`,
        timestamp: t0 + i,
      })),
    );
    ids = (await list(url)).map((message) => message.message_id);
  });

  it("reads 0 as not given, as the platform's SDKs send both", async () => {
    expect((await list(url, "message_ts=0&message_id=0")).map((m) => m.message_id)).toEqual(ids);
    expect(
      (await list(url, `message_ts=0&message_id=${ids[1]}&prev_limit=0`)).map((m) => m.message_id),
    ).toEqual(ids.slice(1));
    expect(
      (await list(url, `message_ts=${t0 + 3}&message_id=0&prev_limit=0`)).map((m) => m.message),
    ).toEqual(["m3"]);
  });

  it("refuses both reference points at once (400111)", async () => {
    const refused = expectPlatformError(
      await call(
        sandbox,
        "GET",
        `/v3/group_channels/${url}/messages?message_ts=${t0}&message_id=${ids[0]}`,
      ),
      400,
      400111,
    );
    expect(refused.message).toContain("message_ts");
  });

  it("reads query booleans in any letter case, and refuses other words (400100)", async () => {
    expect(
      (await list(url, `message_ts=${t0 + 2}&include=FALSE&reverse=True`)).map((m) => m.message),
    ).toEqual(["m3", "m1"]);
    expect((await list(url, "with_sorted_meta_array=TRUE"))[0]).toHaveProperty("sorted_metaarray");
    expectPlatformError(
      await call(sandbox, "GET", `/v3/group_channels/${url}/messages?reverse=yes`),
      400,
      400100,
    );
  });
});

describe("sandbox: a group channel's last_message", () => {
  let alice: string;
  let bob: string;

  beforeAll(async () => {
    [alice, bob] = (await createUsers(sandbox, 2, "last")) as [string, string];
  });

  it("is null without messages, then the latest message, migrated or sent", async () => {
    const created = await call<GroupChannelResource>(sandbox, "POST", "/v3/group_channels", {
      user_ids: [alice, bob],
    });
    expect(created.body.last_message).toBeNull();
    const url = created.body.channel_url;
    expect((await channel(url)).last_message).toBeNull();

    await migrate(url, [
      { message_type: "MESG", user_id: alice, message: "old", timestamp: t0 },
      { message_type: "MESG", user_id: bob, message: "newest migrated", timestamp: t0 + 5 },
    ]);
    // Read before the migration is filed: the answer still holds it.
    expect((await channel(url)).last_message).toMatchObject({
      message: "newest migrated",
      created_at: t0 + 5,
      user: { user_id: bob },
      channel_url: url,
    });

    const sentNow = await sent(url, { message_type: "MESG", user_id: alice, message: "now" });
    expect((await channel(url)).last_message).toEqual(sentNow);
    // Replies are not in the channel's default list, even one sent to the channel as well.
    for (const replyToChannel of [false, true]) {
      await sent(url, {
        message_type: "MESG",
        user_id: bob,
        message: "reply",
        parent_message_id: sentNow.message_id,
        reply_to_channel: replyToChannel,
      });
      expect((await channel(url)).last_message?.message_id).toBe(sentNow.message_id);
    }
    const latest = await sent(url, { message_type: "MESG", user_id: bob, message: "latest" });
    expect((await channel(url)).last_message?.message_id).toBe(latest.message_id);
    await call(sandbox, "DELETE", `/v3/group_channels/${url}/messages/${latest.message_id}`);
    expect((await channel(url)).last_message?.message_id).toBe(sentNow.message_id);

    const listed = await call<{ channels: GroupChannelResource[] }>(
      sandbox,
      "GET",
      `/v3/group_channels?channel_urls=${url}&show_empty=True`,
    );
    expect(listed.body.channels[0]?.last_message?.message_id).toBe(sentNow.message_id);
    const invited = await call<GroupChannelResource>(
      sandbox,
      "POST",
      `/v3/group_channels/${url}/invite`,
      { user_ids: [alice] },
    );
    expect(invited.body.last_message?.message_id).toBe(sentNow.message_id);
  });

  it("is answered for a distinct channel found again at creation", async () => {
    const body = { user_ids: [alice, bob], is_distinct: true, custom_type: uniqueId("d") };
    const first = await call<GroupChannelResource>(sandbox, "POST", "/v3/group_channels", body);
    const message = await sent(first.body.channel_url, {
      message_type: "MESG",
      user_id: alice,
      message: "hi",
    });
    const again = await call<GroupChannelResource>(sandbox, "POST", "/v3/group_channels", body);
    expect(again.body.channel_url).toBe(first.body.channel_url);
    expect(again.body.last_message?.message_id).toBe(message.message_id);
  });
});
