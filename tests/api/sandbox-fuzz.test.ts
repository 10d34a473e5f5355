import { randomBytes } from "node:crypto";
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { hostileString as hostileStringOf, wrongValue as wrongValueOf } from "../fixtures/hostile";
import { startSandboxServer, type SandboxServer } from "./support/sandbox-server";
import { sized } from "../support/test-size";

/**
 * Property-based fuzzing of every sandbox operation (issue 8): wrong types, hostile strings,
 * odd JSON and odd paths. Whatever comes in, no answer is a 5xx, every refusal has the
 * platform's JSON error body, and a refused write leaves the state as it was (read back).
 * About 1,000 requests per run of `npm test`, 3,000 in `npm run test:slow`; FUZZ_SEED replays a
 * failure.
 */

const seed = process.env.FUZZ_SEED ? Number(process.env.FUZZ_SEED) : Date.now() % 2 ** 31;
/** A third of each property's cases in `npm test` (a new seed each run), all in `npm run test:slow`. */
const runs = (full: number) => sized(Math.ceil(full / 3), full);
const run = randomBytes(3).toString("hex");
let server: SandboxServer;
let requests = 0;

beforeAll(async () => {
  server = await startSandboxServer();
}, 60_000);

afterAll(async () => {
  console.log(`sandbox fuzz: ${requests} requests, seed ${seed}`);
  await server?.stop();
});

type Sent = { status: number; body: unknown; text: string };

async function send(
  method: string,
  target: string,
  body?: string,
  contentType = "application/json",
): Promise<Sent> {
  requests += 1;
  const headers: Record<string, string> = { "Api-Token": server.token };
  if (body !== undefined) headers["content-type"] = contentType;
  const response = await fetch(`${server.baseUrl}${target}`, { method, headers, body });
  const text = await response.text();
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    parsed = undefined;
  }
  return { status: response.status, body: parsed, text };
}

/** No 5xx; a refusal is `{message, code, error: true}`; success is JSON. */
function expectWellFormed(sent: Sent, label: string): void {
  const where = `${label} -> ${sent.status} ${sent.text.slice(0, 300)}`;
  expect(sent.status, where).toBeLessThan(500);
  if (sent.status >= 400) {
    expect(sent.body, where).toMatchObject({
      message: expect.any(String),
      code: expect.any(Number),
      error: true,
    });
  } else {
    expect(sent.body, where).toBeDefined();
  }
}

// --- Arbitraries ---------------------------------------------------------------------------

const hostileString = hostileStringOf();
const wrongValue = wrongValueOf(hostileString);

/** JSON text no JSON.stringify would write: duplicate keys, deep nesting, huge literals. */
function oddJson(base: Record<string, unknown>): fc.Arbitrary<string> {
  const inner = JSON.stringify(base).slice(1, -1);
  const [firstKey] = Object.keys(base);
  return fc.oneof(
    fc.constant(`{${inner}${inner ? "," : ""}${firstKey ? `"${firstKey}":"dup"` : '"a":1,"a":2'}}`),
    fc
      .integer({ min: 100, max: 20_000 })
      .map(
        (depth) => `{${inner}${inner ? "," : ""}"deep":${"[".repeat(depth)}${"]".repeat(depth)}}`,
      ),
    fc
      .integer({ min: 100, max: 20_000 })
      .map((depth) => `${'{"a":'.repeat(depth)}1${"}".repeat(depth)}`),
    fc.constantFrom(
      `{${inner}${inner ? "," : ""}"n":1e400}`,
      `{${inner}${inner ? "," : ""}"n":123456789012345678901234567890}`,
      `{${inner}${inner ? "," : ""}"s":"\\u0000"}`,
      `{${inner}${inner ? "," : ""}"s":"\\ud800"}`,
      `{"__proto__":{"polluted":true},${inner}}`,
      "[]",
      "null",
      "42",
      '"text"',
      "",
      "{",
      '{"a":}',
      "\u0000",
      "{}",
    ),
  );
}

