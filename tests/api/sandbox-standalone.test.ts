import { afterAll, describe, expect, it } from "vitest";
import { startSandboxServer, type SandboxServer } from "./support/sandbox-server";

/** `npm run sandbox` has no Settings page: a token it generates is printed once, in a box. */
describe("the standalone sandbox without SANDBOX_API_TOKEN", () => {
  let server: SandboxServer | undefined;
  afterAll(async () => {
    await server?.stop();
  });

  const printedToken = (output: string) =>
    /API token of application "local" generated \(shown only this once\)[\s\S]*?║\s+([0-9a-f]{48})\s+║/.exec(
      output,
    )?.[1];

  it("prints the token it generates once, and that token is the one it accepts", async () => {
    server = await startSandboxServer({ SANDBOX_API_TOKEN: undefined });
    const token = printedToken(server.output());
    expect(token, server.output()).toBeDefined();
    const listUsers = (apiToken: string) =>
      fetch(`${server!.baseUrl}/v3/users?limit=1`, { headers: { "Api-Token": apiToken } });
    expect((await listUsers(token!)).status).toBe(200);
    expect((await listUsers("0".repeat(48))).status).toBe(401);

    // Only this once: a restart keeps the token and does not print it again.
    const before = server.output().length;
    await server.restart();
    expect(server.output().slice(before)).not.toContain(token);
    expect(server.output().slice(before)).not.toContain("API token");
    expect((await listUsers(token!)).status).toBe(200);
  }, 120_000);
});
