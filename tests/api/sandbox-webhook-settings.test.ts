import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { call, expectPlatformError, type ApiResponse } from "./support/http";
import { startSandboxServer, type SandboxServer } from "./support/sandbox-server";

type Settings = {
  enabled: boolean;
  url: string;
  include_members: boolean;
  enabled_events: string[];
};

const allCategories = [
  "direct_call:dial",
  "direct_call:accept",
  "direct_call:end",
  "room:create",
  "room:delete",
  "room:participant_enter",
  "room:participant_exit",
  "room:participant_disconnect",
  "room:invitation_send",
  "room:invitation_cancel",
  "room:invitation_accept",
  "room:invitation_decline",
  "room:invitation_no_answer",
];
const initial: Settings = { enabled: false, url: "", include_members: false, enabled_events: [] };

// The settings belong to the application; a server of its own keeps other suites'
// webhook tests from changing them under these assertions.
let server: SandboxServer;
const appId = "hooks";
const path = `/v1/applications/${appId}/settings/webhook`;
/** What a new application answers, read before any test changes it. */
let firstRead: ApiResponse;

beforeAll(async () => {
  server = await startSandboxServer({ SANDBOX_APP_ID: appId });
  firstRead = await call(server, "GET", path);
});
afterAll(async () => {
  await server?.stop();
});

const read = (query = "") =>
  call<{ webhook: Settings & { all_webhook_categories?: string[] } }>(
    server,
    "GET",
    `${path}${query}`,
  );
const replace = (body: unknown) => call<Settings>(server, "PUT", path, body);

async function currentSettings(): Promise<Settings> {
  const response = await read();
  expect(response.status).toBe(200);
  return response.body.webhook;
}

