import { beforeAll, describe, expect, it } from "vitest";
import type { OpenChannelResource as OpenChannel } from "@/lib/schemas/channels";
import {
  callMultipart,
  channelApi,
  createUsers,
  jpgBytes,
  listAllChannels,
} from "../fixtures/chat";
import { call, expectPlatformError, sharedSandbox, uniqueId } from "./support/http";

const sandbox = sharedSandbox();

const { create, get, freeze, expectRefused } = channelApi<OpenChannel>(
  sandbox,
  "/v3/open_channels",
);
describe("sandbox: open channels", () => {
  let operators: string[];

  beforeAll(async () => {
    operators = await createUsers(sandbox, 100, "op");
  });

  describe("POST /v3/open_channels", () => {
    it("creates a channel with the defaults of section 4.4 and answers the resource of 2.7", async () => {
      const before = Math.floor(Date.now() / 1000);
      const response = await create({});
      expect(response.status).toBe(200);
      const channel = response.body;
      expect(Object.keys(channel).sort()).toEqual(
        [
          "name",
          "channel_url",
          "custom_type",
          "is_ephemeral",
          "participant_count",
          "max_length_message",
          "created_at",
          "cover_url",
          "data",
          "operators",
          "freeze",
        ].sort(),
      );
      expect(channel).toMatchObject({
        name: "open channel",
        custom_type: "",
        is_ephemeral: false,
        participant_count: 0,
        max_length_message: 5000,
        cover_url: "",
        data: "",
        operators: [],
        freeze: false,
      });
      // Seconds, not milliseconds (10 digits).
      expect(channel.created_at).toBeGreaterThanOrEqual(before);
      expect(channel.created_at).toBeLessThanOrEqual(Math.ceil(Date.now() / 1000));
      expect(channel.channel_url).toMatch(/^sendbird_open_channel_[0-9a-f]{40}$/);
      expect((await create({})).body.channel_url).not.toBe(channel.channel_url);
    });

    it("stores every given property and answers the same resource on GET", async () => {
      const channelUrl = uniqueId("open");
      const response = await create({
        name: "Lobby",
        channel_url: channelUrl,
        cover_url: "https://example.com/cover.png",
        custom_type: "lobby",
        data: '{"topic":"hello"}',
        is_ephemeral: true,
        is_dynamic_partitioned: false,
        operator_ids: [operators[0], operators[1]],
      });
      expect(response.status).toBe(200);
      expect(response.body).toMatchObject({
        name: "Lobby",
        channel_url: channelUrl,
        cover_url: "https://example.com/cover.png",
        custom_type: "lobby",
        data: '{"topic":"hello"}',
        is_ephemeral: true,
        operators: [
          { user_id: operators[0], nickname: `nick ${operators[0]}`, profile_url: "" },
          { user_id: operators[1], nickname: `nick ${operators[1]}`, profile_url: "" },
        ],
      });
      const read = await get(channelUrl);
      expect(read.status).toBe(200);
      expect(read.body).toEqual(response.body);
    });

    it("honours the deprecated operators[] beside operator_ids", async () => {
      const response = await create({
        operator_ids: [operators[0]],
        operators: [operators[2], operators[0]],
      });
      expect(response.body.operators.map((operator) => operator.user_id)).toEqual([
        operators[0],
        operators[2],
      ]);
    });

    it("accepts 100 operators and refuses 101 (400111)", async () => {
      const response = await create({ operator_ids: operators });
      expect(response.status).toBe(200);
      expect(response.body.operators).toHaveLength(100);
      const channelUrl = uniqueId("open");
      await expectRefused(
        await create({ channel_url: channelUrl, operator_ids: [...operators, "one_more"] }),
        400111,
        channelUrl,
      );
      await expectRefused(
        await create({
          channel_url: channelUrl,
          operator_ids: operators.slice(0, 50),
          operators: [...operators.slice(50), "x"],
        }),
        400111,
        channelUrl,
      );
    });

    it("refuses an operator who is not a registered user with 400201, writing nothing", async () => {
      const channelUrl = uniqueId("open");
      const response = await create({
        channel_url: channelUrl,
        operator_ids: [operators[0], "nobody_here"],
      });
      await expectRefused(response, 400201, channelUrl);
      expect((response.body as unknown as { message: string }).message).toContain("nobody_here");
    });

    it.each([
      ["3 characters", "abc", 400111],
      ["bad characters", "has space", 400111],
      ["a dot", "dot.ted.url", 400111],
      ["a slash", "a/b/c/d", 400111],
      ["non-ASCII letters", "kanal_ü", 400111],
      ["101 characters", "x".repeat(101), 400111],
    ])("refuses a channel_url of %s", async (_, channelUrl, code) => {
      expectPlatformError(await create({ channel_url: channelUrl }), 400, code);
    });

    it("accepts a channel_url of 4 and of 100 characters", async () => {
      const four = uniqueId("o")
        .replace(/[^a-z0-9]/g, "")
        .slice(-4);
      const hundred = `${uniqueId("open")}_`.padEnd(100, "x");
      for (const channelUrl of [four, hundred]) {
        const response = await create({ channel_url: channelUrl });
        expect(response.status, JSON.stringify(response.body)).toBe(200);
        expect((await get(channelUrl)).body.channel_url).toBe(channelUrl);
      }
    });

    it.each([
      ["name", 191],
      ["cover_url", 2048],
      ["custom_type", 128],
    ])("accepts %s at %i characters and refuses one more (400110)", async (field, limit) => {
      expect((await create({ [field]: "a".repeat(limit) })).body).toMatchObject({
        [field]: "a".repeat(limit),
      });
      const channelUrl = uniqueId("open");
      await expectRefused(
        await create({ channel_url: channelUrl, [field]: "a".repeat(limit + 1) }),
        400110,
        channelUrl,
      );
    });

    it.each([
      ["name", 5],
      ["channel_url", 1234],
      ["is_ephemeral", "true"],
      ["is_dynamic_partitioned", 1],
      ["operator_ids", "alice"],
      ["operators", [7]],
      ["data", { nested: true }],
    ])("refuses %s of the wrong type (400100)", async (field, value) => {
      expectPlatformError(await create({ [field]: value }), 400, 400100);
    });

    it("refuses malformed JSON and non-object bodies (400403)", async () => {
      const raw = (rawBody: string) =>
        call(sandbox, "POST", "/v3/open_channels", undefined, {
          rawBody,
          headers: { "content-type": "application/json" },
        });
      expectPlatformError(await raw('{"name": '), 400, 400403);
      expectPlatformError(await raw("[]"), 400, 400403);
      expectPlatformError(await raw(""), 400, 400403);
    });

    it("ignores unknown fields", async () => {
      const response = await create({
        name: "with extras",
        surprise: { deep: 1 },
        participant_count: 99,
      });
      expect(response.status).toBe(200);
      expect(response.body).not.toHaveProperty("surprise");
      expect(response.body.participant_count).toBe(0);
    });

    it("refuses a channel_url already taken by an open or a group channel (400202)", async () => {
      const channelUrl = uniqueId("open");
      expect((await create({ channel_url: channelUrl, name: "first" })).status).toBe(200);
      expectPlatformError(await create({ channel_url: channelUrl, name: "second" }), 400, 400202);
      expect((await get(channelUrl)).body.name).toBe("first");

      const groupUrl = uniqueId("group");
      expect(
        (await call(sandbox, "POST", "/v3/group_channels", { user_ids: [], channel_url: groupUrl }))
          .status,
      ).toBe(200);
      await expectRefused(await create({ channel_url: groupUrl }), 400202);
      expectPlatformError(await get(groupUrl), 400, 400201);
    });

    it("lets exactly one of concurrent creations with the same channel_url succeed", async () => {
      const channelUrl = uniqueId("race");
      const responses = await Promise.all(
        Array.from({ length: 8 }, (_, i) =>
          create({ channel_url: channelUrl, name: `racer ${i}` }),
        ),
      );
      expect(responses.filter((response) => response.status === 200)).toHaveLength(1);
      for (const response of responses.filter((r) => r.status !== 200))
        expectPlatformError(response, 400, 400202);
    });
  });

  describe("multipart creation", () => {
    it("stores a JPG cover_file and serves it from cover_url; repeated operator_ids fields form the array", async () => {
      const image = jpgBytes(500);
      const response = await callMultipart(sandbox, "/v3/open_channels", [
        ["name", "With cover"],
        ["is_ephemeral", "true"],
        ["operator_ids", operators[0]!],
        ["operator_ids[]", operators[1]!],
        ["cover_url", "https://example.com/ignored.png"],
        ["cover_file", new Blob([image])],
      ]);
      expect(response.status, JSON.stringify(response.body)).toBe(200);
      const channel = response.body as OpenChannel;
      expect(channel).toMatchObject({ name: "With cover", is_ephemeral: true });
      expect(channel.operators.map((operator) => operator.user_id)).toEqual([
        operators[0],
        operators[1],
      ]);
      expect(channel.cover_url.startsWith(`${sandbox.baseUrl}/files/`)).toBe(true);
      const served = await fetch(channel.cover_url);
      expect(served.headers.get("content-type")).toBe("image/jpeg");
      expect(new Uint8Array(await served.arrayBuffer())).toEqual(image);
    });

    it("reads operator_ids given as one JSON array field", async () => {
      const response = await callMultipart(sandbox, "/v3/open_channels", [
        ["operator_ids", JSON.stringify([operators[3], operators[4]])],
      ]);
      expect((response.body as OpenChannel).operators.map((operator) => operator.user_id)).toEqual([
        operators[3],
        operators[4],
      ]);
    });

    it("refuses text named .png as a cover (400111), writing nothing", async () => {
      const channelUrl = uniqueId("open");
      const response = await callMultipart(
        sandbox,
        "/v3/open_channels",
        [
          ["channel_url", channelUrl],
          ["cover_file", new Blob(["just text, not an image"], { type: "image/png" })],
        ],
        "cover.png",
      );
      await expectRefused(response, 400111, channelUrl);
    });

    // The 5 MB boundary itself is the shared image check's, tested with profile_file.
    it("refuses a cover one byte over 5 MB (400110), writing nothing", async () => {
      const channelUrl = uniqueId("open");
      const refused = await callMultipart(sandbox, "/v3/open_channels", [
        ["channel_url", channelUrl],
        ["cover_file", new Blob([jpgBytes(5 * 1024 * 1024 + 1)])],
      ]);
      await expectRefused(refused, 400110, channelUrl);
    });

    it("refuses a cover_file sent as a text field (400100) and a bad boolean (400100)", async () => {
      expectPlatformError(
        await callMultipart(sandbox, "/v3/open_channels", [["cover_file", "not a file"]]),
        400,
        400100,
      );
      expectPlatformError(
        await callMultipart(sandbox, "/v3/open_channels", [["is_ephemeral", "yes"]]),
        400,
        400100,
      );
    });

    it("checks the fields before the image: a bad channel_url with a good image is 400111", async () => {
      const response = await callMultipart(sandbox, "/v3/open_channels", [
        ["channel_url", "bad url"],
        ["cover_file", new Blob([jpgBytes()])],
      ]);
      expectPlatformError(response, 400, 400111);
    });

    it("refuses a taken channel_url with a cover as 400202", async () => {
      const channelUrl = uniqueId("open");
      expect((await create({ channel_url: channelUrl })).status).toBe(200);
      const response = await callMultipart(sandbox, "/v3/open_channels", [
        ["channel_url", channelUrl],
        ["cover_file", new Blob([jpgBytes()])],
      ]);
      expectPlatformError(response, 400, 400202);
      expect((await get(channelUrl)).body.cover_url).toBe("");
    });
  });

  describe("GET, list and freeze", () => {
    it("answers 400201 for a channel that does not exist", async () => {
      expectPlatformError(await get(uniqueId("missing")), 400, 400201);
    });

    it("freezes and unfreezes a channel", async () => {
      const channelUrl = uniqueId("open");
      await create({ channel_url: channelUrl });
      const frozen = await freeze(channelUrl, { freeze: true });
      expect(frozen.status).toBe(200);
      expect(frozen.body).toMatchObject({ channel_url: channelUrl, freeze: true });
      expect((await get(channelUrl)).body.freeze).toBe(true);
      expect((await freeze(channelUrl, { freeze: false })).body.freeze).toBe(false);
      expect((await get(channelUrl)).body.freeze).toBe(false);
    });

    it("refuses a freeze without a boolean, or of a missing channel", async () => {
      const channelUrl = uniqueId("open");
      await create({ channel_url: channelUrl });
      expectPlatformError(await freeze(channelUrl, {}), 400, 400105);
      expectPlatformError(await freeze(channelUrl, { freeze: "true" }), 400, 400100);
      expectPlatformError(await freeze(uniqueId("missing"), { freeze: true }), 400, 400201);
      expect((await get(channelUrl)).body.freeze).toBe(false);
    });

    it("lists every channel once, in creation order, page by page", async () => {
      const created: string[] = [];
      for (let i = 0; i < 3; i++) {
        created.push((await create({ channel_url: uniqueId("listed") })).body.channel_url);
      }
      const { channels, pages } = await listAllChannels<OpenChannel>(
        sandbox,
        "/v3/open_channels",
        7,
      );
      const urls = channels.map((channel) => channel.channel_url);
      expect(new Set(urls).size).toBe(urls.length);
      expect(urls.filter((url) => created.includes(url))).toEqual(created);
      expect(pages).toBe(Math.max(1, Math.ceil(urls.length / 7)));
    });

    it("answers {channels, next} with 10 channels by default", async () => {
      for (let i = 0; i < 11; i++) await create({});
      const response = await call<{ channels: OpenChannel[]; next: string }>(
        sandbox,
        "GET",
        "/v3/open_channels",
      );
      expect(Object.keys(response.body).sort()).toEqual(["channels", "next"]);
      expect(response.body.channels).toHaveLength(10);
      expect(response.body.next).not.toBe("");
    });

    it.each([
      ["limit=0", 400111],
      ["limit=101", 400111],
      ["limit=ten", 400100],
      ["next=not-a-token", 400111],
    ])("refuses ?%s", async (query, code) => {
      expectPlatformError(await call(sandbox, "GET", `/v3/open_channels?${query}`), 400, code);
    });

    it("accepts limit=1 and limit=100", async () => {
      expect(
        (await call<{ channels: unknown[] }>(sandbox, "GET", "/v3/open_channels?limit=1")).body
          .channels,
      ).toHaveLength(1);
      expect((await call(sandbox, "GET", "/v3/open_channels?limit=100")).status).toBe(200);
    });
  });
});
