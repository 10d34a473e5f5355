import http from "node:http";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { call, expectPlatformError, sharedSandbox, uniqueId, type Target } from "./support/http";
import { startSandboxServer, type SandboxServer } from "./support/sandbox-server";
import { waitFor } from "../support/wait";

/**
 * Sends one POST on a connection of its own with `Connection: close`: the case in which a
 * server that answered a refused body before reading it would close the socket while the
 * body is still being written, and the client would see a broken pipe instead of the 413.
 * `chunked` sends the body without a Content-Length, in 64 KB pieces.
 */
function postOnOwnConnection(
  target: Target,
  pathname: string,
  contentType: string,
  body: Buffer,
  { chunked = false } = {},
): Promise<{ status: number; body: unknown }> {
  return new Promise((resolve, reject) => {
    let answered = false;
    const request = http.request(`${target.baseUrl}${pathname}`, {
      method: "POST",
      agent: false,
      headers: {
        "Api-Token": target.token,
        "content-type": contentType,
        ...(chunked ? {} : { "content-length": body.length }),
      },
    });
    request.on("response", (response) => {
      answered = true;
      const chunks: Buffer[] = [];
      response.on("data", (chunk: Buffer) => chunks.push(chunk));
      response.on("end", () => {
        resolve({
          status: response.statusCode ?? 0,
          body: JSON.parse(Buffer.concat(chunks).toString()),
        });
      });
    });
    request.on("error", (error) => {
      if (!answered) reject(error);
    });
    const pieceBytes = chunked ? 64 * 1024 : body.length;
    for (let offset = 0; offset < body.length; offset += pieceBytes) {
      request.write(body.subarray(offset, offset + pieceBytes));
    }
    request.end();
  });
}

async function multipartBody(
  fields: Record<string, string | Blob>,
): Promise<{ contentType: string; body: Buffer }> {
  const form = new FormData();
  for (const [name, value] of Object.entries(fields)) form.append(name, value);
  const encoded = new Request("http://localhost/", { method: "POST", body: form });
  return {
    contentType: encoded.headers.get("content-type") ?? "",
    body: Buffer.from(await encoded.arrayBuffer()),
  };
}