/** A body: the valid one, one or two fields replaced, one removed, one added, or odd JSON. */
function mutatedBody(base: Record<string, unknown>): fc.Arbitrary<string> {
  const keys = Object.keys(base);
  const replaced = fc
    .tuple(fc.constantFrom(...(keys.length ? keys : ["x"])), wrongValue)
    .map(([key, value]) => JSON.stringify({ ...base, [key]: value }));
  return fc.oneof(
    { arbitrary: replaced, weight: 5 },
    {
      arbitrary: fc
        .tuple(replaced, wrongValue)
        .map(([body, value]) => JSON.stringify({ ...JSON.parse(body), [keys[0] ?? "y"]: value })),
      weight: 1,
    },
    {
      arbitrary: fc
        .constantFrom(...(keys.length ? keys : ["x"]))
        .map((key) => JSON.stringify({ ...base, [key]: undefined })),
      weight: 1,
    },
    {
      arbitrary: fc
        .tuple(hostileString, wrongValue)
        .map(([key, value]) => JSON.stringify({ ...base, [key]: value })),
      weight: 1,
    },
    { arbitrary: oddJson(base), weight: 2 },
    { arbitrary: fc.constant(JSON.stringify(base)), weight: 1 },
  );
}

/** A path segment: a valid one, or percent-encoding of the hostile kind. */
function segment(valid: string): fc.Arbitrary<string> {
  return fc.oneof(
    { arbitrary: fc.constant(valid), weight: 3 },
    {
      arbitrary: fc.constantFrom(
        "%zz",
        "%",
        "%E0%A4",
        "%00",
        "a%00b",
        "%ED%A0%80",
        ".",
        "..",
        "%2e",
        "%2e%2e",
        "x".repeat(9000),
        "%2F",
        "a%2Fb",
        "__proto__",
        "%20",
      ),
      weight: 2,
    },
    {
      arbitrary: hostileString.filter((text) => text.isWellFormed()).map(encodeURIComponent),
      weight: 2,
    },
  );
}

function query(names: string[]): fc.Arbitrary<string> {
  const value = fc.oneof(
    hostileString.filter((text) => text.isWellFormed()).map(encodeURIComponent),
    fc.constantFrom(
      "%zz",
      "%00",
      "%ED%A0%80",
      "-1",
      "0",
      "1",
      "100",
      "101",
      "1e3",
      "true",
      "9".repeat(400),
      "x".repeat(9000),
    ),
  );
  return fc
    .array(fc.tuple(fc.constantFrom(...names, "__proto__", "%zz"), value), { maxLength: 3 })
    .map((pairs) =>
      pairs.length ? `?${pairs.map(([name, text]) => `${name}=${text}`).join("&")}` : "",
    );
}

const uniqueId = (prefix: string) => fc.nat().map((n) => `${prefix}-${run}-${n.toString(36)}`);
/** A message of fuzz-channel that the fuzzed paths name (sent in beforeAll). */
let fuzzMessageId = 0;
const messageSegment = () => fc.constant(null).chain(() => segment(String(fuzzMessageId)));
let created = 0;
/** An id no earlier execution used (fast-check replays values while shrinking). */
const freshId = (prefix: string) => `${prefix}-${run}-x${(created += 1)}`;

type Operation = { method: string; target: string; body?: string; contentType?: string };

