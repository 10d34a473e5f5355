import { randomBytes } from "node:crypto";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { call } from "./support/http";
import { startSandboxServer, type SandboxServer } from "./support/sandbox-server";

// Each process keeps the application row (token, rate limit, webhook settings) in memory; a
// change made by another process on the same PostgreSQL database must reach it (NOTIFY).
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

  beforeAll(async () => {
    first = await startSandboxServer(shared);
    servers.push(first);
    second = await startSandboxServer(shared);
    servers.push(second);
  }, 120_000);

  afterAll(async () => {
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
});