describe("webhook settings", () => {
  beforeEach(async () => {
    const response = await replace({ application_id: appId, ...initial });
    expect(response.body).toEqual(initial);
  });

  describe("GET", () => {
    it("starts disabled, with no url and no events, without all_webhook_categories", async () => {
      expect(firstRead.status).toBe(200);
      expect(firstRead.body).toEqual({ webhook: initial });
    });

    it("adds all 13 categories in section 6 order when display_all_webhook_categories=true", async () => {
      const response = await read("?display_all_webhook_categories=true");
      expect(response.body).toEqual({
        webhook: { ...initial, all_webhook_categories: allCategories },
      });
      expect((await read("?display_all_webhook_categories=false")).body).toEqual({
        webhook: initial,
      });
      // In any letter case, as the platform's Python SDK sends booleans.
      expect((await read("?display_all_webhook_categories=True")).body).toEqual(response.body);
      expect((await read("?display_all_webhook_categories=FALSE")).body).toEqual({
        webhook: initial,
      });
    });

    it("refuses a display_all_webhook_categories that is not true or false with 400100", async () => {
      const error = expectPlatformError(
        await read("?display_all_webhook_categories=yes"),
        400,
        400100,
      );
      expect(error.message).toContain("display_all_webhook_categories");
    });

    it("answers 404 / 400304 for another application's id in the path", async () => {
      expectPlatformError(
        await call(server, "GET", "/v1/applications/local/settings/webhook"),
        404,
        400304,
      );
      expectPlatformError(
        await call(server, "PUT", "/v1/applications/other/settings/webhook", {
          application_id: "other",
        }),
        404,
        400304,
      );
    });
  });

  describe("PUT", () => {
    it("replaces the settings, answers the bare object and keeps them for later reads", async () => {
      const settings = {
        enabled: true,
        url: "https://hooks.example.com/calls",
        include_members: true,
        enabled_events: ["direct_call:dial", "room:create"],
      };
      const response = await replace({ application_id: appId, ...settings });
      expect(response.status).toBe(200);
      expect(response.body).toEqual(settings);
      expect(await currentSettings()).toEqual(settings);
    });

    it("keeps the stored value of every property left out", async () => {
      await replace({
        application_id: appId,
        enabled: true,
        url: "http://127.0.0.1:9/hook",
        include_members: true,
        enabled_events: ["room:delete"],
      });
      const response = await replace({ application_id: appId, enabled: false });
      const expected = {
        enabled: false,
        url: "http://127.0.0.1:9/hook",
        include_members: true,
        enabled_events: ["room:delete"],
      };
      expect(response.body).toEqual(expected);
      expect((await replace({ application_id: appId })).body).toEqual(expected);
      expect(await currentSettings()).toEqual(expected);
    });

    it('expands ["*"] to the 13 concrete categories, in the response and in later reads', async () => {
      const response = await replace({ application_id: appId, enabled_events: ["*"] });
      expect(response.body.enabled_events).toEqual(allCategories);
      expect((await currentSettings()).enabled_events).toEqual(allCategories);
    });

    it("accepts [] to unsubscribe from everything", async () => {
      await replace({ application_id: appId, enabled_events: ["*"] });
      expect(
        (await replace({ application_id: appId, enabled_events: [] })).body.enabled_events,
      ).toEqual([]);
      expect((await currentSettings()).enabled_events).toEqual([]);
    });

    it("lists categories once each, in section 6 order, however they were sent", async () => {
      const response = await replace({
        application_id: appId,
        enabled_events: [
          "room:invitation_no_answer",
          "direct_call:end",
          "room:invitation_no_answer",
        ],
      });
      expect(response.body.enabled_events).toEqual([
        "direct_call:end",
        "room:invitation_no_answer",
      ]);
    });

    it("enables with a url already stored, and accepts an empty url while disabled", async () => {
      await replace({ application_id: appId, url: "https://example.com/h" });
      expect((await replace({ application_id: appId, enabled: true })).body).toMatchObject({
        enabled: true,
        url: "https://example.com/h",
      });
      await replace({ application_id: appId, enabled: false });
      expect((await replace({ application_id: appId, url: "" })).body).toMatchObject({
        enabled: false,
        url: "",
      });
    });

    it("accepts a url of 2048 characters and refuses 2049 with 400110", async () => {
      const url = `https://example.com/${"a".repeat(2048 - 20)}`;
      expect((await replace({ application_id: appId, url })).body.url).toBe(url);
      expectPlatformError(await replace({ application_id: appId, url: `${url}a` }), 400, 400110);
    });

    it.each([
      ["application_id missing", { enabled: false }, 400105, "application_id"],
      [
        "application_id of another application",
        { application_id: "local" },
        400111,
        "application_id",
      ],
      ["application_id empty", { application_id: "" }, 400111, "application_id"],
      ["application_id a number", { application_id: 7 }, 400100, "application_id"],
      ["enabled a string", { application_id: appId, enabled: "true" }, 400100, "enabled"],
      [
        "include_members a number",
        { application_id: appId, include_members: 1 },
        400100,
        "include_members",
      ],
      ["url a number", { application_id: appId, url: 80 }, 400100, "url"],
      ["url relative", { application_id: appId, url: "/hooks" }, 400111, "url"],
      [
        "url with another scheme",
        { application_id: appId, url: "ftp://example.com/h" },
        400111,
        "url",
      ],
      ["url without a host", { application_id: appId, url: "https://" }, 400111, "url"],
      ["url with spaces", { application_id: appId, url: "https://example.com/a b" }, 400111, "url"],
      [
        "enabled with an empty url",
        { application_id: appId, enabled: true, url: "" },
        400111,
        "url",
      ],
      ["enabled with no url stored", { application_id: appId, enabled: true }, 400111, "url"],
      [
        "enabled_events not an array",
        { application_id: appId, enabled_events: "*" },
        400100,
        "enabled_events",
      ],
      [
        "enabled_events with a number",
        { application_id: appId, enabled_events: [1] },
        400100,
        "enabled_events",
      ],
      [
        "an unknown category",
        { application_id: appId, enabled_events: ["room:explode"] },
        400111,
        "room:explode",
      ],
      [
        "* beside a category",
        { application_id: appId, enabled_events: ["*", "room:create"] },
        400111,
        "*",
      ],
      ["* twice", { application_id: appId, enabled_events: ["*", "*"] }, 400111, "*"],
    ])("refuses %s and changes nothing", async (_label, body, code, mention) => {
      const error = expectPlatformError(await replace(body), 400, code);
      expect(error.message).toContain(mention);
      expect(await currentSettings()).toEqual(initial);
    });

    it("refuses to clear the url of enabled webhooks with 400111", async () => {
      const enabled = { application_id: appId, enabled: true, url: "https://example.com/h" };
      await replace(enabled);
      expectPlatformError(await replace({ application_id: appId, url: "" }), 400, 400111);
      expect((await currentSettings()).url).toBe("https://example.com/h");
    });

    it("ignores unknown properties and never answers them", async () => {
      const response = await replace({
        application_id: appId,
        colour: "blue",
        all_webhook_categories: ["x"],
      });
      expect(response.body).toEqual(initial);
    });

    it.each([
      ["malformed JSON", "{"],
      ["a JSON array", `[{"application_id":"${appId}"}]`],
    ])("refuses %s with 400403", async (_label, rawBody) => {
      const response = await call(server, "PUT", path, undefined, {
        headers: { "content-type": "application/json" },
        rawBody,
      });
      expectPlatformError(response, 400, 400403);
    });

    it("keeps every property of concurrent partial updates", async () => {
      const updates = [
        { url: "https://example.com/concurrent" },
        { include_members: true },
        { enabled_events: ["room:create"] },
      ];
      const responses = await Promise.all(
        updates.map((update) => replace({ application_id: appId, ...update })),
      );
      for (const response of responses) expect(response.status).toBe(200);
      expect(await currentSettings()).toEqual({
        enabled: false,
        url: "https://example.com/concurrent",
        include_members: true,
        enabled_events: ["room:create"],
      });
    });
  });
});
