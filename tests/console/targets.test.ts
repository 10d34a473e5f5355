import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { startSandboxServer, type SandboxServer } from "../api/support/sandbox-server";
import { serverActionId } from "./support/server-actions";
import { signIn } from "./support/sign-in";

/**
 * Targets through the console's server actions over HTTP (issue 25.3): a second sandbox added
 * as a remote platform, chosen, used and removed. Its API token goes in once and is in no
 * answer after that, nor in the one that took it.
 */
describe("remote targets over HTTP", () => {
  const { origin } = inject("console");
  let remote: SandboxServer;
  let cookie = "";
  /** Every answer's text, to look for the token in at the end. */
  const answers: string[] = [];

  beforeAll(async () => {
    [remote, cookie] = await Promise.all([startSandboxServer({ SANDBOX_APP_ID: "far" }), signIn()]);
  }, 300_000);
  afterAll(async () => {
    await remote?.stop();
  });

  async function call(name: string, input: unknown) {
    const id = serverActionId("lib/actions/targets.ts", name);
    if (!id) throw new Error(`no action ${name}: run next build first`);
    const response = await fetch(`${origin}/settings`, {
      method: "POST",
      headers: {
        "next-action": id,
        accept: "text/x-component",
        "content-type": "text/plain;charset=UTF-8",
        origin,
        cookie,
      },
      body: JSON.stringify([input]),
    });
    const text = await response.text();
    answers.push(text);
    expect(response.status).toBeLessThan(500);
    const row = /^1:(.*)$/m.exec(text)?.[1];
    return JSON.parse(row!) as {
      data?: Record<string, unknown> & { target?: { id: string; name: string } };
      serverError?: string;
      validationErrors?: { fieldErrors: Record<string, string[]> };
    };
  }
  async function get(path: string) {
    const response = await fetch(`${origin}${path}`, { headers: { cookie } });
    const text = await response.text();
    answers.push(text);
    return { status: response.status, text };
  }
  const input = () => ({
    name: "Far sandbox",
    appId: remote.appId,
    chatBaseUrl: remote.baseUrl,
    callsBaseUrl: "",
    apiToken: remote.token,
    environment: "sandbox",
  });

  it("refuses bad input and a platform that does not answer the token, adding nothing", async () => {
    const bad = await call("addRemoteTarget", { ...input(), chatBaseUrl: "ftp://x", apiToken: "" });
    expect(bad.validationErrors?.fieldErrors.chatBaseUrl?.[0]).toMatch(/http:\/\/ or https:\/\//);
    expect(bad.validationErrors?.fieldErrors.apiToken?.[0]).toMatch(/API token/);
    const wrongToken = await call("addRemoteTarget", {
      ...input(),
      apiToken: "not-the-token-1234",
    });
    expect(wrongToken.serverError).toMatch(/did not answer the first check .*nothing was added/);
    expect((await get("/settings")).text).not.toContain("Far sandbox");
  });

  it("adds, chooses, reads through, and removes a remote target; the token is in no answer", async () => {
    const added = await call("addRemoteTarget", input());
    const target = added.data!.target!;
    expect(target.id).toMatch(/^remote:[0-9a-f-]{36}$/);
    expect(added.data!.compatibility).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ operation: "GET webhook settings", outcome: "pass" }),
      ]),
    );
    const again = await call("addRemoteTarget", input());
    expect(again.validationErrors?.fieldErrors.appId?.[0]).toMatch(/already/);

    // The settings page lists it; the webhooks route still reads the embedded sandbox's settings.
    const settings = await get("/settings");
    expect(settings.text).toContain("Far sandbox");
    const put = await fetch(`${remote.baseUrl}/v1/applications/${remote.appId}/settings/webhook`, {
      method: "PUT",
      headers: { "Api-Token": remote.token, "content-type": "application/json" },
      body: JSON.stringify({
        application_id: remote.appId,
        enabled: true,
        url: "http://127.0.0.1:9/far",
        enabled_events: ["room:create"],
      }),
    });
    expect(put.status, await put.text()).toBe(200);
    expect((await get("/webhooks/settings")).text).not.toContain("http://127.0.0.1:9/far");

    // Chosen, this session reads the remote platform's settings.
    expect((await call("chooseTarget", { targetId: target.id })).data?.target?.name).toBe(
      "Far sandbox",
    );
    const remoteSettings = await get("/webhooks/settings");
    expect(remoteSettings.status).toBe(200);
    expect(remoteSettings.text).toContain("http://127.0.0.1:9/far");

    // A target that is not there cannot be chosen.
    const unknown = await call("chooseTarget", {
      targetId: "remote:00000000-0000-4000-8000-000000000000",
    });
    expect(unknown.serverError).toMatch(/removed from Settings/);
    expect((await call("chooseTarget", { targetId: "nonsense" })).validationErrors).toBeDefined();

    expect((await call("removeRemoteTarget", { targetId: target.id })).data).toEqual({
      targetId: target.id,
    });
    expect((await get("/settings")).text).not.toContain("Far sandbox");
    // The session's choice is gone with it: back on the embedded sandbox.
    expect((await get("/webhooks/settings")).text).not.toContain("http://127.0.0.1:9/far");
    expect((await call("removeRemoteTarget", { targetId: target.id })).serverError).toMatch(
      /no such remote platform/,
    );

    expect(answers.length).toBeGreaterThan(10);
    for (const answer of answers) expect(answer.includes(remote.token)).toBe(false);
  });
});
