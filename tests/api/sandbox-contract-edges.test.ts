import net from "node:net";
import { describe, expect, it } from "vitest";
import {
  call,
  expectPlatformError,
  sharedSandbox,
  uniqueId,
  type ApiResponse,
} from "./support/http";

/**
 * The contract's edges that no ordinary client reaches (issue 27): text that begins with a byte
 * order mark, bytes that are not UTF-8, a form field sent twice, a request without a usable
 * Host header, a value of the wrong type where one of a list of strings is expected.
 */

const sandbox = sharedSandbox();
const bom = "\ufeff";

type User = { user_id: string; nickname: string; metadata: Record<string, string> };
type Message = { message: string; data: string; custom_type: string };

const getUser = (userId: string) =>
  call<User>(sandbox, "GET", `/v3/users/${encodeURIComponent(userId)}`);

/** A request body sent as these exact bytes. */
function sendBytes(method: string, pathname: string, contentType: string, bytes: Uint8Array) {
  return call(sandbox, method, pathname, undefined, {
    headers: { "content-type": contentType },
    rawBody: Buffer.from(bytes),
  });
}

const utf8 = (text: string) => Buffer.from(text, "utf8");
const bytes = (...parts: Array<string | number[]>) =>
  Buffer.concat(parts.map((part) => (typeof part === "string" ? utf8(part) : Buffer.from(part))));

type FormPart = [name: string, value: string | number[] | Buffer, file?: string];

/** A multipart/form-data body: each part's value as the bytes given, a file when named. */
function multipart(parts: FormPart[]): Buffer {
  const chunks = parts.flatMap(([name, value, file]) => [
    utf8(
      file === undefined
        ? `--edge\r\nContent-Disposition: form-data; name="${name}"\r\n\r\n`
        : `--edge\r\nContent-Disposition: form-data; name="${name}"; filename="${file}"\r\nContent-Type: image/png\r\n\r\n`,
    ),
    typeof value === "string" ? utf8(value) : Buffer.from(value),
    utf8("\r\n"),
  ]);
  return Buffer.concat([...chunks, utf8("--edge--\r\n")]);
}
const multipartType = "multipart/form-data; boundary=edge";
const sendForm = (pathname: string, parts: FormPart[]) =>
  sendBytes("POST", pathname, multipartType, multipart(parts));

describe("text that begins with a byte order mark (U+FEFF)", () => {
  it("is stored and answered as sent in a user's id, nickname and metadata", async () => {
    const plain = uniqueId("bom");
    const userId = `${bom}${plain}`;
    const created = await call<User>(sandbox, "POST", "/v3/users", {
      user_id: userId,
      nickname: `${bom}Nick`,
      profile_url: "",
      metadata: { [`${bom}key`]: `${bom}value` },
    });
    expect(created.status, JSON.stringify(created.body)).toBe(200);
    expect(created.body).toMatchObject({
      user_id: userId,
      nickname: `${bom}Nick`,
      metadata: { [`${bom}key`]: `${bom}value` },
    });
    // The reproduction: the list finds it by its id, byte order mark and all.
    const listed = await call<{ users: User[] }>(
      sandbox,
      "GET",
      `/v3/users?user_ids=%EF%BB%BF${plain}`,
    );
    expect(listed.body.users.map((user) => user.user_id)).toEqual([userId]);
    expect((await getUser(userId)).body).toMatchObject({ user_id: userId, nickname: `${bom}Nick` });

    // The id without the mark is another user; the same id again is refused and changes nothing.
    expectPlatformError(await getUser(plain), 400, 400201);
    const again = await call(sandbox, "POST", "/v3/users", {
      user_id: userId,
      nickname: "Other",
      profile_url: "",
    });
    expectPlatformError(again, 400, 400202);
    expect((await getUser(userId)).body.nickname).toBe(`${bom}Nick`);
    const other = await call<User>(sandbox, "POST", "/v3/users", {
      user_id: plain,
      nickname: "",
      profile_url: "",
    });
    expect(other.body.user_id).toBe(plain);
  });

  it("is kept in multipart fields too", async () => {
    const userId = `${bom}${uniqueId("bom")}`;
    const created = await sendForm("/v3/users", [
      ["user_id", userId],
      ["nickname", `${bom}${bom}Two`],
      ["profile_url", ""],
    ]);
    expect(created.status, JSON.stringify(created.body)).toBe(200);
    expect((await getUser(userId)).body.nickname).toBe(`${bom}${bom}Two`);
  });

  it("is stored and answered as sent in channel names, data and message text", async () => {
    const sender = uniqueId("sender");
    await call(sandbox, "POST", "/v3/users", { user_id: sender, nickname: "", profile_url: "" });
    const channel = await call<{ channel_url: string; name: string; data: string }>(
      sandbox,
      "POST",
      "/v3/group_channels",
      { user_ids: [sender], name: `${bom}Room`, data: `${bom}{}`, custom_type: `${bom}t` },
    );
    expect(channel.body).toMatchObject({ name: `${bom}Room`, data: `${bom}{}` });
    const url = channel.body.channel_url;
    expect((await call(sandbox, "GET", `/v3/group_channels/${url}`)).body).toMatchObject({
      name: `${bom}Room`,
      data: `${bom}{}`,
      custom_type: `${bom}t`,
    });
    const open = await call(sandbox, "POST", "/v3/open_channels", { name: `${bom}Open` });
    const openUrl = (open.body as { channel_url: string }).channel_url;
    expect((await call(sandbox, "GET", `/v3/open_channels/${openUrl}`)).body).toMatchObject({
      name: `${bom}Open`,
    });

    const migrated = await call(sandbox, "POST", `/v3/migration/${url}`, {
      messages: [
        {
          user_id: sender,
          message_type: "MESG",
          message: `${bom}Hello`,
          data: `${bom}d`,
          custom_type: `${bom}c`,
          timestamp: 1_600_000_000_000,
        },
      ],
    });
    expect(migrated.status, JSON.stringify(migrated.body)).toBe(200);
    const listed = await call<{ messages: Message[] }>(
      sandbox,
      "GET",
      `/v3/group_channels/${url}/messages?message_ts=0&next_limit=10`,
    );
    expect(listed.body.messages).toMatchObject([
      { message: `${bom}Hello`, data: `${bom}d`, custom_type: `${bom}c` },
    ]);
  });
});