const operations: fc.Arbitrary<Operation> = fc.oneof(
  uniqueId("u").chain((userId) =>
    mutatedBody({ user_id: userId, nickname: "N", profile_url: "", metadata: { k: "v" } }).map(
      (body) => ({ method: "POST", target: "/v3/users", body }),
    ),
  ),
  fc
    .tuple(segment("fuzz-user"), mutatedBody({ nickname: "M", is_active: true }))
    .map(([id, body]) => ({ method: "PUT", target: `/v3/users/${id}`, body })),
  fc
    .tuple(segment("fuzz-user"), mutatedBody({ metadata: { a: "b" } }))
    .map(([id, body]) => ({ method: "PUT", target: `/v3/users/${id}/metadata`, body })),
  segment("nobody").map((id) => ({ method: "DELETE", target: `/v3/users/${id}` })),
  segment("fuzz-user").map((id) => ({ method: "GET", target: `/v3/users/${id}` })),
  query(["limit", "next", "user_ids", "active_mode", "metadatakey", "metadatavalues_in"]).map(
    (q) => ({ method: "GET", target: `/v3/users${q}` }),
  ),
  fc.constantFrom("open", "group").chain((type) =>
    fc.oneof(
      uniqueId("c").chain((url) =>
        mutatedBody(
          type === "open"
            ? { channel_url: url, name: "n" }
            : { channel_url: url, name: "n", user_ids: ["fuzz-user"] },
        ).map((body) => ({
          method: "POST",
          target: `/v3/${type}_channels`,
          body,
        })),
      ),
      query(["limit", "token", "custom_types", "show_frozen", "name_contains"]).map((q) => ({
        method: "GET",
        target: `/v3/${type}_channels${q}`,
      })),
      segment("fuzz-channel").map((url) => ({
        method: "GET",
        target: `/v3/${type}_channels/${url}`,
      })),
      fc.tuple(segment("fuzz-channel"), mutatedBody({ freeze: true })).map(([url, body]) => ({
        method: "PUT",
        target: `/v3/${type}_channels/${url}/freeze`,
        body,
      })),
      fc
        .tuple(
          segment("fuzz-channel"),
          query([
            "message_ts",
            "message_id",
            "next_limit",
            "prev_limit",
            "include",
            "reverse",
            "include_reply_type",
            "include_thread_info",
            "include_parent_message_info",
            "include_reactions",
            "with_sorted_meta_array",
          ]),
        )
        .map(([url, q]) => ({ method: "GET", target: `/v3/${type}_channels/${url}/messages${q}` })),
      fc
        .tuple(
          segment("fuzz-channel"),
          mutatedBody({
            message_type: "MESG",
            user_id: "fuzz-user",
            message: "hi",
            parent_message_id: 0,
            created_at: 1_600_000_000_000,
          }),
        )
        .map(([url, body]) => ({
          method: "POST",
          target: `/v3/${type}_channels/${url}/messages`,
          body,
        })),
      segment("fuzz-channel").map((url) => ({
        method: "GET",
        target: `/v3/${type}_channels/${url}/messages/total_count`,
      })),
      fc
        .tuple(segment("fuzz-channel"), messageSegment(), query(["include_thread_info"]))
        .map(([url, id, q]) => ({
          method: "GET",
          target: `/v3/${type}_channels/${url}/messages/${id}${q}`,
        })),
      fc
        .tuple(
          segment("fuzz-channel"),
          messageSegment(),
          mutatedBody({ message_type: "MESG", message: "edited" }),
        )
        .map(([url, id, body]) => ({
          method: "PUT",
          target: `/v3/${type}_channels/${url}/messages/${id}`,
          body,
        })),
      fc.tuple(segment("fuzz-channel"), segment("999999999")).map(([url, id]) => ({
        method: "DELETE",
        target: `/v3/${type}_channels/${url}/messages/${id}`,
      })),
      fc
        .tuple(
          segment("fuzz-channel"),
          messageSegment(),
          mutatedBody({ user_id: "fuzz-user", reaction: "ok" }),
        )
        .map(([url, id, body]) => ({
          method: "POST",
          target: `/v3/${type}_channels/${url}/messages/${id}/reactions`,
          body,
        })),
      fc
        .tuple(
          segment("fuzz-channel"),
          messageSegment(),
          query(["user_id", "reaction"]),
          fc.constantFrom("GET", "DELETE"),
        )
        .map(([url, id, q, method]) => ({
          method,
          target: `/v3/${type}_channels/${url}/messages/${id}/reactions${q}`,
        })),
      fc
        .tuple(
          segment("fuzz-channel"),
          mutatedBody({ name: "n", operator_ids: ["fuzz-user"], custom_type: "t" }),
        )
        .map(([url, body]) => ({ method: "PUT", target: `/v3/${type}_channels/${url}`, body })),
    ),
  ),
  fc
    .tuple(
      segment("fuzz-channel"),
      mutatedBody({
        messages: [
          {
            user_id: "fuzz-user",
            message_type: "MESG",
            message: "hi",
            timestamp: 1_600_000_000_000,
          },
        ],
      }),
    )
    .map(([url, body]) => ({ method: "POST", target: `/v3/migration/${url}`, body })),
  mutatedBody({ category: "room:create" }).map((body) => ({
    method: "POST",
    target: "/v1/sandbox/events",
    body,
  })),
  mutatedBody({ caller_id: "fuzz-user", callee_id: "fuzz-other" }).map((body) => ({
    method: "POST",
    target: "/v1/sandbox/direct_calls",
    body,
  })),
  mutatedBody({ created_by: "fuzz-user", invitee_ids: [] }).map((body) => ({
    method: "POST",
    target: "/v1/sandbox/rooms",
    body,
  })),
  query(["limit", "category", "outcome", "event_id", "token", "since", "until"]).map((q) => ({
    method: "GET",
    target: `/v1/sandbox/deliveries${q}`,
  })),
  query(["display_all_webhook_categories"]).map((q) => ({
    method: "GET",
    target: `/v1/applications/local/settings/webhook${q}`,
  })),
  // Delivery stays off and on loopback: the fuzz never sends anything off this machine.
  mutatedBody({
    enabled: false,
    url: "http://127.0.0.1:9/hook",
    enabled_events: ["room:create"],
  }).map((body) => ({
    method: "PUT",
    target: "/v1/applications/local/settings/webhook",
    body,
  })),
  fc
    .tuple(
      fc.constantFrom("/v3/users", "/v3/open_channels"),
      fc.constantFrom(
        "text/plain",
        "multipart/form-data; boundary=x",
        "application/x-www-form-urlencoded",
        "application/json; charset=latin1",
      ),
      hostileString,
    )
    .map(([target, contentType, body]) => ({ method: "POST", target, body, contentType })),
  fc
    .tuple(segment("x"), fc.constantFrom("GET", "POST", "PATCH", "DELETE", "PUT"))
    .map(([x, method]) => ({ method, target: `/v3/${x}/${x}` })),
);

