import { beforeAll, describe, expect, it } from "vitest";
import type { GroupChannelResource } from "@/lib/schemas/channels";
import {
  callMultipart,
  channelApi,
  createUsers,
  jpgBytes,
  listAllChannels,
} from "../fixtures/chat";
import { call, expectPlatformError, sharedSandbox, uniqueId } from "./support/http";

const sandbox = sharedSandbox();

/** A single channel is answered with its members and operators. */
type GroupChannel = GroupChannelResource &
  Required<Pick<GroupChannelResource, "members" | "operators">>;

const { create, get, freeze, expectRefused } = channelApi<GroupChannel>(
  sandbox,
  "/v3/group_channels",
);
const memberIds = (channel: GroupChannel) => channel.members.map((member) => member.user_id);

describe("sandbox: group channels", () => {
  let users: string[];
  let alice: string;
  let bob: string;
  let carol: string;

  beforeAll(async () => {
    users = await createUsers(sandbox, 101, "gm");
    [alice, bob, carol] = users as [string, string, string];
  });

  describe("POST /v3/group_channels", () => {
    it("creates a channel with the defaults of section 4.5 and answers the resource of 2.8", async () => {
      const before = Math.floor(Date.now() / 1000);
      const response = await create({ user_ids: [alice, bob] });
      expect(response.status).toBe(200);
      const channel = response.body;
      expect(Object.keys(channel).sort()).toEqual(
        [
          "name",
          "channel_url",
          "cover_url",
          "custom_type",
          "unread_message_count",
          "data",
          "is_distinct",
          "is_public",
          "is_super",
          "is_ephemeral",
          "is_access_code_required",
          "member_count",
          "joined_member_count",
          "unread_mention_count",
          "created_by",
          "members",
          "operators",
          "last_message",
          "message_survival_seconds",
          "max_length_message",
          "created_at",
          "freeze",
          "channel",
        ].sort(),
      );
      expect(channel).toMatchObject({
        name: "group channel",
        cover_url: "",
        custom_type: "",
        unread_message_count: 0,
        data: "",
        is_distinct: false,
        is_public: false,
        is_super: false,
        is_ephemeral: false,
        is_access_code_required: false,
        member_count: 2,
        joined_member_count: 2,
        unread_mention_count: 0,
        created_by: null,
        operators: [],
        last_message: null,
        message_survival_seconds: -1,
        max_length_message: 5000,
        freeze: false,
      });
      expect(channel.channel_url).toMatch(/^sendbird_group_channel_[0-9a-f]{40}$/);
      expect(channel.created_at).toBeGreaterThanOrEqual(before);
      expect(channel.created_at).toBeLessThanOrEqual(Math.ceil(Date.now() / 1000));
      expect(channel.members[0]).toEqual({
        user_id: alice,
        nickname: `nick ${alice}`,
        profile_url: "",
        is_active: true,
        is_online: false,
        last_seen_at: -1,
        state: "joined",
        role: "",
        metadata: {},
      });
      expect(channel.channel).toEqual({
        name: "group channel",
        channel_url: channel.channel_url,
        cover_url: "",
        custom_type: "",
        data: "",
        member_count: 2,
        max_length_message: 5000,
        created_at: channel.created_at,
      });
      expect((await get(channel.channel_url)).body).toEqual(channel);
    });

    it("takes members from users objects and user_ids together, each once", async () => {
      const response = await create({
        users: [{ user_id: alice, nickname: "ignored" }, { user_id: bob }],
        user_ids: [bob, carol],
      });
      expect(memberIds(response.body)).toEqual([alice, bob, carol]);
      expect(response.body.member_count).toBe(3);
    });

    it("requires users or user_ids (400105)", async () => {
      const channelUrl = uniqueId("group");
      await expectRefused(
        await create({ channel_url: channelUrl, name: "nobody" }),
        400105,
        channelUrl,
      );
    });

    it("skips unknown users when strict is false", async () => {
      const response = await create({ user_ids: [alice, "ghost_user", bob], strict: false });
      expect(response.status).toBe(200);
      expect(memberIds(response.body)).toEqual([alice, bob]);
      expect((await create({ user_ids: ["ghost_user"] })).body.member_count).toBe(0);
    });

    it("refuses unknown users when strict is true (400111 naming the user), writing nothing", async () => {
      const channelUrl = uniqueId("group");
      const body = await expectRefused(
        await create({ channel_url: channelUrl, user_ids: [alice, "ghost_user"], strict: true }),
        400111,
        channelUrl,
      );
      expect(body.message).toContain("ghost_user");
      await expectRefused(
        await create({ channel_url: channelUrl, users: [{ user_id: "ghost_2" }], strict: true }),
        400111,
        channelUrl,
      );
    });

    it("marks invited_* members as invited and counts only the joined", async () => {
      const response = await create({
        user_ids: [alice, bob, carol],
        invitation_status: {
          [bob]: "invited_by_friend",
          [carol]: "invited_by_non_friend",
          [alice]: "joined",
        },
        hidden_status: { [alice]: "hidden_allow_auto_unhide" },
      });
      expect(response.body.members.map((member) => member.state)).toEqual([
        "joined",
        "invited",
        "invited",
      ]);
      expect(response.body.member_count).toBe(3);
      expect(response.body.joined_member_count).toBe(1);
    });

    it.each([
      ["invitation_status", { any: "invited" }],
      ["hidden_status", { any: "hidden" }],
    ])("refuses an unknown %s value (400111)", async (field, value) => {
      const channelUrl = uniqueId("group");
      await expectRefused(
        await create({ channel_url: channelUrl, user_ids: [alice], [field]: value }),
        400111,
        channelUrl,
      );
    });

    it("gives operators among the members the role operator and lists every operator", async () => {
      const response = await create({
        user_ids: [alice, bob],
        operator_ids: [alice, carol, "ghost_operator"],
        invitation_status: { [alice]: "invited_by_friend" },
      });
      expect(response.body.members.map((member) => [member.user_id, member.role])).toEqual([
        [alice, "operator"],
        [bob, ""],
      ]);
      // carol is an operator without being a member: no member state. Unknown ids are skipped.
      expect(response.body.operators.map((operator) => [operator.user_id, operator.state])).toEqual(
        [
          [alice, "invited"],
          [carol, ""],
        ],
      );
      expect(response.body.operators[0]).not.toHaveProperty("role");
    });

    it("sets created_by from inviter_id, null when that user does not exist; strict refuses it", async () => {
      const invited = await create({ user_ids: [alice], inviter_id: bob });
      expect(invited.body.created_by).toEqual({
        user_id: bob,
        nickname: `nick ${bob}`,
        profile_url: "",
        require_auth_for_profile_image: false,
      });
      // The inviter is not made a member.
      expect(memberIds(invited.body)).toEqual([alice]);
      expect(
        (await create({ user_ids: [alice], inviter_id: "ghost_inviter" })).body.created_by,
      ).toBeNull();
      const channelUrl = uniqueId("group");
      await expectRefused(
        await create({
          channel_url: channelUrl,
          user_ids: [alice],
          inviter_id: "ghost_inviter",
          strict: true,
        }),
        400111,
        channelUrl,
      );
    });

    it("accepts 100 user_ids and refuses 101 (400111), for normal, public and super channels", async () => {
      const hundred = users.slice(0, 100);
      for (const kind of [{}, { is_public: true }, { is_super: true }]) {
        const response = await create({ user_ids: hundred, ...kind });
        expect(response.status).toBe(200);
        expect(response.body.member_count).toBe(100);
        const channelUrl = uniqueId("group");
        await expectRefused(
          await create({ channel_url: channelUrl, user_ids: users, ...kind }),
          400111,
          channelUrl,
        );
      }
      const split = {
        users: users.slice(0, 50).map((user_id) => ({ user_id })),
        user_ids: users.slice(50),
      };
      expectPlatformError(await create(split), 400, 400111);
    });

    it("accepts 100 operator_ids and refuses 101 (400111)", async () => {
      expect(
        (await create({ user_ids: [], operator_ids: users.slice(0, 100) })).body.operators,
      ).toHaveLength(100);
      expectPlatformError(await create({ user_ids: [], operator_ids: users }), 400, 400111);
    });

    it("refuses is_super with is_distinct (400111)", async () => {
      const channelUrl = uniqueId("group");
      await expectRefused(
        await create({
          channel_url: channelUrl,
          user_ids: [alice],
          is_super: true,
          is_distinct: true,
        }),
        400111,
        channelUrl,
      );
      expect((await create({ user_ids: [alice], is_super: true })).body.is_super).toBe(true);
    });

    it("accepts access_code only on a public channel and then requires it", async () => {
      const channelUrl = uniqueId("group");
      await expectRefused(
        await create({ channel_url: channelUrl, user_ids: [alice], access_code: "1234" }),
        400111,
        channelUrl,
      );
      const response = await create({ user_ids: [alice], is_public: true, access_code: "1234" });
      expect(response.body).toMatchObject({ is_public: true, is_access_code_required: true });
      expect(response.body).not.toHaveProperty("access_code");
      expect(
        (await create({ user_ids: [alice], is_public: true })).body.is_access_code_required,
      ).toBe(false);
      const blank = await create({ user_ids: [alice], is_public: true, access_code: "" });
      expect(blank.body.is_access_code_required).toBe(false);
    });

    it.each([
      ["3 characters", "abc"],
      ["101 characters", "g".repeat(101)],
      ["bad characters", "a+b=c"],
    ])("refuses a channel_url of %s (400111)", async (_, channelUrl) => {
      expectPlatformError(
        await create({ user_ids: [alice], channel_url: channelUrl }),
        400,
        400111,
      );
    });

    it("accepts a channel_url of 4 and of 100 characters", async () => {
      for (const channelUrl of [
        uniqueId("g")
          .replace(/[^a-z0-9]/g, "")
          .slice(-4),
        `${uniqueId("group")}-`.padEnd(100, "y"),
      ]) {
        expect(
          (await create({ user_ids: [alice], channel_url: channelUrl })).body.channel_url,
        ).toBe(channelUrl);
      }
    });

    it.each([
      ["name", 191],
      ["cover_url", 2048],
      ["custom_type", 128],
    ])("accepts %s at %i characters and refuses one more (400110)", async (field, limit) => {
      expect((await create({ user_ids: [alice], [field]: "b".repeat(limit) })).body).toMatchObject({
        [field]: "b".repeat(limit),
      });
      const channelUrl = uniqueId("group");
      await expectRefused(
        await create({
          channel_url: channelUrl,
          user_ids: [alice],
          [field]: "b".repeat(limit + 1),
        }),
        400110,
        channelUrl,
      );
    });

    it.each([
      ["user_ids", "a,b"],
      ["users", ["plain string"]],
      ["is_distinct", "true"],
      ["is_public", 1],
      ["strict", "yes"],
      ["invitation_status", ["joined"]],
      ["operator_ids", {}],
      ["inviter_id", 42],
      ["access_code", 1234],
      ["block_sdk_user_channel_join", null],
    ])("refuses %s of the wrong type (400100)", async (field, value) => {
      const body =
        field === "user_ids" || field === "users"
          ? { [field]: value }
          : { user_ids: [alice], [field]: value };
      expectPlatformError(await create(body), 400, 400100);
    });

    it("refuses a users item without user_id (400105)", async () => {
      expectPlatformError(await create({ users: [{ nickname: "who" }] }), 400, 400105);
    });

    it("refuses malformed JSON (400403) and ignores unknown fields", async () => {
      const malformed = await call(sandbox, "POST", "/v3/group_channels", undefined, {
        rawBody: '{"user_ids": [',
        headers: { "content-type": "application/json" },
      });
      expectPlatformError(malformed, 400, 400403);
      const response = await create({ user_ids: [alice], member_count: 55, extra: [1, 2] });
      expect(response.status).toBe(200);
      expect(response.body.member_count).toBe(1);
      expect(response.body).not.toHaveProperty("extra");
    });

    it("refuses a channel_url already taken by a group or an open channel (400202)", async () => {
      const channelUrl = uniqueId("group");
      expect(
        (await create({ user_ids: [alice], channel_url: channelUrl, name: "first" })).status,
      ).toBe(200);
      expectPlatformError(await create({ user_ids: [bob], channel_url: channelUrl }), 400, 400202);
      expect((await get(channelUrl)).body.name).toBe("first");

      const openUrl = uniqueId("open");
      expect(
        (await call(sandbox, "POST", "/v3/open_channels", { channel_url: openUrl })).status,
      ).toBe(200);
      expectPlatformError(await create({ user_ids: [alice], channel_url: openUrl }), 400, 400202);
      expectPlatformError(await get(openUrl), 400, 400201);
    });

    it("lets exactly one of concurrent creations with the same channel_url succeed", async () => {
      const channelUrl = uniqueId("race");
      const responses = await Promise.all(
        Array.from({ length: 8 }, () => create({ user_ids: [alice], channel_url: channelUrl })),
      );
      expect(responses.filter((response) => response.status === 200)).toHaveLength(1);
      for (const response of responses.filter((r) => r.status !== 200))
        expectPlatformError(response, 400, 400202);
    });

    it("reads nicknames and activity of members when answering, not when creating", async () => {
      const [member] = await createUsers(sandbox, 1, "renamed");
      const channel = (await create({ user_ids: [member] })).body;
      expect(
        (
          await call(sandbox, "PUT", `/v3/users/${member}`, {
            nickname: "New name",
            is_active: false,
            // Stays a member, so the channel shows the change.
            leave_all_when_deactivated: false,
          })
        ).status,
      ).toBe(200);
      expect((await get(channel.channel_url)).body.members[0]).toMatchObject({
        nickname: "New name",
        is_active: false,
      });
    });
  });

  describe("distinct channels", () => {
    it("returns the existing channel for the same member set (HTTP 200, no new channel)", async () => {
      const customType = uniqueId("distinct");
      const first = await create({
        user_ids: [alice, bob],
        is_distinct: true,
        custom_type: customType,
        name: "first",
      });
      expect(first.status).toBe(200);
      const again = await create({
        users: [{ user_id: bob }],
        user_ids: [alice, "ghost_user"],
        is_distinct: true,
        custom_type: customType,
        name: "second",
        channel_url: uniqueId("ignored"),
      });
      expect(again.status).toBe(200);
      expect(again.body).toEqual(first.body);
      const { channels } = await listAllChannels<GroupChannel>(sandbox, "/v3/group_channels", 100);
      expect(channels.filter((channel) => channel.custom_type === customType)).toHaveLength(1);
    });

    it("makes a new channel for another member set, another custom_type, or is_distinct false", async () => {
      const customType = uniqueId("distinct");
      const base = { user_ids: [alice, bob], is_distinct: true, custom_type: customType };
      const first = (await create(base)).body.channel_url;
      const others = [
        { ...base, user_ids: [alice, bob, carol] },
        { ...base, custom_type: `${customType}_other` },
        { ...base, is_distinct: false },
      ];
      for (const body of others) {
        expect((await create(body)).body.channel_url).not.toBe(first);
      }
    });

    it("makes one channel from concurrent distinct creations of the same members", async () => {
      const customType = uniqueId("distinct");
      const responses = await Promise.all(
        Array.from({ length: 6 }, () =>
          create({ user_ids: [carol, alice], is_distinct: true, custom_type: customType }),
        ),
      );
      expect(responses.every((response) => response.status === 200)).toBe(true);
      expect(new Set(responses.map((response) => response.body.channel_url)).size).toBe(1);
    });
  });

  describe("multipart creation", () => {
    it("reads repeated user_ids, JSON maps and booleans, and stores a JPG cover_file", async () => {
      const response = await callMultipart(sandbox, "/v3/group_channels", [
        ["user_ids", alice],
        ["user_ids", bob],
        ["operator_ids[]", bob],
        ["invitation_status", JSON.stringify({ [alice]: "invited_by_friend" })],
        ["is_public", "true"],
        ["cover_file", new Blob([jpgBytes(300)])],
      ]);
      expect(response.status, JSON.stringify(response.body)).toBe(200);
      const channel = response.body as GroupChannel;
      expect(channel.members.map((member) => [member.user_id, member.state, member.role])).toEqual([
        [alice, "invited", ""],
        [bob, "joined", "operator"],
      ]);
      expect(channel.is_public).toBe(true);
      expect((await fetch(channel.cover_url)).headers.get("content-type")).toBe("image/jpeg");
    });

    it("reads users as one JSON field", async () => {
      const response = await callMultipart(sandbox, "/v3/group_channels", [
        ["users", JSON.stringify([{ user_id: carol }])],
      ]);
      expect(memberIds(response.body as GroupChannel)).toEqual([carol]);
    });

    it("refuses text as a cover (400111) and a missing member list (400105), writing nothing", async () => {
      const channelUrl = uniqueId("group");
      const textCover = await callMultipart(
        sandbox,
        "/v3/group_channels",
        [
          ["channel_url", channelUrl],
          ["user_ids", alice],
          ["cover_file", new Blob(["<svg>not a png</svg>"])],
        ],
        "cover.png",
      );
      await expectRefused(textCover, 400111, channelUrl);
      await expectRefused(
        await callMultipart(sandbox, "/v3/group_channels", [["channel_url", channelUrl]]),
        400105,
        channelUrl,
      );
    });

    it("refuses an unparsable JSON map (400100)", async () => {
      const response = await callMultipart(sandbox, "/v3/group_channels", [
        ["user_ids", alice],
        ["hidden_status", "{not json"],
      ]);
      expectPlatformError(response, 400, 400100);
    });
  });

  describe("GET, list and freeze", () => {
    it("answers 400201 for a channel that does not exist", async () => {
      expectPlatformError(await get(uniqueId("missing")), 400, 400201);
    });

    it("freezes and unfreezes a channel", async () => {
      const channelUrl = (await create({ user_ids: [alice] })).body.channel_url;
      expect((await freeze(channelUrl, { freeze: true })).body).toMatchObject({
        channel_url: channelUrl,
        freeze: true,
      });
      expect((await get(channelUrl)).body.freeze).toBe(true);
      expect((await freeze(channelUrl, { freeze: false })).body.freeze).toBe(false);
      expectPlatformError(await freeze(channelUrl, {}), 400, 400105);
      expectPlatformError(await freeze(channelUrl, { freeze: 1 }), 400, 400100);
      expectPlatformError(await freeze(uniqueId("missing"), { freeze: true }), 400, 400201);
    });

    it("lists every channel once, in creation order, page by page", async () => {
      const created: string[] = [];
      for (let i = 0; i < 3; i++)
        created.push((await create({ user_ids: [alice] })).body.channel_url);
      const { channels } = await listAllChannels<GroupChannel>(sandbox, "/v3/group_channels", 9);
      const urls = channels.map((channel) => channel.channel_url);
      expect(new Set(urls).size).toBe(urls.length);
      expect(urls.filter((url) => created.includes(url))).toEqual(created);
      expect(
        channels.find((channel) => channel.channel_url === created[0])?.members[0]?.user_id,
      ).toBe(alice);
    });

    it.each([
      ["limit=0", 400111],
      ["limit=101", 400111],
      ["limit=1.5", 400100],
      ["next=bm9wZQ", 400111],
    ])("refuses ?%s", async (query, code) => {
      expectPlatformError(await call(sandbox, "GET", `/v3/group_channels?${query}`), 400, code);
    });
  });
});