describe("bytes that are not UTF-8", () => {
  // 0xff never appears in UTF-8; ED A0 BD ED B8 80 is 😀 written as CESU-8 (two encoded
  // surrogate halves); C0 AF is an overlong "/".
  const wrongBytes: Array<[string, number[]]> = [
    ["a stray byte", [0xff]],
    ["CESU-8 surrogates", [0xed, 0xa0, 0xbd, 0xed, 0xb8, 0x80]],
    ["a lone encoded surrogate", [0xed, 0xa0, 0x80]],
    ["an overlong form", [0xc0, 0xaf]],
    ["a truncated sequence", [0xe2, 0x82]],
  ];

  it.each(wrongBytes)("in a JSON string (%s): 400111, nothing stored", async (_, wrong) => {
    const userId = uniqueId("utf");
    const body = bytes(`{"user_id":"${userId}","nickname":"n`, wrong, `","profile_url":""}`);
    const response = await sendBytes("POST", "/v3/users", "application/json", body);
    expect(expectPlatformError(response, 400, 400111).message).toContain("not valid UTF-8");
    expectPlatformError(await getUser(userId), 400, 400201);
  });

  it.each(wrongBytes)("in a multipart field (%s): 400111, nothing stored", async (_, wrong) => {
    const userId = uniqueId("utf");
    const response = await sendForm("/v3/users", [
      ["user_id", userId],
      ["nickname", [0x6e, ...wrong]],
      ["profile_url", ""],
    ]);
    expect(expectPlatformError(response, 400, 400111).message).toContain('"nickname"');
    expectPlatformError(await getUser(userId), 400, 400201);
    const channelUrl = uniqueId("utf").replaceAll("_", "-");
    const channel = await sendForm("/v3/open_channels", [
      ["channel_url", channelUrl],
      ["name", [0x6e, ...wrong]],
    ]);
    expectPlatformError(channel, 400, 400111);
    expectPlatformError(await call(sandbox, "GET", `/v3/open_channels/${channelUrl}`), 400, 400201);
  });

  it("reads a body that begins with a byte order mark, as JSON allows", async () => {
    const userId = uniqueId("utf");
    const body = bytes(
      [0xef, 0xbb, 0xbf],
      JSON.stringify({ user_id: userId, nickname: "", profile_url: "" }),
    );
    const response = await sendBytes("POST", "/v3/users", "application/json", body);
    expect(response.body).toMatchObject({ user_id: userId });
  });
});

