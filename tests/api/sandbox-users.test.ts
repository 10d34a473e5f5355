import { describe, expect, it } from "vitest";
import {
  call,
  expectPlatformError,
  sharedSandbox,
  uniqueId,
  type ApiResponse,
} from "./support/http";

type User = {
  user_id: string;
  nickname: string;
  profile_url: string;
  access_token: string;
  session_tokens: Array<{ session_token: string; expires_at: number }>;
  is_active: boolean;
  metadata: Record<string, string>;
  created_at: number;
};

const sandbox = sharedSandbox();

const pngBytes = (size = 64) => withMagic(size, [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
const jpgBytes = (size = 64) => withMagic(size, [0xff, 0xd8, 0xff, 0xe0]);

function withMagic(size: number, magic: number[]): Uint8Array<ArrayBuffer> {
  const bytes = new Uint8Array(size);
  bytes.set(magic);
  for (let i = magic.length; i < size; i++) bytes[i] = i % 251;
  return bytes;
}

function newUser(overrides: Record<string, unknown> = {}) {
  return { user_id: uniqueId(), nickname: "Ada", profile_url: "", ...overrides };
}

function createUser(body: unknown) {
  return call<User>(sandbox, "POST", "/v3/users", body);
}

function createMultipart(fields: Record<string, string | Blob>, fileName?: string) {
  const form = new FormData();
  for (const [name, value] of Object.entries(fields)) {
    if (typeof value === "string") form.append(name, value);
    else form.append(name, value, fileName ?? "avatar.png");
  }
  return call<User>(sandbox, "POST", "/v3/users", undefined, { rawBody: form });
}

function getUser(userId: string) {
  return call<User>(sandbox, "GET", `/v3/users/${encodeURIComponent(userId)}`);
}

async function expectNoUser(userId: string) {
  expectPlatformError(await getUser(userId), 400, 400201);
}

function expectCreateError(response: ApiResponse, code: number, field: string) {
  const error = expectPlatformError(response, 400, code);
  expect(error.message).toContain(field);
}

describe("POST /v3/users (JSON)", () => {
  it("creates a user with the contract's defaults", async () => {
    const body = newUser({ nickname: "Grace", profile_url: "https://example.com/g.png" });
    const before = Date.now();
    const response = await createUser(body);
    expect(response.status).toBe(200);
    expect(response.body).toEqual({
      user_id: body.user_id,
      nickname: "Grace",
      profile_url: "https://example.com/g.png",
      access_token: "",
      is_online: false,
      is_active: true,
      is_created: true,
      phone_number: "",
      require_auth_for_profile_image: false,
      session_tokens: [],
      last_seen_at: -1,
      discovery_keys: [],
      preferred_languages: [],
      has_ever_logged_in: false,
      metadata: {},
      created_at: expect.any(Number),
    });
    // In milliseconds, as the contract gives user times.
    expect(response.body.created_at).toBeGreaterThanOrEqual(before);
    expect(response.body.created_at).toBeLessThanOrEqual(Date.now());
    expect((await getUser(body.user_id)).body).toEqual(response.body);
  });

  it("issues an access token when asked", async () => {
    const response = await createUser(newUser({ issue_access_token: true }));
    expect(response.status).toBe(200);
    expect(response.body.access_token).toMatch(/^[0-9a-f]{40}$/);
    expect((await createUser(newUser({ issue_access_token: false }))).body.access_token).toBe("");
  });

  it("issues a deprecated session token expiring in seven days by default", async () => {
    const before = Date.now();
    const response = await createUser(newUser({ issue_session_token: true }));
    expect(response.status).toBe(200);
    const [token, ...others] = response.body.session_tokens;
    expect(others).toEqual([]);
    expect(token?.session_token).toMatch(/^[0-9a-f]{40}$/);
    expect(token?.expires_at).toBeGreaterThanOrEqual(before + 604_800_000);
    expect(token?.expires_at).toBeLessThanOrEqual(Date.now() + 604_800_000);
  });

  it("uses session_token_expires_at when given (13-digit milliseconds)", async () => {
    const expiresAt = 1_900_000_000_000;
    const response = await createUser(
      newUser({ issue_session_token: true, session_token_expires_at: expiresAt }),
    );
    expect(response.body.session_tokens).toEqual([
      { session_token: expect.any(String), expires_at: expiresAt },
    ]);
    const withoutIssue = await createUser(newUser({ session_token_expires_at: expiresAt }));
    expect(withoutIssue.body.session_tokens).toEqual([]);
  });

  it.each([
    ["12 digits", 999_999_999_999, 400111],
    ["14 digits", 10_000_000_000_000, 400111],
    ["a fraction", 1_900_000_000_000.5, 400100],
    ["a string", "1900000000000", 400100],
  ])("refuses session_token_expires_at as %s", async (_label, value, code) => {
    const body = newUser({ issue_session_token: true, session_token_expires_at: value });
    expectCreateError(await createUser(body), code, "session_token_expires_at");
    await expectNoUser(body.user_id);
  });

  it("stores metadata up to five items", async () => {
    const metadata = { a: "1", b: "2", c: "3", d: "4", e: "" };
    const response = await createUser(newUser({ metadata }));
    expect(response.status).toBe(200);
    expect(response.body.metadata).toEqual(metadata);
  });

  it("stores booleans and whole numbers as the platform's text of them", async () => {
    // What the vendor's own SDK test sends and reads back.
    const response = await createUser(
      newUser({ metadata: { level: "5", vip: true, banned: false, score: 5, debt: -12 } }),
    );
    expect(response.status, JSON.stringify(response.body)).toBe(200);
    const metadata = { level: "5", vip: "True", banned: "False", score: "5", debt: "-12" };
    expect(response.body.metadata).toEqual(metadata);
    expect((await getUser(response.body.user_id)).body.metadata).toEqual(metadata);
  });

  it.each([
    ["six items", { a: "1", b: "2", c: "3", d: "4", e: "5", f: "6" }, 400111],
    ["a key with a comma", { "a,b": "1" }, 400111],
    ["an empty key", { "": "1" }, 400111],
    ["a fraction value", { a: 1.5 }, 400100],
    ["an integer beyond 2^53", { a: 2 ** 60 }, 400100],
    ["an object value", { a: { b: "c" } }, 400100],
    ["an array value", { a: ["b"] }, 400100],
    ["a null value", { a: null }, 400100],
    ["an array", ["a"], 400100],
    ["a string", "a=1", 400100],
  ])("refuses metadata with %s", async (_label, metadata, code) => {
    const body = newUser({ metadata });
    expectCreateError(await createUser(body), code, "metadata");
    await expectNoUser(body.user_id);
  });

  it("accepts user_id, nickname and profile_url at their limits and refuses one character more", async () => {
    const atLimit = newUser({
      user_id: `${uniqueId()}_`.padEnd(80, "x"),
      nickname: "n".repeat(80),
      profile_url: `https://example.com/${"p".repeat(2048 - 20)}`,
    });
    expect(atLimit.profile_url).toHaveLength(2048);
    const response = await createUser(atLimit);
    expect(response.status).toBe(200);
    expect(response.body.user_id).toHaveLength(80);

    expectCreateError(
      await createUser(newUser({ user_id: `${uniqueId()}_`.padEnd(81, "x") })),
      400110,
      "user_id",
    );
    const tooLongNickname = newUser({ nickname: "n".repeat(81) });
    expectCreateError(await createUser(tooLongNickname), 400110, "nickname");
    const tooLongUrl = newUser({ profile_url: `${atLimit.profile_url}x` });
    expectCreateError(await createUser(tooLongUrl), 400110, "profile_url");
    await expectNoUser(tooLongNickname.user_id);
    await expectNoUser(tooLongUrl.user_id);
  });

  it.each(["user_id", "nickname", "profile_url"])(
    "refuses a body without %s with 400105",
    async (field) => {
      const body: Record<string, unknown> = newUser();
      delete body[field];
      expectCreateError(await createUser(body), 400105, field);
    },
  );

  it.each([
    ["user_id", 42],
    ["user_id", null],
    ["nickname", true],
    ["profile_url", 7],
    ["issue_access_token", "true"],
    ["issue_session_token", 1],
  ])("refuses %s of the wrong type (%j) with 400100", async (field, value) => {
    const body = newUser({ [field]: value });
    expectCreateError(await createUser(body), 400100, field);
  });

  it("stores text that looks like SQL, quotes and backslashes exactly as sent", async () => {
    // The hot path writes through PREPAREd statements with literals on PGlite: nothing in a
    // value may be read as SQL.
    const awkward = `O'Brien '' \\ \\' $1 '); drop table sandbox_users; -- 😀 "x"`;
    const userId = `${uniqueId()}'\\$1`;
    const created = await createUser(
      newUser({ user_id: userId, nickname: awkward, metadata: { [awkward]: awkward } }),
    );
    expect(created.status).toBe(200);
    const read = await getUser(userId);
    expect(read.body).toMatchObject({
      user_id: userId,
      nickname: awkward,
      metadata: { [awkward]: awkward },
    });
  });

  it("refuses an empty user_id with 400111", async () => {
    expectCreateError(await createUser(newUser({ user_id: "" })), 400111, "user_id");
  });

  it("ignores unknown fields", async () => {
    const body = newUser({ favourite_colour: "green", is_online: true, phone_number: "+100" });
    const response = await createUser(body);
    expect(response.status).toBe(200);
    expect(response.body).not.toHaveProperty("favourite_colour");
    expect(response.body).toMatchObject({ is_online: false, phone_number: "" });
  });

  it.each([
    ["malformed JSON", '{"user_id": '],
    ["a JSON array", "[]"],
    ["JSON null", "null"],
    ["a JSON string", '"user"'],
    ["an empty body", ""],
  ])("refuses %s with 400403", async (_label, rawBody) => {
    const response = await call(sandbox, "POST", "/v3/users", undefined, {
      headers: { "content-type": "application/json" },
      rawBody,
    });
    expectPlatformError(response, 400, 400403);
  });

  it("refuses a duplicate user_id with 400202 and keeps the first user", async () => {
    const body = newUser({ nickname: "first" });
    expect((await createUser(body)).status).toBe(200);
    expectPlatformError(await createUser({ ...body, nickname: "second" }), 400, 400202);
    expect((await getUser(body.user_id)).body.nickname).toBe("first");
  });

  it("lets exactly one of many concurrent creations of the same user_id succeed", async () => {
    const userId = uniqueId();
    const responses = await Promise.all(
      Array.from({ length: 12 }, (_, i) =>
        createUser(newUser({ user_id: userId, nickname: `n${i}` })),
      ),
    );
    expect(responses.filter((r) => r.status === 200)).toHaveLength(1);
    for (const response of responses.filter((r) => r.status !== 200))
      expectPlatformError(response, 400, 400202);
  });
});

describe("POST /v3/users (multipart)", () => {
  it("stores a PNG profile_file and answers with the URL that serves it", async () => {
    const userId = uniqueId();
    const image = pngBytes(300);
    const response = await createMultipart({
      user_id: userId,
      nickname: "Pic",
      profile_file: new Blob([image]),
    });
    expect(response.status).toBe(200);
    expect(response.body.profile_url).toMatch(new RegExp(`^${sandbox.baseUrl}/files/[0-9a-f]+$`));
    const served = await fetch(response.body.profile_url);
    expect(served.status).toBe(200);
    expect(served.headers.get("content-type")).toBe("image/png");
    expect(new Uint8Array(await served.arrayBuffer())).toEqual(image);
    expect((await getUser(userId)).body.profile_url).toBe(response.body.profile_url);
  });

  it("stores a JPG, whatever its file name says", async () => {
    const response = await createMultipart(
      { user_id: uniqueId(), nickname: "Jay", profile_file: new Blob([jpgBytes()]) },
      "photo.jpeg",
    );
    expect(response.status).toBe(200);
    expect((await fetch(response.body.profile_url)).headers.get("content-type")).toBe("image/jpeg");
  });

  it("prefers an uploaded file over a profile_url sent beside it", async () => {
    const response = await createMultipart({
      user_id: uniqueId(),
      nickname: "Both",
      profile_url: "https://example.com/ignored.png",
      profile_file: new Blob([pngBytes()]),
    });
    expect(response.body.profile_url).toContain("/files/");
  });

  it("reads text fields: profile_url instead of a file, booleans as true/false, no metadata", async () => {
    const response = await createMultipart({
      user_id: uniqueId(),
      nickname: "Texty",
      profile_url: "https://example.com/t.png",
      issue_access_token: "true",
      issue_session_token: "false",
      metadata: '{"a":"1"}',
    });
    expect(response.status).toBe(200);
    expect(response.body).toMatchObject({
      profile_url: "https://example.com/t.png",
      metadata: {},
      session_tokens: [],
    });
    expect(response.body.access_token).not.toBe("");
  });

  it("reads session_token_expires_at as digits", async () => {
    const response = await createMultipart({
      user_id: uniqueId(),
      nickname: "S",
      profile_url: "",
      issue_session_token: "true",
      session_token_expires_at: "1900000000000",
    });
    expect(response.body.session_tokens[0]?.expires_at).toBe(1_900_000_000_000);
  });

  it("refuses a boolean field that is not true or false with 400100", async () => {
    const userId = uniqueId();
    const response = await createMultipart({
      user_id: userId,
      nickname: "B",
      profile_url: "",
      issue_access_token: "yes",
    });
    expectCreateError(response, 400100, "issue_access_token");
  });

  it("refuses a request with neither profile_url nor profile_file with 400105", async () => {
    expectCreateError(
      await createMultipart({ user_id: uniqueId(), nickname: "None" }),
      400105,
      "profile_url",
    );
  });

  it("refuses a profile_file sent as text with 400100", async () => {
    const response = await createMultipart({
      user_id: uniqueId(),
      nickname: "T",
      profile_file: "not a file",
    });
    expectCreateError(response, 400100, "profile_file");
  });

  it("refuses a text file named .png with 400111 and writes nothing", async () => {
    const userId = uniqueId();
    const text = new Blob(["this is not an image, only text pretending to be one"], {
      type: "image/png",
    });
    expectCreateError(
      await createMultipart({ user_id: userId, nickname: "Fake", profile_file: text }, "fake.png"),
      400111,
      "profile_file",
    );
    await expectNoUser(userId);
  });

  it("treats an empty file part (an empty file input) as no file", async () => {
    const empty = new Blob([]);
    const withoutUrl = await createMultipart(
      { user_id: uniqueId(), nickname: "E", profile_file: empty },
      "",
    );
    expectCreateError(withoutUrl, 400105, "profile_url");
    const withUrl = await createMultipart(
      {
        user_id: uniqueId(),
        nickname: "E",
        profile_url: "https://example.com/e.png",
        profile_file: empty,
      },
      "",
    );
    expect(withUrl.status).toBe(200);
    expect(withUrl.body.profile_url).toBe("https://example.com/e.png");
  });

  // Writing 5 MB into embedded PGlite takes a couple of seconds, far more on a busy machine.
  it("accepts an image of exactly 5 MB", { timeout: 90_000 }, async () => {
    const atLimit = await createMultipart({
      user_id: uniqueId(),
      nickname: "Big",
      profile_file: new Blob([pngBytes(5 * 1024 * 1024)]),
    });
    expect(atLimit.status).toBe(200);
    expect((await fetch(atLimit.body.profile_url)).headers.get("content-length")).toBe(
      String(5 * 1024 * 1024),
    );
  });

  it("refuses an image one byte over 5 MB with 400110 and writes nothing", async () => {
    const userId = uniqueId();
    const overLimit = await createMultipart({
      user_id: userId,
      nickname: "Bigger",
      profile_file: new Blob([pngBytes(5 * 1024 * 1024 + 1)]),
    });
    expectCreateError(overLimit, 400110, "profile_file");
    await expectNoUser(userId);
  });

  it("applies the same field rules as JSON (user_id over 80 characters)", async () => {
    const response = await createMultipart({
      user_id: "u".repeat(81),
      nickname: "Long",
      profile_file: new Blob([pngBytes()]),
    });
    expectCreateError(response, 400110, "user_id");
  });

  it("refuses a duplicate with an image with 400202, leaving the first user as it was", async () => {
    const userId = uniqueId();
    const first = await createMultipart({
      user_id: userId,
      nickname: "One",
      profile_file: new Blob([pngBytes()]),
    });
    expect(first.status).toBe(200);
    const responses = await Promise.all(
      [1, 2, 3].map(() =>
        createMultipart({ user_id: userId, nickname: "Two", profile_file: new Blob([jpgBytes()]) }),
      ),
    );
    for (const response of responses) expectPlatformError(response, 400, 400202);
    expect((await getUser(userId)).body).toMatchObject({
      nickname: "One",
      profile_url: first.body.profile_url,
    });
  });

  it("refuses a malformed multipart body with 400403", async () => {
    const response = await call(sandbox, "POST", "/v3/users", undefined, {
      headers: { "content-type": "multipart/form-data; boundary=nope" },
      rawBody: "this is not multipart at all",
    });
    expectPlatformError(response, 400, 400403);
  });
});

describe("GET /v3/users/{user_id}", () => {
  it("answers 400201 for a user that does not exist", async () => {
    expect(expectPlatformError(await getUser(uniqueId("missing")), 400, 400201).message).toContain(
      "missing",
    );
  });

  it("finds users whose id needs escaping in a path", async () => {
    const userId = `${uniqueId()} a/b?c%d`;
    expect((await createUser(newUser({ user_id: userId }))).status).toBe(200);
    const response = await getUser(userId);
    expect(response.status).toBe(200);
    expect(response.body.user_id).toBe(userId);
  });
});

describe("GET /v3/users", () => {
  type Page = { users: User[]; next: string };
  const list = (query: string) => call<Page>(sandbox, "GET", `/v3/users?${query}`);

  async function createUsers(count: number): Promise<string[]> {
    const userIds: string[] = [];
    // One after the other: the list's order is the order of creation.
    for (let i = 0; i < count; i++) {
      const userId = uniqueId(`l${i}`);
      expect((await createUser(newUser({ user_id: userId }))).status).toBe(200);
      userIds.push(userId);
    }
    return userIds;
  }

  it("pages through the named users in creation order with an opaque next token", async () => {
    const userIds = await createUsers(5);
    const seen: string[] = [];
    let next = "";
    const pages: number[] = [];
    do {
      const response = await list(
        `user_ids=${userIds.join(",")}&limit=2&next=${encodeURIComponent(next)}`,
      );
      expect(response.status).toBe(200);
      pages.push(response.body.users.length);
      seen.push(...response.body.users.map((user) => user.user_id));
      next = response.body.next;
    } while (next !== "" && pages.length < 10);
    expect(pages).toEqual([2, 2, 1]);
    expect(seen).toEqual(userIds);
  });

  it("returns ten users by default and at most 100", async () => {
    const userIds = await createUsers(12);
    const response = await list(`user_ids=${userIds.join(",")}`);
    expect(response.body.users.map((user) => user.user_id)).toEqual(userIds.slice(0, 10));
    expect(response.body.next).not.toBe("");
    const all = await list(`user_ids=${userIds.join(",")}&limit=100`);
    expect(all.body.users).toHaveLength(12);
    expect(all.body.next).toBe("");
    expect((await list("limit=1")).body.users).toHaveLength(1);
  });

  it("ignores ids that do not exist and empty items", async () => {
    const [userId] = await createUsers(1);
    const response = await list(`user_ids=${uniqueId("nobody")},,${userId},`);
    expect(response.body).toEqual({
      users: [expect.objectContaining({ user_id: userId })],
      next: "",
    });
  });

  it.each([
    ["limit=0", 400111, "limit"],
    ["limit=101", 400111, "limit"],
    ["limit=ten", 400100, "limit"],
    ["limit=", 400100, "limit"],
    ["next=garbage", 400111, "token"],
    ["token=garbage", 400111, "token"],
    [`user_ids=${Array.from({ length: 251 }, (_, i) => `u${i}`).join(",")}`, 400111, "user_ids"],
  ])("refuses %s", async (query, code, field) => {
    expect(expectPlatformError(await list(query), 400, code).message).toContain(field);
  });
});

describe("PUT /v3/users/{user_id}", () => {
  const update = (userId: string, body: unknown) =>
    call<User>(sandbox, "PUT", `/v3/users/${encodeURIComponent(userId)}`, body);

  async function existingUser(): Promise<string> {
    const body = newUser({ metadata: { team: "blue" } });
    expect((await createUser(body)).status).toBe(200);
    return body.user_id;
  }

  it("deactivates a user with is_active false and keeps everything else", async () => {
    const userId = await existingUser();
    const before = (await getUser(userId)).body;
    const response = await update(userId, { is_active: false });
    expect(response.status).toBe(200);
    expect(response.body).toEqual({ ...before, is_active: false });
    expect((await getUser(userId)).body.is_active).toBe(false);
    expect((await update(userId, { is_active: true })).body.is_active).toBe(true);
  });

  it("changes nickname and profile_url, at their limits", async () => {
    const userId = await existingUser();
    const profileUrl = `https://example.com/${"q".repeat(2048 - 20)}`;
    const response = await update(userId, { nickname: "m".repeat(80), profile_url: profileUrl });
    expect(response.body).toMatchObject({
      nickname: "m".repeat(80),
      profile_url: profileUrl,
      is_active: true,
    });
  });

  it("answers an empty body with the unchanged user and ignores unknown fields", async () => {
    const userId = await existingUser();
    const before = (await getUser(userId)).body;
    expect((await update(userId, {})).body).toEqual(before);
    expect((await update(userId, { user_id: "renamed", metadata: {} })).body).toEqual(before);
  });

  it.each([
    [{ is_active: "false" }, 400100, "is_active"],
    [{ nickname: 3 }, 400100, "nickname"],
    [{ profile_url: false }, 400100, "profile_url"],
    [{ nickname: "n".repeat(81) }, 400110, "nickname"],
    [{ profile_url: "p".repeat(2049) }, 400110, "profile_url"],
  ])("refuses %j and changes nothing", async (body, code, field) => {
    const userId = await existingUser();
    const before = (await getUser(userId)).body;
    expectCreateError(await update(userId, { is_active: false, ...body }), code, field);
    expect((await getUser(userId)).body).toEqual(before);
  });

  it("answers 400201 for a user that does not exist, 400403 for a body that is not an object", async () => {
    expectPlatformError(await update(uniqueId("missing"), { nickname: "x" }), 400, 400201);
    const userId = await existingUser();
    expectPlatformError(await update(userId, [{ nickname: "x" }]), 400, 400403);
  });
});

describe("PUT /v3/users/{user_id}/metadata", () => {
  const putMetadata = (userId: string, body: unknown) =>
    call<Record<string, string>>(
      sandbox,
      "PUT",
      `/v3/users/${encodeURIComponent(userId)}/metadata`,
      body,
    );

  async function userWithMetadata(metadata: Record<string, string>): Promise<string> {
    const body = newUser({ metadata });
    expect((await createUser(body)).status).toBe(200);
    return body.user_id;
  }

  it("updates the given items, keeps the rest, and answers the updated items only", async () => {
    const userId = await userWithMetadata({ team: "blue", city: "Oslo" });
    const response = await putMetadata(userId, { metadata: { city: "Bergen" } });
    expect(response.status).toBe(200);
    expect(response.body).toEqual({ city: "Bergen" });
    expect((await getUser(userId)).body.metadata).toEqual({ team: "blue", city: "Bergen" });
  });

  it("refuses a key that does not exist without upsert (400201), adds it with upsert", async () => {
    const userId = await userWithMetadata({ team: "blue" });
    expectCreateError(
      await putMetadata(userId, { metadata: { team: "red", lang: "nb" } }),
      400201,
      "lang",
    );
    expect((await getUser(userId)).body.metadata).toEqual({ team: "blue" });
    const upserted = await putMetadata(userId, {
      metadata: { team: "red", lang: "nb" },
      upsert: true,
    });
    expect(upserted.body).toEqual({ team: "red", lang: "nb" });
    expect((await getUser(userId)).body.metadata).toEqual({ team: "red", lang: "nb" });
  });

  it("adds metadata to a user created by multipart, which has none", async () => {
    const created = await createMultipart({
      user_id: uniqueId(),
      nickname: "M",
      profile_file: new Blob([pngBytes()]),
    });
    const response = await putMetadata(created.body.user_id, {
      metadata: { a: "1" },
      upsert: true,
    });
    expect(response.body).toEqual({ a: "1" });
  });

  it("allows five items and refuses a sixth with 400111, changing nothing", async () => {
    const userId = await userWithMetadata({ a: "1", b: "2", c: "3", d: "4" });
    expect(
      (await putMetadata(userId, { metadata: { a: "one", e: "5" }, upsert: true })).body,
    ).toEqual({ a: "one", e: "5" });
    expectCreateError(
      await putMetadata(userId, { metadata: { f: "6" }, upsert: true }),
      400111,
      "metadata",
    );
    expect((await getUser(userId)).body.metadata).toEqual({
      a: "one",
      b: "2",
      c: "3",
      d: "4",
      e: "5",
    });
    // Overwriting within the cap still works.
    expect((await putMetadata(userId, { metadata: { e: "five" } })).status).toBe(200);
  });

  it("keeps the cap under concurrent updates", async () => {
    const userId = await userWithMetadata({ a: "1", b: "2", c: "3" });
    const responses = await Promise.all(
      ["x", "y", "z", "w"].map((key) =>
        putMetadata(userId, { metadata: { [`${key}1`]: "1", [`${key}2`]: "2" }, upsert: true }),
      ),
    );
    expect(responses.filter((r) => r.status === 200)).toHaveLength(1);
    for (const response of responses.filter((r) => r.status !== 200))
      expectPlatformError(response, 400, 400111);
    expect(Object.keys((await getUser(userId)).body.metadata)).toHaveLength(5);
  });

  it.each([
    [{}, 400105],
    [{ metadata: "a=1" }, 400100],
    [{ metadata: { a: { b: 1 } } }, 400100],
    [{ metadata: { a: [1] } }, 400100],
    [{ metadata: { "a,b": "1" } }, 400111],
    [{ metadata: { a: "1", b: "2", c: "3", d: "4", e: "5", f: "6" }, upsert: true }, 400111],
  ])("refuses %j", async (body, code) => {
    const userId = await userWithMetadata({});
    expectCreateError(await putMetadata(userId, body), code, "metadata");
    expect((await getUser(userId)).body.metadata).toEqual({});
  });

  it("answers 400201 for a user that does not exist", async () => {
    expectPlatformError(
      await putMetadata(uniqueId("missing"), { metadata: { a: "1" }, upsert: true }),
      400,
      400201,
    );
  });
});

describe("DELETE /v3/users/{user_id}", () => {
  it("deletes a user, which then no longer exists, and frees its user_id", async () => {
    const body = newUser();
    expect((await createUser(body)).status).toBe(200);
    const response = await call(sandbox, "DELETE", `/v3/users/${body.user_id}`);
    expect(response.status).toBe(200);
    expect(response.body).toEqual({});
    await expectNoUser(body.user_id);
    expectPlatformError(await call(sandbox, "DELETE", `/v3/users/${body.user_id}`), 400, 400201);
    expect((await createUser(body)).status).toBe(200);
  });
});