// --- Properties ----------------------------------------------------------------------------

describe("sandbox fuzz", () => {
  beforeAll(async () => {
    // A user and channels the fuzzed paths name, so mutations reach the handlers' deeper checks.
    await send(
      "POST",
      "/v3/users",
      JSON.stringify({ user_id: "fuzz-user", nickname: "F", profile_url: "" }),
    );
    await send(
      "POST",
      "/v3/users",
      JSON.stringify({ user_id: "fuzz-other", nickname: "O", profile_url: "" }),
    );
    await send(
      "POST",
      "/v3/group_channels",
      JSON.stringify({ channel_url: "fuzz-channel", user_ids: ["fuzz-user"] }),
    );
    const message = await send(
      "POST",
      "/v3/group_channels/fuzz-channel/messages",
      JSON.stringify({ message_type: "MESG", user_id: "fuzz-user", message: "fuzzed" }),
    );
    fuzzMessageId = (message.body as { message_id: number }).message_id;
  });

  it("answers every operation without a 5xx and refuses in the JSON error shape", async () => {
    await fc.assert(
      fc.asyncProperty(operations, async (operation) => {
        const sent = await send(
          operation.method,
          operation.target,
          operation.body,
          operation.contentType,
        );
        expectWellFormed(
          sent,
          `${operation.method} ${operation.target.slice(0, 120)} ${operation.body?.slice(0, 200) ?? ""}`,
        );
      }),
      { numRuns: runs(1800), seed },
    );
  }, 120_000);

  it("leaves nothing behind when a user creation is refused", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom("user_id", "nickname", "profile_url", "metadata", "issue_access_token"),
        wrongValue,
        async (field, value) => {
          const userId = freshId("p");
          const sent = await send(
            "POST",
            "/v3/users",
            JSON.stringify({
              user_id: userId,
              nickname: "N",
              profile_url: "",
              metadata: { k: "v" },
              [field]: value,
            }),
          );
          expectWellFormed(sent, `create ${field}=${JSON.stringify(value)?.slice(0, 200)}`);
          // The user is created under the id sent: the generated one, or the fuzzed one when accepted.
          const read = await send("GET", `/v3/users/${encodeURIComponent(userId)}`);
          if (sent.status >= 400 || field === "user_id")
            expect(read.body, JSON.stringify(value)?.slice(0, 200)).toMatchObject({ code: 400201 });
          else expect(read.status).toBe(200);
          if (sent.status < 400 && field === "user_id") {
            const created = await send("GET", `/v3/users/${encodeURIComponent(String(value))}`);
            expect(created.status, JSON.stringify(value)).toBe(200);
          }
        },
      ),
      { numRuns: runs(300), seed },
    );
  }, 120_000);

  it("leaves a user as it was when an update or a metadata change is refused", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom("update", "metadata"),
        fc.constantFrom("nickname", "profile_url", "is_active", "metadata", "__proto__"),
        wrongValue,
        async (kind, field, value) => {
          const userId = freshId("m");
          await send(
            "POST",
            "/v3/users",
            JSON.stringify({
              user_id: userId,
              nickname: "F",
              profile_url: "",
              metadata: { k: "v" },
            }),
          );
          const before = await send("GET", `/v3/users/${userId}`);
          const body =
            kind === "update"
              ? { nickname: "Z", [field]: value }
              : { metadata: field === "metadata" ? value : { ok: "1", [field]: value } };
          const sent = await send(
            "PUT",
            kind === "update" ? `/v3/users/${userId}` : `/v3/users/${userId}/metadata`,
            JSON.stringify(body),
          );
          expectWellFormed(sent, `${kind} ${field}=${JSON.stringify(value)?.slice(0, 200)}`);
          const after = await send("GET", `/v3/users/${userId}`);
          if (sent.status >= 400) expect(after.body).toEqual(before.body);
          else if (kind === "metadata" && field === "__proto__") {
            // Stored faithfully: the key is an item like any other.
            expect((after.body as { metadata: Record<string, unknown> }).metadata).toHaveProperty(
              ["__proto__"],
              value,
            );
          }
        },
      ),
      { numRuns: runs(200), seed },
    );
  }, 120_000);

  it("leaves nothing behind when a channel creation or a migration is refused", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom("channel_url", "name", "data", "custom_type", "cover_url"),
        wrongValue,
        async (field, value) => {
          const url = freshId("pc");
          const sent = await send(
            "POST",
            "/v3/open_channels",
            JSON.stringify({ channel_url: url, name: "n", [field]: value }),
          );
          expectWellFormed(sent, `channel ${field}=${JSON.stringify(value)?.slice(0, 200)}`);
          const read = await send("GET", `/v3/open_channels/${url}`);
          if (sent.status >= 400 || field === "channel_url")
            expect(read.body).toMatchObject({ code: 400201 });
          else expect(read.status).toBe(200);
          const migration = await send(
            "POST",
            `/v3/migration/fuzz-channel`,
            JSON.stringify({
              messages: [
                {
                  user_id: "fuzz-user",
                  message_type: "MESG",
                  message: "ok",
                  timestamp: 1,
                  dedup_id: url,
                },
                {
                  user_id: "fuzz-user",
                  message_type: "MESG",
                  message: "m",
                  timestamp: 2,
                  [field === "channel_url" ? "message" : field]: value,
                },
              ],
            }),
          );
          expectWellFormed(migration, `migration ${field}=${JSON.stringify(value)?.slice(0, 200)}`);
          if (migration.status >= 400) {
            const messages = await send(
              "GET",
              "/v3/group_channels/fuzz-channel/messages?message_ts=0&next_limit=200",
            );
            expect(JSON.stringify(messages.body)).not.toContain(url);
          }
        },
      ),
      { numRuns: runs(200), seed },
    );
  }, 120_000);

  it("stores nothing when a send is refused, and one message when it is not", async () => {
    await send(
      "POST",
      "/v3/group_channels",
      JSON.stringify({ channel_url: `fuzz-send-${run}`, user_ids: ["fuzz-user"] }),
    );
    const total = async () =>
      (
        (await send("GET", `/v3/group_channels/fuzz-send-${run}/messages/total_count`)).body as {
          total: number;
        }
      ).total;
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom(
          "message_type",
          "user_id",
          "message",
          "custom_type",
          "data",
          "mentioned_user_ids",
          "sorted_metaarray",
          "is_silent",
          "created_at",
          "parent_message_id",
          "dedup_id",
        ),
        wrongValue,
        async (field, value) => {
          const before = await total();
          const sent = await send(
            "POST",
            `/v3/group_channels/fuzz-send-${run}/messages`,
            JSON.stringify({
              message_type: "MESG",
              user_id: "fuzz-user",
              message: "m",
              // A dedup_id of its own: an accepted send always stores one message.
              dedup_id: freshId("s"),
              [field]: value,
            }),
          );
          expectWellFormed(sent, `send ${field}=${JSON.stringify(value)?.slice(0, 200)}`);
          expect(await total()).toBe(sent.status >= 400 ? before : before + 1);
        },
      ),
      { numRuns: runs(150), seed },
    );
  }, 120_000);

  it("leaves a channel and a message's reactions as they were when a change is refused", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom("open", "group"),
        fc.constantFrom(
          "name",
          "cover_url",
          "custom_type",
          "data",
          "operator_ids",
          "is_public",
          "is_super",
          "access_code",
        ),
        wrongValue,
        async (type, field, value) => {
          const read = () => send("GET", `/v3/${type}_channels/fuzz-channel-${type}-${run}`);
          if ((await read()).status !== 200)
            await send(
              "POST",
              `/v3/${type}_channels`,
              JSON.stringify({
                channel_url: `fuzz-channel-${type}-${run}`,
                ...(type === "group" && { user_ids: ["fuzz-user"] }),
              }),
            );
          const before = await read();
          const sent = await send(
            "PUT",
            `/v3/${type}_channels/fuzz-channel-${type}-${run}`,
            JSON.stringify({ name: "renamed", [field]: value }),
          );
          expectWellFormed(sent, `update ${field}=${JSON.stringify(value)?.slice(0, 200)}`);
          if (sent.status >= 400) expect((await read()).body).toEqual(before.body);

          const reactions = () =>
            send("GET", `/v3/group_channels/fuzz-channel/messages/${fuzzMessageId}/reactions`);
          const beforeReactions = await reactions();
          const reacted = await send(
            "POST",
            `/v3/group_channels/fuzz-channel/messages/${fuzzMessageId}/reactions`,
            JSON.stringify({ user_id: "fuzz-user", reaction: value }),
          );
          expectWellFormed(reacted, `reaction ${JSON.stringify(value)?.slice(0, 200)}`);
          if (reacted.status >= 400) expect((await reactions()).body).toEqual(beforeReactions.body);
        },
      ),
      { numRuns: runs(150), seed },
    );
  }, 120_000);

  it("refuses a URL over 8 KB with 414 and one over 16 KB in the JSON error shape", async () => {
    const long = await send("GET", `/v3/users?user_ids=${"a".repeat(9 * 1024)}`);
    expect(long.status).toBe(414);
    expect(long.body).toMatchObject({ code: 400111, error: true });
    const huge = await send("GET", `/v3/users?user_ids=${"a".repeat(20 * 1024)}`);
    expect(huge.status).toBe(414);
    expect(huge.body).toMatchObject({ code: 400111, error: true });
  });
});
