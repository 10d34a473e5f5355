import http from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createPlatformClient, type ResponseInfo } from "@/lib/platform/client";
import { PlatformError } from "@/lib/platform/errors";
import { startSandboxServer, type SandboxServer } from "./support/sandbox-server";
import { sharedSandbox, uniqueId } from "./support/http";

/** A real loopback HTTP peer whose answers each test scripts. */
function scriptedPeer(handler: http.RequestListener) {
  const server = http.createServer(handler);
  return {
    start: () =>
      new Promise<string>((resolve) =>
        server.listen(0, "127.0.0.1", () =>
          resolve(`http://127.0.0.1:${(server.address() as AddressInfo).port}`),
        ),
      ),
    stop: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

function clientFor(
  baseUrl: string,
  options: Partial<Parameters<typeof createPlatformClient>[0]> = {},
) {
  return createPlatformClient({
    appId: "local",
    chatBaseUrl: baseUrl,
    callsBaseUrl: baseUrl,
    apiToken: "t",
    ...options,
  });
}

describe("platform client against a scripted peer", () => {
  let requests: Array<{ method?: string; url?: string; token?: string | string[]; body: string }> =
    [];
  let script: Array<(res: http.ServerResponse) => void> = [];
  const peer = scriptedPeer((req, res) => {
    let body = "";
    req.on("data", (chunk) => (body += chunk));
    req.on("end", () => {
      requests.push({ method: req.method, url: req.url, token: req.headers["api-token"], body });
      const next = script.shift();
      if (next) next(res);
      else res.writeHead(200, { "content-type": "application/json" }).end("{}");
    });
  });
  let origin = "";

  beforeAll(async () => {
    origin = await peer.start();
  });
  afterAll(() => peer.stop());

  const reset = () => {
    requests = [];
    script = [];
  };

  it("sends the Api-Token header and the application id in the webhook path and body", async () => {
    reset();
    script.push((res) =>
      res
        .writeHead(200, { "content-type": "application/json" })
        .end(
          JSON.stringify({ enabled: false, url: "", include_members: false, enabled_events: [] }),
        ),
    );
    await clientFor(origin, { apiToken: "secret" }).webhooks.updateSettings({ enabled: false });
    expect(requests[0]).toMatchObject({
      method: "PUT",
      url: "/v1/applications/local/settings/webhook",
      token: "secret",
    });
    expect(JSON.parse(requests[0]!.body)).toEqual({ application_id: "local", enabled: false });
  });

  it("sends a migration body given as JSON text exactly as it is, and one given as an object as JSON", async () => {
    reset();
    const text =
      '{"messages":[{"message": "hi", "user_id": "u", "timestamp": 1700000000000, "message_type": "MESG"}]}';
    const client = clientFor(origin);
    await client.migration.migrateMessages("a channel", text);
    await client.migration.migrateMessages("a channel", JSON.parse(text) as never);
    expect(requests.map((request) => [request.method, request.url])).toEqual([
      ["POST", "/v3/migration/a%20channel"],
      ["POST", "/v3/migration/a%20channel"],
    ]);
    expect(requests[0]!.body).toBe(text);
    expect(JSON.parse(requests[1]!.body)).toEqual(JSON.parse(text));
  });

  it("turns an error body into a PlatformError with status and code", async () => {
    reset();
    script.push((res) =>
      res
        .writeHead(400, { "content-type": "application/json" })
        .end(JSON.stringify({ message: "User already exists.", code: 400202, error: true })),
    );
    const error = await clientFor(origin)
      .users.create({ user_id: "a", nickname: "A", profile_url: "" })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(PlatformError);
    expect(error).toMatchObject({
      kind: "http",
      status: 400,
      code: 400202,
      message: "User already exists.",
    });
    expect((error as PlatformError).transient).toBe(false);
  });

  it("waits out a 429 for as long as Retry-After says, then sends again", async () => {
    reset();
    script.push((res) =>
      res
        .writeHead(429, {
          "content-type": "application/json",
          "Retry-After": "1",
          "X-RateLimit-RetryAfter": "0.2",
        })
        .end(JSON.stringify({ message: "Too many requests.", code: 500910, error: true })),
    );
    const seen: ResponseInfo[] = [];
    const started = performance.now();
    await clientFor(origin, { onResponse: (info) => seen.push(info) }).users.delete("a");
    expect(performance.now() - started).toBeGreaterThanOrEqual(190);
    expect(requests).toHaveLength(2);
    expect(seen.map((info) => info.status)).toEqual([429, 200]);
    expect(seen[0]!.rateLimit?.retryAfterMs).toBe(200);
  });

  it("throws the 429 when retries are used up, with the wait the platform asked for", async () => {
    reset();
    script.push((res) =>
      res
        .writeHead(429, { "content-type": "application/json", "X-RateLimit-RetryAfter": "0.05" })
        .end(JSON.stringify({ message: "Too many requests.", code: 500910, error: true })),
    );
    const error = await clientFor(origin, { rateLimitRetries: 0 })
      .users.get("a")
      .catch((e: unknown) => e);
    expect(error).toMatchObject({ status: 429, code: 500910, retryAfterMs: 50 });
    expect((error as PlatformError).transient).toBe(true);
  });

  it("gives up after the per-request timeout", async () => {
    reset();
    script.push(() => {
      /* never answers */
    });
    const error = await clientFor(origin, { timeoutMs: 150 })
      .users.get("a")
      .catch((e: unknown) => e);
    expect(error).toMatchObject({ kind: "timeout", status: 0 });
    expect((error as PlatformError).transient).toBe(true);
  });

  it("reports a non-JSON success as an invalid response", async () => {
    reset();
    script.push((res) =>
      res.writeHead(200, { "content-type": "text/html" }).end("<html>proxy</html>"),
    );
    await expect(clientFor(origin).users.get("a")).rejects.toMatchObject({
      kind: "invalid_response",
    });
  });

  it("checks every answer against the shared schema, naming the operation and the field", async () => {
    reset();
    const user = {
      user_id: "a",
      nickname: "A",
      profile_url: "",
      is_online: false,
      is_active: true,
      last_seen_at: -1,
      metadata: {},
    };
    // A real platform's extra fields are fine, and dropped.
    script.push((res) =>
      res
        .writeHead(200, { "content-type": "application/json" })
        .end(JSON.stringify({ ...user, locale: "nb" })),
    );
    expect(await clientFor(origin).users.get("a")).toEqual(user);
    // A renamed field is not.
    const { user_id: _, ...renamed } = user;
    script.push((res) =>
      res
        .writeHead(200, { "content-type": "application/json" })
        .end(JSON.stringify({ users: [{ ...renamed, userId: "a" }], next: "" })),
    );
    const error = await clientFor(origin)
      .users.list()
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(PlatformError);
    expect(error).toMatchObject({
      kind: "invalid_response",
      operation: "users.list",
      field: "users.0.user_id",
    });
    expect((error as PlatformError).message).toContain(
      'users.list: the platform answered an unexpected "users.0.user_id"',
    );
  });

  it("pages with token, the vendor's parameter name, and sends the filters by their platform names", async () => {
    reset();
    script.push((res) =>
      res
        .writeHead(200, { "content-type": "application/json" })
        .end(JSON.stringify({ channels: [], next: "" })),
    );
    await clientFor(origin).groupChannels.list({
      token: "abc",
      channelUrls: ["x", "y"],
      membersIncludeIn: ["u"],
      queryType: "OR",
      showEmpty: true,
    });
    const url = new URL(requests[0]!.url!, origin);
    expect(Object.fromEntries(url.searchParams)).toEqual({
      token: "abc",
      channel_urls: "x,y",
      members_include_in: "u",
      query_type: "OR",
      show_empty: "true",
    });
  });

  it("sends the message list's thread and reaction parameters by their platform names", async () => {
    reset();
    script.push((res) =>
      res.writeHead(200, { "content-type": "application/json" }).end('{"messages":[]}'),
    );
    await clientFor(origin).messages.list("group_channels", "c/1", {
      messageTs: 0,
      messageId: 7,
      senderIds: ["a", "b"],
      includeReplyType: "only_reply_to_channel",
      includeThreadInfo: true,
      includeParentMessageInfo: false,
      includeReactions: true,
      withSortedMetaArray: true,
    });
    const url = new URL(requests[0]!.url!, origin);
    expect(url.pathname).toBe("/v3/group_channels/c%2F1/messages");
    expect(Object.fromEntries(url.searchParams)).toEqual({
      message_ts: "0",
      message_id: "7",
      sender_ids: "a,b",
      include_reply_type: "only_reply_to_channel",
      include_thread_info: "true",
      include_parent_message_info: "false",
      include_reactions: "true",
      with_sorted_meta_array: "true",
    });
  });

  it("keeps connections alive instead of opening one per request", async () => {
    const sockets = new Set<unknown>();
    const counting = scriptedPeer((req, res) => {
      sockets.add(req.socket);
      res.writeHead(200, { "content-type": "application/json" }).end("{}");
    });
    const client = clientFor(await counting.start());
    for (let i = 0; i < 20; i++) await client.users.delete(`u${i}`);
    await counting.stop();
    // Node's fetch may open a second socket while the first is being released; never twenty.
    expect(sockets.size).toBeLessThanOrEqual(2);
  });

  it("fails, not hangs, when an answer is cut short mid-body, and when the timeout ends one mid-body", async () => {
    reset();
    script.push((res) => {
      res.writeHead(200, { "content-type": "application/json", "content-length": "100" });
      res.write('{"user_id":');
      setTimeout(() => res.socket?.destroy(), 20);
    });
    const cut = await clientFor(origin)
      .users.get("a")
      .catch((e: unknown) => e);
    expect(cut).toMatchObject({ kind: "network", status: 0 });

    script.push((res) => {
      res.writeHead(200, { "content-type": "application/json", "content-length": "100" });
      res.write('{"user_id":');
    });
    const stalled = await clientFor(origin, { timeoutMs: 300 })
      .users.get("a")
      .catch((e: unknown) => e);
    expect(stalled).toMatchObject({ kind: "timeout", status: 0 });
  });

  it("does not follow a redirect: the platform never sends one, and a POST must not turn into a GET", async () => {
    reset();
    script.push((res) => res.writeHead(302, { location: "/v3/users/elsewhere" }).end());
    const error = await clientFor(origin)
      .users.get("a")
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(PlatformError);
    expect(requests).toHaveLength(1);
  });

  it("says so when nothing listens", async () => {
    const closed = scriptedPeer(() => {});
    const closedOrigin = await closed.start();
    await closed.stop();
    const error = await clientFor(closedOrigin)
      .users.get("a")
      .catch((e: unknown) => e);
    expect(error).toMatchObject({ kind: "network", status: 0 });
    expect((error as Error).message).toContain("connection refused");
  });
});

describe("platform client against the sandbox", () => {
  const sandbox = sharedSandbox();
  const client = createPlatformClient({
    appId: sandbox.appId,
    chatBaseUrl: sandbox.baseUrl,
    callsBaseUrl: sandbox.baseUrl,
    apiToken: sandbox.token,
  });

  it("reads the webhook settings with every category", async () => {
    const settings = await client.webhooks.getSettings({ displayAllCategories: true });
    expect(settings.webhook.all_webhook_categories).toHaveLength(13);
  });

  it("creates a user and then meets 400202 for the same id", async () => {
    const userId = uniqueId();
    const user = await client.users.create({ user_id: userId, nickname: "Ada", profile_url: "" });
    expect(user.user_id).toBe(userId);
    await expect(
      client.users.create({ user_id: userId, nickname: "Ada", profile_url: "" }),
    ).rejects.toMatchObject({
      status: 400,
      code: 400202,
    });
  });

  it("sends, reads, lists and counts messages, replies and reactions, and updates channels", async () => {
    const [alice, bob] = [uniqueId("alice"), uniqueId("bob")];
    for (const userId of [alice, bob])
      await client.users.create({ user_id: userId, nickname: userId, profile_url: "" });
    const channel = await client.groupChannels.create({ user_ids: [alice, bob] });
    const url = channel.channel_url;
    const root = await client.messages.send("group_channels", url, {
      message_type: "MESG",
      user_id: alice,
      message: "root",
      created_at: 1_600_000_000_000,
      dedup_id: "root",
    });
    const reply = await client.messages.send("group_channels", url, {
      message_type: "MESG",
      user_id: bob,
      message: "reply",
      parent_message_id: root.message_id,
      created_at: 1_600_000_000_001,
    });
    expect(reply.parent_message_id).toBe(root.message_id);
    const again = await client.messages.send("group_channels", url, {
      message_type: "MESG",
      user_id: alice,
      message: "root",
      dedup_id: "root",
    });
    expect(again.message_id).toBe(root.message_id);

    const added = await client.reactions.add(url, root.message_id, {
      user_id: bob,
      reaction: "heart",
    });
    expect(added).toMatchObject({ reaction: "heart", user_id: bob, success: true });
    expect(await client.reactions.list(url, root.message_id)).toEqual({
      reactions: { heart: [bob] },
    });

    const { messages } = await client.messages.list("group_channels", url, {
      messageTs: 0,
      messageId: 0,
      includeReplyType: "all",
      includeThreadInfo: true,
      includeReactions: true,
    });
    expect(messages.map((message) => message.message)).toEqual(["root", "reply"]);
    expect(messages[0]?.thread_info?.reply_count).toBe(1);
    expect(messages[0]?.reactions).toEqual([
      { key: "heart", user_ids: [bob], updated_at: added.updated_at },
    ]);
    const read = await client.messages.get("group_channels", url, reply.message_id, {
      includeParentMessageInfo: true,
    });
    expect(read.parent_message_info?.message).toBe("root");
    expect(await client.messages.totalCount("group_channels", url)).toEqual({ total: 2 });

    const edited = await client.messages.update("group_channels", url, reply.message_id, {
      message_type: "MESG",
      message: "edited",
    });
    expect(edited.message).toBe("edited");
    await client.reactions.remove(url, root.message_id, { user_id: bob, reaction: "heart" });
    expect(await client.reactions.list(url, root.message_id)).toEqual({ reactions: {} });
    await client.messages.delete("group_channels", url, reply.message_id);
    expect(await client.messages.totalCount("group_channels", url)).toEqual({ total: 1 });

    const renamed = await client.groupChannels.update(url, { name: "renamed" });
    expect(renamed).toMatchObject({
      name: "renamed",
      last_message: { message_id: root.message_id },
    });
    const open = await client.openChannels.create({ name: "lobby" });
    expect((await client.openChannels.update(open.channel_url, { name: "hall" })).name).toBe(
      "hall",
    );
    await expect(
      client.reactions.add(open.channel_url, root.message_id, { user_id: bob, reaction: "x" }),
    ).rejects.toMatchObject({ status: 400, code: 400201 });
  });

  it("reports a wrong token as 401 / 400401", async () => {
    const wrong = createPlatformClient({
      ...sandbox,
      chatBaseUrl: sandbox.baseUrl,
      callsBaseUrl: sandbox.baseUrl,
      apiToken: "nope",
    });
    await expect(wrong.users.get("x")).rejects.toMatchObject({ status: 401, code: 400401 });
  });
});

describe("platform client under the sandbox's rate limit", () => {
  let server: SandboxServer;
  beforeAll(async () => {
    server = await startSandboxServer({ SANDBOX_RATE_LIMIT: "get=5" });
  });
  afterAll(() => server.stop());

  it("honours Retry-After so that every request succeeds", async () => {
    const statuses: number[] = [];
    const client = createPlatformClient({
      appId: server.appId,
      chatBaseUrl: server.baseUrl,
      callsBaseUrl: server.baseUrl,
      apiToken: server.token,
      rateLimitRetries: 10,
      onResponse: (info) => statuses.push(info.status),
    });
    const results = await Promise.all(
      Array.from({ length: 8 }, () => client.webhooks.getSettings()),
    );
    expect(results).toHaveLength(8);
    expect(statuses.filter((status) => status === 200)).toHaveLength(8);
    expect(statuses).toContain(429);
  });
});
