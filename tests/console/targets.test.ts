import { randomBytes } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { signBody } from "@/lib/delivery/post-json";
import { startSandboxServer, type SandboxServer } from "../api/support/sandbox-server";
import { startConsoleServer, type ConsoleServer } from "../support/console-server";
import { startWebhookReceiver } from "../support/webhook-receiver";
import { serverActionId } from "./support/server-actions";
import { signIn } from "./support/sign-in";

/**
 * Targets through the console's server actions over HTTP (issue 25.3): two more sandboxes added
 * as remote platforms, chosen, used and removed. Their API tokens go in once and are in no
 * answer after that, nor in the one that took them, nor in the console's output. A console of
 * its own, with SWITCHBOARD_SECRET_KEY set and its output kept.
 */
describe("remote targets over HTTP", () => {
  let server: ConsoleServer;
  let origin = "";
  let remote: SandboxServer;
  let near: SandboxServer;
  let cookie = "";
  /** Every answer's text, to look for the tokens in at the end. */
  const answers: string[] = [];

  beforeAll(async () => {
    [server, remote, near] = await Promise.all([
      startConsoleServer({ SWITCHBOARD_SECRET_KEY: randomBytes(32).toString("hex") }),
      startSandboxServer({ SANDBOX_APP_ID: "far" }),
      startSandboxServer({ SANDBOX_APP_ID: "near" }),
    ]);
    origin = server.origin;
    cookie = await signIn(server);
  }, 300_000);
  afterAll(async () => {
    await Promise.all([server?.stop(), remote?.stop(), near?.stop()]);
  });

  async function call(name: string, input: unknown, file = "lib/actions/targets.ts") {
    const id = serverActionId(file, name);
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
      data?: Record<string, unknown> & {
        target?: { id: string; name: string; maskedToken?: string };
        jobId?: string;
      };
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
  const input = (platform = remote, name = "Far sandbox") => ({
    name,
    appId: platform.appId,
    chatBaseUrl: platform.baseUrl,
    callsBaseUrl: "",
    apiToken: platform.token,
    environment: "sandbox",
  });
  /** Sets a remote sandbox's webhook endpoint the way the platform takes it. */
  async function setWebhook(platform: SandboxServer, url: string) {
    const put = await fetch(
      `${platform.baseUrl}/v1/applications/${platform.appId}/settings/webhook`,
      {
        method: "PUT",
        headers: { "Api-Token": platform.token, "content-type": "application/json" },
        body: JSON.stringify({
          application_id: platform.appId,
          enabled: true,
          url,
          enabled_events: ["room:create"],
        }),
      },
    );
    expect(put.status, await put.text()).toBe(200);
  }

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
    // Not even its last characters come back.
    expect(target.maskedToken).toBe("••••••••");
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
    await setWebhook(remote, "http://127.0.0.1:9/far");
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

  it("keeps each remote target's test deliveries in its own log, signed with its own token", async () => {
    const receiver = await startWebhookReceiver();
    try {
      const far = (await call("addRemoteTarget", input())).data!.target!;
      const other = (await call("addRemoteTarget", input(near, "Near sandbox"))).data!.target!;
      await setWebhook(remote, `${receiver.url}/far`);
      await setWebhook(near, `${receiver.url}/near`);

      expect((await call("chooseTarget", { targetId: far.id })).data).toBeDefined();
      const sent = await call(
        "sendTestEvent",
        { category: "room:create" },
        "lib/actions/webhooks.ts",
      );
      const deliveryId = (sent.data as { deliveryId: string }).deliveryId;
      expect(deliveryId).toMatch(/^[0-9a-f-]{36}$/);
      await receiver.waitFor(1);
      const [posted] = receiver.received;
      // Signed as Far signs its deliveries: with Far's token (not PLATFORM_API_TOKEN, unset here).
      expect(posted!.headers["x-sendbird-signature"]).toBe(signBody(posted!.raw, remote.token));

      const log = async () => (await get("/webhooks/deliveries?limit=100")).text;
      expect(await log()).toContain(deliveryId);
      expect((await call("chooseTarget", { targetId: other.id })).data).toBeDefined();
      expect(await log()).not.toContain(deliveryId);
      const resend = await call(
        "resendWebhookDelivery",
        { id: deliveryId },
        "lib/actions/webhooks.ts",
      );
      expect(resend.serverError).toMatch(/no longer in the log/);
      expect(receiver.received).toHaveLength(1);

      for (const target of [far, other])
        expect((await call("removeRemoteTarget", { targetId: target.id })).data).toBeDefined();
    } finally {
      await receiver.stop();
    }
  });

  it("shows a job whose target was removed with a plain message, and sends nothing for it", async () => {
    const far = (await call("addRemoteTarget", input())).data!.target!;
    expect((await call("chooseTarget", { targetId: far.id })).data).toBeDefined();
    const made = await call(
      "createImportJob",
      {
        resource: "users",
        fileName: "far-users.csv",
        columns: ["user_id", "nickname", "profile_url"],
        mapping: { user_id: "user_id", nickname: "nickname", profile_url: "profile_url" },
        totalRows: 1,
      },
      "lib/actions/imports.ts",
    );
    const jobId = made.data!.jobId!;
    expect(jobId).toMatch(/^[0-9a-f-]{36}$/);
    expect((await call("removeRemoteTarget", { targetId: far.id })).data).toBeDefined();

    const page = await get(`/imports/${jobId}`);
    expect(page.status).toBe(200);
    expect(page.text).toContain("This import&#x27;s target is gone");
    expect(page.text).toContain("That remote platform has been removed from Settings.");
    const plan = await call("planImportJob", { jobId }, "lib/actions/imports.ts");
    expect(plan.serverError).toMatch(/removed from Settings/);
  });

  it("refuses to finish the migration of a target the console no longer works on", async () => {
    const far = (await call("addRemoteTarget", input())).data!.target!;
    // The page was read on Far; then another tab chose the embedded sandbox.
    expect((await call("chooseTarget", { targetId: "sandbox:local" })).data).toBeDefined();
    const finish = await call("finishMigration", { targetId: far.id }, "lib/actions/imports.ts");
    expect(finish.serverError).toMatch(/now works on Default application .*Nothing was started/);
    expect((await call("removeRemoteTarget", { targetId: far.id })).data).toBeDefined();
  });

  it("holds no remote token in any answer nor in the console's output", () => {
    expect(answers.length).toBeGreaterThan(20);
    for (const token of [remote.token, near.token]) {
      for (const answer of answers) expect(answer.includes(token)).toBe(false);
      expect(server.output()).not.toContain(token);
    }
  });
});