describe("body limits", () => {
  const sandbox = sharedSandbox();

  it("refuses a JSON body over 1 MB with 413 / 400110 and writes nothing", async () => {
    const userId = uniqueId();
    const body = Buffer.from(
      JSON.stringify({ user_id: userId, nickname: "x".repeat(1024 * 1024), profile_url: "" }),
    );
    const response = await postOnOwnConnection(sandbox, "/v3/users", "application/json", body);
    expect(response.status).toBe(413);
    expect(response.body).toMatchObject({ code: 400110, error: true });
    expectPlatformError(await call(sandbox, "GET", `/v3/users/${userId}`), 400, 400201);
  });

  it("refuses a chunked JSON body that grows past 1 MB, having no Content-Length to go by", async () => {
    const userId = uniqueId();
    const body = Buffer.from(
      JSON.stringify({ user_id: userId, nickname: "x".repeat(1024 * 1024), profile_url: "" }),
    );
    const response = await postOnOwnConnection(sandbox, "/v3/users", "application/json", body, {
      chunked: true,
    });
    expect(response.status).toBe(413);
    expect(response.body).toMatchObject({ code: 400110, error: true });
    expectPlatformError(await call(sandbox, "GET", `/v3/users/${userId}`), 400, 400201);
  });

  it("accepts a chunked JSON body under 1 MB", async () => {
    const userId = uniqueId();
    const body = Buffer.from(
      JSON.stringify({ user_id: userId, nickname: "Chunked", profile_url: "" }),
    );
    const response = await postOnOwnConnection(sandbox, "/v3/users", "application/json", body, {
      chunked: true,
    });
    expect(response.status).toBe(200);
    expect(response.body).toMatchObject({ user_id: userId, nickname: "Chunked" });
  });

  it("accepts a JSON body just under 1 MB (the field rules then apply)", async () => {
    const body = { user_id: uniqueId(), nickname: "x".repeat(1024 * 1024 - 200), profile_url: "" };
    expectPlatformError(await call(sandbox, "POST", "/v3/users", body), 400, 400110);
  });

  it("refuses a multipart body over 6 MB with 413 / 400110 and writes nothing", async () => {
    const userId = uniqueId();
    const image = new Uint8Array(6 * 1024 * 1024 + 1);
    image.set([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
    const { contentType, body } = await multipartBody({
      user_id: userId,
      nickname: "Huge",
      profile_file: new Blob([image]),
    });
    const response = await postOnOwnConnection(sandbox, "/v3/users", contentType, body);
    expect(response.status).toBe(413);
    expect(response.body).toMatchObject({ code: 400110, error: true });
    expectPlatformError(await call(sandbox, "GET", `/v3/users/${userId}`), 400, 400201);
  });
});

describe("rate limits and faults", () => {
  // Starting a server costs seconds, so the rate-limited one also carries the added latency:
  // latency is applied after the rate-limit decision, so neither hides the other.
  let limited: SandboxServer;
  let failing: SandboxServer;
  let hanging: SandboxServer;

  beforeAll(async () => {
    [limited, failing, hanging] = await Promise.all([
      startSandboxServer({ SANDBOX_RATE_LIMIT: "write=5", SANDBOX_FAULTS: "latency_ms=250" }),
      startSandboxServer({ SANDBOX_FAULTS: "error_rate=1" }),
      startSandboxServer({ SANDBOX_FAULTS: "hang_rate=1" }),
    ]);
  });
  afterAll(async () => {
    await Promise.all([limited, failing, hanging].map((server) => server?.stop()));
  });

  const createUser = (target: Target, userId = uniqueId()) =>
    call(target, "POST", "/v3/users", { user_id: userId, nickname: "R", profile_url: "" });

  it("limits writes to 5 per second: headers on every write, then 429 / 500910 with Retry-After", async () => {
    const userIds = Array.from({ length: 9 }, () => uniqueId());
    // Sent together, so the bucket has no time to refill between them.
    const responses = await Promise.all(userIds.map((userId) => createUser(limited, userId)));
    const accepted = responses.filter((response) => response.status === 200);
    const refused = responses.filter((response) => response.status !== 200);
    // One more may slip through if the requests reach the server spread over 200 ms.
    expect(accepted.length).toBeGreaterThanOrEqual(5);
    expect(accepted.length).toBeLessThanOrEqual(6);
    for (const response of accepted)
      expect(response.headers.get("x-ratelimit-limit")).toBe("5;w=1");
    const remaining = accepted.map((response) =>
      Number(response.headers.get("x-ratelimit-remaining")),
    );
    expect(remaining.sort((a, b) => b - a).slice(0, 4)).toEqual([4, 3, 2, 1]);

    for (const response of refused) {
      expectPlatformError(response, 429, 500910);
      expect(response.headers.get("x-ratelimit-limit")).toBe("5;w=1");
      expect(response.headers.get("x-ratelimit-remaining")).toBe("0");
      const retryAfter = response.headers.get("retry-after") ?? "";
      const exactRetryAfter = response.headers.get("x-ratelimit-retryafter") ?? "";
      expect(retryAfter).toMatch(/^\d+$/);
      expect(exactRetryAfter).toMatch(/^\d+\.\d+$/);
      expect(Number(exactRetryAfter)).toBeGreaterThan(0);
      expect(Number(exactRetryAfter)).toBeLessThanOrEqual(0.2);
      expect(Number(retryAfter)).toBe(Math.max(1, Math.ceil(Number(exactRetryAfter))));
    }

    // Refused requests did nothing; reads have no limit of their own here.
    const created = await call<{ users: unknown[] }>(
      limited,
      "GET",
      `/v3/users?user_ids=${userIds.join(",")}`,
    );
    expect(created.body.users).toHaveLength(accepted.length);
    expect(created.headers.get("x-ratelimit-limit")).toBeNull();

    // The bucket refills: a write is taken again within the second the limit allows.
    await waitFor(
      () => createUser(limited),
      (response) => response.status === 200,
      { deadline: Date.now() + 5_000, intervalMs: 100, failure: (r) => `still ${r.status}` },
    );
  });

  it("adds latency_ms to every request", async () => {
    const started = performance.now();
    const response = await call(limited, "GET", "/v3/users");
    expect(response.status).toBe(200);
    expect(performance.now() - started).toBeGreaterThanOrEqual(245);
  });

  it("answers every request 500 / 500901 with error_rate=1, after authentication", async () => {
    expectPlatformError(await call(failing, "GET", "/v3/users"), 500, 500901);
    expectPlatformError(await createUser(failing), 500, 500901);
    expectPlatformError(
      await call({ ...failing, token: "wrong" }, "GET", "/v3/users"),
      401,
      400401,
    );
  });

  it("never answers with hang_rate=1: a client with a timeout gives up", async () => {
    const started = performance.now();
    const attempt = fetch(`${hanging.baseUrl}/v3/users`, {
      headers: { "Api-Token": hanging.token },
      signal: AbortSignal.timeout(500),
    });
    await expect(attempt).rejects.toMatchObject({ name: "TimeoutError" });
    expect(performance.now() - started).toBeGreaterThanOrEqual(450);
  });
});
