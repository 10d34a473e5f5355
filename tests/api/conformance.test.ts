import { spawn } from "node:child_process";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { sharedSandbox } from "./support/http";

const root = path.resolve(import.meta.dirname, "../..");

function runCli(args: string[]): Promise<{ code: number | null; output: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ["--import", "tsx", "lib/conformance/cli.ts", ...args], {
      cwd: root,
      stdio: ["ignore", "pipe", "pipe"],
    });
    let output = "";
    child.stdout.on("data", (chunk: Buffer) => (output += chunk.toString()));
    child.stderr.on("data", (chunk: Buffer) => (output += chunk.toString()));
    child.on("error", reject);
    child.on("close", (code) => resolve({ code, output }));
  });
}

describe("npm run conformance", () => {
  const sandbox = sharedSandbox();

  it("passes every line against the sandbox, and cleans up after itself", async () => {
    const { code, output } = await runCli([sandbox.baseUrl, sandbox.token]);
    expect(output).toMatch(/\n\d+ passed, 0 failed/);
    expect(output).not.toContain("FAIL");
    expect(code, output).toBe(0);
    for (const step of [
      "create users",
      "list users by ids, paging with token",
      "migrate MESG, FILE and ADMM messages, twice",
      "send a message, a reply at its own time, and the message again by dedup_id",
      "add a reaction, twice, and list it",
      "list threads: replies, thread_info, parent and reactions",
      "get, update, count and delete one message",
      "update channels; the group channel answers its last message",
      "deactivate a user",
      "clean up the scratch namespace",
    ])
      expect(output).toContain(step);
    const namespace = /namespace (conf_[0-9a-f]+)/.exec(output)?.[1];
    expect(namespace).toBeDefined();
    const left = await fetch(
      `${sandbox.baseUrl}/v3/users?nickname_startswith=${namespace}&active_mode=all`,
      {
        headers: { "Api-Token": sandbox.token },
      },
    );
    expect(((await left.json()) as { users: unknown[] }).users).toEqual([]);
  });

  it("fails with a table that names the step when the token is wrong", async () => {
    const { code, output } = await runCli([sandbox.baseUrl, "wrong-token"]);
    expect(code).toBe(1);
    expect(output).toMatch(/create users\s+FAIL/);
  });

  it("explains its usage without arguments", async () => {
    const { code, output } = await runCli([]);
    expect(code).toBe(2);
    expect(output).toContain("usage: npm run conformance -- <base_url> <api_token>");
  });
});
