import { beforeAll, describe, expect, it } from "vitest";
import type {
  GroupChannelMemberResource as Member,
  GroupChannelResource,
} from "@/lib/schemas/channels";
import { createUsers } from "../fixtures/chat";
import { call, expectPlatformError, sharedSandbox, uniqueId } from "./support/http";

const sandbox = sharedSandbox();

/** A single channel is answered with its members. */
type GroupChannel = GroupChannelResource & Required<Pick<GroupChannelResource, "members">>;

const invite = (channelUrl: string, body: unknown) =>
  call<GroupChannel>(sandbox, "POST", `/v3/group_channels/${channelUrl}/invite`, body);

async function createChannel(body: Record<string, unknown>): Promise<GroupChannel> {
  const response = await call<GroupChannel>(sandbox, "POST", "/v3/group_channels", body);
  expect(response.status, JSON.stringify(response.body)).toBe(200);
  return response.body;
}

/** Every member, walked page by page with `token` as the vendor's SDKs do. */
async function allMembers(channelUrl: string, query = "", limit = 7): Promise<Member[]> {
  const members: Member[] = [];
  let token = "";
  do {
    const response = await call<{ members: Member[]; next: string }>(
      sandbox,
      "GET",
      `/v3/group_channels/${channelUrl}/members?limit=${limit}&token=${encodeURIComponent(token)}${query}`,
    );
    expect(response.status, JSON.stringify(response.body)).toBe(200);
    expect(response.body.members.length).toBeLessThanOrEqual(limit);
    members.push(...response.body.members);
    token = response.body.next;
  } while (token !== "");
  return members;
}