describe("a multipart field sent twice", () => {
  it("refuses a second user_id with 400100, as channel requests do, and stores nothing", async () => {
    const [first, second] = [uniqueId("twice"), uniqueId("twice")];
    const response = await sendForm("/v3/users", [
      ["user_id", first],
      ["user_id", second],
      ["nickname", "n"],
      ["profile_url", ""],
    ]);
    expect(expectPlatformError(response, 400, 400100).message).toContain('"user_id"');
    expectPlatformError(await getUser(first), 400, 400201);
    expectPlatformError(await getUser(second), 400, 400201);

    const channelUrl = uniqueId("twice").replaceAll("_", "-");
    const channel = await sendForm("/v3/open_channels", [
      ["channel_url", channelUrl],
      ["name", "a"],
      ["name", "b"],
    ]);
    expectPlatformError(channel, 400, 400100);
  });

  it("refuses a profile image sent twice with 400100", async () => {
    const png = [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 0];
    const userId = uniqueId("twice");
    const parts: FormPart[] = [
      ["user_id", userId],
      ["nickname", "n"],
      ["profile_file", png, "a.png"],
    ];
    const twice = await sendForm("/v3/users", [...parts, ["profile_file", png, "b.png"]]);
    expect(expectPlatformError(twice, 400, 400100).message).toContain('"profile_file"');
    expectPlatformError(await getUser(userId), 400, 400201);
    const once = await sendForm("/v3/users", parts);
    expect(once.status, JSON.stringify(once.body)).toBe(200);
  });
});

/** One raw HTTP/1.x request; the answer's status, content type and body. */
function rawRequest(head: string): Promise<{ status: number; type: string; body: string }> {
  const { hostname, port } = new URL(sandbox.origin);
  return new Promise((resolve, reject) => {
    const socket = net.connect(Number(port), hostname, () => socket.write(head));
    let answer = "";
    socket.setEncoding("utf8");
    socket.on("data", (chunk: string) => (answer += chunk));
    socket.on("error", reject);
    socket.on("close", () => {
      const [headers = "", body = ""] = answer.split("\r\n\r\n");
      resolve({
        status: Number(/^HTTP\/1\.1 (\d{3})/.exec(headers)?.[1] ?? 0),
        type: /^content-type: *(.*)$/im.exec(headers)?.[1] ?? "",
        body,
      });
    });
  });
}

describe("the Host header", () => {
  const path = `/sandbox/${sandbox.appId}/v3/users`;
  const token = `Api-Token: ${sandbox.token}\r\nConnection: close\r\n`;

  it.each([
    ["no Host", ""],
    ["an empty Host", "Host: \r\n"],
    ["a Host with a space", "Host: a b\r\n"],
    ["a Host with user info", "Host: user@example.com\r\n"],
    ["a Host with a path", "Host: example.com/x\r\n"],
  ])("answers an HTTP/1.1 request with %s with the JSON error body", async (_, host) => {
    const answer = await rawRequest(`GET ${path} HTTP/1.1\r\n${host}${token}\r\n`);
    expect(answer.status, answer.body).toBe(400);
    expect(answer.type).toContain("application/json");
    expect(JSON.parse(answer.body)).toMatchObject({
      message: expect.stringContaining("Host"),
      code: 400111,
      error: true,
    });
  });

  it("serves an HTTP/1.0 request without Host, and ordinary hosts", async () => {
    for (const head of [
      `GET ${path} HTTP/1.0\r\n${token}\r\n`,
      `GET ${path} HTTP/1.1\r\nHost: Example.COM:8080\r\n${token}\r\n`,
      `GET ${path} HTTP/1.1\r\nHost: [::1]:3000\r\n${token}\r\n`,
      `GET ${path} HTTP/1.1\r\nHost: my_host.internal\r\n${token}\r\n`,
    ]) {
      const answer = await rawRequest(head);
      expect(answer.status, `${head}\n${answer.body}`).toBe(200);
      expect(JSON.parse(answer.body)).toHaveProperty("users");
    }
  });

  it("answers what the Node adapter cannot read (a backslash in the path) with the JSON body", async () => {
    const answer = await rawRequest(`GET ${path}/a\\b HTTP/1.1\r\nHost: localhost\r\n${token}\r\n`);
    expect(answer.status).toBe(400);
    expect(JSON.parse(answer.body)).toMatchObject({ code: 400111, error: true });
  });
});

describe("a value of the wrong type where one of a list of strings is expected", () => {
  function expectWrongType(response: ApiResponse, field: string) {
    expect(expectPlatformError(response, 400, 400100).message).toBe(`"${field}" must be a string.`);
  }

  it("is 400100, not 400111 (an unknown string still is 400111)", async () => {
    expectWrongType(await call(sandbox, "POST", "/v1/sandbox/events", { category: 1 }), "category");
    expectWrongType(
      await call(sandbox, "POST", "/v1/sandbox/events", { category: ["room:create"] }),
      "category",
    );
    expectPlatformError(
      await call(sandbox, "POST", "/v1/sandbox/events", { category: "room:nothing" }),
      400,
      400111,
    );
  });
});
