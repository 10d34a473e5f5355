import { randomBytes } from "node:crypto";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openDatabase, type DatabaseHandle } from "@/lib/db/client";
import {
  createApplication,
  deleteApplication,
  rotateApiToken,
  setApplicationRateLimit,
} from "@/lib/sandbox";
import { ErrorCode } from "@/lib/sandbox/errors";
import { call } from "./support/http";
import { startSandboxServer, type SandboxServer } from "./support/sandbox-server";

// Each process keeps the application row (token, rate limit, webhook settings) in memory; a
// change made by another process on the same PostgreSQL database must reach it (NOTIFY). This
// test's own process is the console: it administers through the door (lib/sandbox/applications)
// on its own connection, and the sandbox servers must follow within a short bounded wait.
const databaseUrl = process.env.TEST_DATABASE_URL;

describe.skipIf(!databaseUrl)("the application cache across processes on PostgreSQL", () => {
  const schema = `t_cache_${randomBytes(5).toString("hex")}`;
  const shared = {
    DATABASE_URL: databaseUrl ?? "",
    DATABASE_SCHEMA: schema,
    SANDBOX_API_TOKEN: "cache_token_first_0123456789",
  };
  const servers: SandboxServer[] = [];
  let first: SandboxServer;
  let second: SandboxServer;
  let admin: DatabaseHandle;
  /** How long another process may take to see a change: NOTIFY arrives in milliseconds. */
  const promptly = { timeout: 5_000, interval: 20 };

  beforeAll(async () => {
    first = await startSandboxServer(shared);
    servers.push(first);
    second = await startSandboxServer(shared);
    servers.push(second);
    admin = await openDatabase({ url: databaseUrl, schemaName: schema });
  }, 120_000);

  afterAll(async () => {
    await admin?.close();
    for (const server of servers.reverse()) await server.stop();
    const client = new pg.Client({ connectionString: databaseUrl });
    await client.connect();
    await client.query(`drop schema if exists ${schema} cascade`).finally(() => client.end());
  });

  it("shows webhook settings changed through one process in the other", async () => {
    const path = `/v1/applications/${second.appId}/settings/webhook`;
    // Read once, so the second process holds the row in memory.
    expect((await call(second, "GET", path)).body).toMatchObject({ webhook: { enabled: false } });
    const update = {
      application_id: first.appId,
      enabled: true,
      url: "https://hooks.example.com/in",
    };
    expect((await call(first, "PUT", path, update)).status).toBe(200);
    await expect
      .poll(async () => (await call(second, "GET", path)).body, { timeout: 5000 })
      .toMatchObject({ webhook: { enabled: true, url: "https://hooks.example.com/in" } });
  });

  it("refuses the old token in every process once another one changed it", async () => {
    expect((await call(second, "GET", "/v3/users")).status).toBe(200);
    // A process started with a new SANDBOX_API_TOKEN makes it the application's token.
    const third = await startSandboxServer({
      ...shared,
      SANDBOX_API_TOKEN: "cache_token_second_012345678",
    });
    servers.push(third);
    await expect
      .poll(async () => (await call(second, "GET", "/v3/users")).status, { timeout: 5000 })
      .toBe(401);
    const renewed = { ...second, token: "cache_token_second_012345678" };
    expect((await call(renewed, "GET", "/v3/users")).status).toBe(200);
  }, 60_000);

  /** A new application administered from this process, read once by `server` so it holds its row. */
  async function heldApplication(server: SandboxServer, id: string) {
    const app = (await createApplication(admin.db, { id, name: id }))!;
    const target = { baseUrl: `${server.origin}/sandbox/${id}`, token: app.apiToken };
    expect((await call(target, "GET", "/v3/users")).status).toBe(200);
    return target;
  }

  it("serves an application created through another process at once", async () => {
    const id = `door_new_${randomBytes(3).toString("hex")}`;
    const target = { baseUrl: `${first.origin}/sandbox/${id}`, token: "no_such_token_yet" };
    expect((await call(target, "GET", "/v3/users")).body).toMatchObject({
      code: ErrorCode.noSuchApplication,
    });
    const app = (await createApplication(admin.db, { id, name: id }))!;
    expect((await call({ ...target, token: app.apiToken }, "GET", "/v3/users")).status).toBe(200);
  });

  it("refuses a token rotated through another process", async () => {
    const target = await heldApplication(first, `door_rotate_${randomBytes(3).toString("hex")}`);
    const id = target.baseUrl.split("/").pop()!;
    const rotated = (await rotateApiToken(admin.db, id))!;
    await expect
      .poll(async () => (await call(target, "GET", "/v3/users")).status, promptly)
      .toBe(401);
    expect((await call({ ...target, token: rotated }, "GET", "/v3/users")).status).toBe(200);
  });

  it("forgets an application deleted through another process", async () => {
    const target = await heldApplication(first, `door_delete_${randomBytes(3).toString("hex")}`);
    const id = target.baseUrl.split("/").pop()!;
    expect(await deleteApplication(admin.db, id)).toBe("deleted");
    await expect
      .poll(async () => (await call(target, "GET", "/v3/users")).body, promptly)
      .toMatchObject({ code: ErrorCode.noSuchApplication });
  });

  it("applies a rate limit set through another process, with fresh buckets", async () => {
    const target = await heldApplication(first, `door_limit_${randomBytes(3).toString("hex")}`);
    const id = target.baseUrl.split("/").pop()!;
    const limitOf = async () => {
      const { headers } = await call(target, "GET", "/v3/users");
      return {
        limit: headers.get("x-ratelimit-limit"),
        remaining: headers.get("x-ratelimit-remaining"),
      };
    };
    await setApplicationRateLimit(admin.db, id, { get: 2 });
    await expect.poll(limitOf, promptly).toMatchObject({ limit: "2;w=1" });
    // The first request the process answers at the new limit finds a full bucket (the old one,
    // refilling at 500/s, would hold only what the last few milliseconds gave it).
    await setApplicationRateLimit(admin.db, id, { get: 500 });
    let raised: Awaited<ReturnType<typeof limitOf>> | undefined;
    await expect.poll(async () => (raised = await limitOf()).limit, promptly).toBe("500;w=1");
    expect(raised?.remaining).toBe("499");
    await setApplicationRateLimit(admin.db, id, null);
    await expect.poll(limitOf, promptly).toEqual({ limit: null, remaining: null });
  });
});