describe("sandbox: group channel members", () => {
  let users: string[];

  beforeAll(async () => {
    users = await createUsers(sandbox, 160, "inv");
  });

  it("invites users, answers the channel, and keeps members already there", async () => {
    const channel = await createChannel({ user_ids: users.slice(0, 2) });
    const response = await invite(channel.channel_url, {
      user_ids: [users[1], users[2], users[3]],
      invitation_status: { [users[3]!]: "invited_by_friend" },
      hidden_status: { [users[2]!]: "hidden_allow_auto_unhide" },
    });
    expect(response.status, JSON.stringify(response.body)).toBe(200);
    expect(response.body.channel_url).toBe(channel.channel_url);
    expect(response.body.members.map((member) => member.user_id)).toEqual(users.slice(0, 4));
    expect(response.body.member_count).toBe(4);
    expect(response.body.joined_member_count).toBe(3);
    // `users` objects are the other spelling.
    const again = await invite(channel.channel_url, { users: [{ user_id: users[4] }] });
    expect(again.body.member_count).toBe(5);
  });

  it("fills a normal channel to 100 and refuses the 101st, adding no one (400111)", async () => {
    const channel = await createChannel({ user_ids: users.slice(0, 60) });
    expect((await invite(channel.channel_url, { user_ids: users.slice(60, 100) })).status).toBe(
      200,
    );
    const refused = await invite(channel.channel_url, { user_ids: users.slice(100, 102) });
    expect(expectPlatformError(refused, 400, 400111).message).toContain("at most 100");
    expect((await allMembers(channel.channel_url, "", 100)).length).toBe(100);
  });

  it("grows a supergroup past 100 by invitations, 100 ids per request", async () => {
    const channel = await createChannel({ user_ids: users.slice(0, 100), is_super: true });
    const response = await invite(channel.channel_url, { user_ids: users.slice(100, 160) });
    expect(response.status).toBe(200);
    expect(response.body.member_count).toBe(160);
    const members = await allMembers(channel.channel_url, "", 100);
    expect(new Set(members.map((member) => member.user_id))).toEqual(new Set(users));
  });

  it(
    "fills a supergroup to 2,000 members and refuses the 2,001st (400111)",
    { timeout: 120_000 },
    async () => {
      const many = await createUsers(sandbox, 2001, "sg");
      const channel = await createChannel({ user_ids: many.slice(0, 100), is_super: true });
      for (let start = 100; start < 2000; start += 100) {
        const response = await invite(channel.channel_url, {
          user_ids: many.slice(start, start + 100),
        });
        expect(response.status, JSON.stringify(response.body)).toBe(200);
      }
      const refused = await invite(channel.channel_url, { user_ids: many.slice(2000) });
      expect(expectPlatformError(refused, 400, 400111).message).toContain("at most 2000");
      const page = await call<{ members: Member[]; next: string }>(
        sandbox,
        "GET",
        `/v3/group_channels/${channel.channel_url}/members?limit=1`,
      );
      expect(page.body.next).not.toBe("");
      expect(
        (await call<GroupChannel>(sandbox, "GET", `/v3/group_channels/${channel.channel_url}`)).body
          .member_count,
      ).toBe(2000);
    },
  );

  it("serialises concurrent invitations so they never pass the cap together", async () => {
    const channel = await createChannel({ user_ids: users.slice(0, 90) });
    const responses = await Promise.all([
      invite(channel.channel_url, { user_ids: users.slice(90, 98) }),
      invite(channel.channel_url, { user_ids: users.slice(100, 108) }),
    ]);
    expect(responses.map((response) => response.status).sort()).toEqual([200, 400]);
    expect((await allMembers(channel.channel_url, "", 100)).length).toBe(98);
  });

  it.each([
    ["no user_ids", {}, 400105],
    ["an empty user_ids", { user_ids: [] }, 400111],
    ["101 user_ids", { user_ids: Array.from({ length: 101 }, (_, i) => `u${i}`) }, 400111],
    ["user_ids not an array", { user_ids: "a" }, 400100],
    [
      "an unknown invitation_status",
      { user_ids: ["a"], invitation_status: { a: "maybe" } },
      400111,
    ],
  ])("refuses %s", async (_, body, code) => {
    const channel = await createChannel({ user_ids: users.slice(0, 1) });
    expectPlatformError(await invite(channel.channel_url, body), 400, code);
  });

  it("refuses an unknown user (400201 naming it) and an unknown channel (400201), adding no one", async () => {
    const channel = await createChannel({ user_ids: users.slice(0, 1) });
    const refused = await invite(channel.channel_url, { user_ids: [users[1], "ghost_invitee"] });
    expect(expectPlatformError(refused, 400, 400201).message).toContain("ghost_invitee");
    expect((await allMembers(channel.channel_url)).length).toBe(1);
    expectPlatformError(await invite(uniqueId("nochannel"), { user_ids: [users[0]] }), 400, 400201);
    expectPlatformError(
      await call(sandbox, "GET", `/v3/group_channels/${uniqueId("nochannel")}/members`),
      400,
      400201,
    );
  });

  it("lists members by nickname with token paging; next stays an alias; a foreign token is 400111", async () => {
    const channel = await createChannel({
      user_ids: users.slice(0, 20),
      operator_ids: [users[19]],
    });
    const members = await allMembers(channel.channel_url);
    expect(members.map((member) => member.nickname)).toEqual(
      users
        .slice(0, 20)
        .map((id) => `nick ${id}`)
        .sort(),
    );
    expect(members[0]).toMatchObject({ is_active: true, state: "joined", is_online: false });

    const operatorsFirst = await allMembers(
      channel.channel_url,
      "&order=operator_then_member_alphabetical",
    );
    expect(operatorsFirst[0]).toMatchObject({ user_id: users[19], role: "operator" });

    const firstPage = await call<{ members: Member[]; next: string }>(
      sandbox,
      "GET",
      `/v3/group_channels/${channel.channel_url}/members?limit=5`,
    );
    const byNext = await call<{ members: Member[]; next: string }>(
      sandbox,
      "GET",
      `/v3/group_channels/${channel.channel_url}/members?limit=5&next=${firstPage.body.next}`,
    );
    expect(byNext.body.members.map((member) => member.user_id)).toEqual(
      members.slice(5, 10).map((member) => member.user_id),
    );
    for (const query of ["token=bm9wZQ", "limit=0", "limit=101", "order=random"]) {
      expectPlatformError(
        await call(sandbox, "GET", `/v3/group_channels/${channel.channel_url}/members?${query}`),
        400,
        400111,
      );
    }
  });

  it("filters members by operator, state, activity and nickname prefix", async () => {
    const [joined, invited, operator, inactive] = await createUsers(sandbox, 4, "mf");
    const channel = await createChannel({
      user_ids: [joined, invited, operator, inactive],
      operator_ids: [operator],
      invitation_status: { [invited!]: "invited_by_non_friend" },
    });
    // Deactivated without leaving, so the member stays to be filtered.
    await call(sandbox, "PUT", `/v3/users/${inactive}`, {
      is_active: false,
      leave_all_when_deactivated: false,
    });
    const ids = async (query: string) =>
      (await allMembers(channel.channel_url, query)).map((member) => member.user_id).sort();
    expect(await ids("")).toEqual([joined, invited, operator].sort());
    expect(await ids("&member_active_mode_filter=all")).toEqual(
      [joined, invited, operator, inactive].sort(),
    );
    expect(await ids("&member_active_mode_filter=deactivated")).toEqual([inactive]);
    expect(await ids("&operator_filter=operator")).toEqual([operator]);
    expect(await ids("&operator_filter=nonoperator")).toEqual([joined, invited].sort());
    expect(await ids("&member_state_filter=invited_only")).toEqual([invited]);
    expect(await ids("&member_state_filter=joined_only")).toEqual([joined, operator].sort());
    expect(await ids(`&nickname_startswith=${encodeURIComponent(`nick ${joined}`)}`)).toEqual([
      joined,
    ]);
  });
});
