import { beforeAll, describe, expect, it } from "vitest";
import type { GroupChannelResource, OpenChannelResource } from "@/lib/schemas/channels";
import type { UserResource } from "@/lib/schemas/users";
import { createUsers } from "../fixtures/chat";
import { call, expectPlatformError, sharedSandbox, uniqueId } from "./support/http";

/**
 * The contract's supporting operations, as a script written against the vendor's SDKs uses
 * them (issue 11's "Why" list): paging with `token`, list filters, `active_mode`,
 * `leave_all_when_deactivated`, the metadata family, `issue_access_token` on update.
 */
const sandbox = sharedSandbox();

type Page<K extends string, T> = { [key in K]: T[] } & { next: string };

/** `while (next) list({token: next})`, the vendor SDKs' loop; fails if it does not end. */
async function walk<K extends string, T>(
  pathname: string,
  key: K,
  query: string,
  limit = 2,
): Promise<{ items: T[]; pages: number }> {
  const items: T[] = [];
  let token = "";
  let pages = 0;
  do {
    const response = await call<Page<K, T>>(
      sandbox,
      "GET",
      `${pathname}?limit=${limit}&${query}${token ? `&token=${encodeURIComponent(token)}` : ""}`,
    );
    expect(response.status, JSON.stringify(response.body)).toBe(200);
    items.push(...response.body[key]);
    token = response.body.next;
    pages += 1;
    expect(pages, "paging never ends").toBeLessThan(100);
  } while (token);
  return { items, pages };
}

const ids = (users: UserResource[]) => users.map((user) => user.user_id);
const urls = (channels: Array<{ channel_url: string }>) => channels.map((c) => c.channel_url);
const put = (userId: string, body: unknown) =>
  call<UserResource>(sandbox, "PUT", `/v3/users/${encodeURIComponent(userId)}`, body);

describe("paging with token (Why 1)", () => {
  it("walks users, open channels and group channels to the end, each item once", async () => {
    const users = await createUsers(sandbox, 5, "page");
    const tag = uniqueId("tag");
    const open: string[] = [];
    const group: string[] = [];
    for (let i = 0; i < 5; i++) {
      const o = await call<OpenChannelResource>(sandbox, "POST", "/v3/open_channels", {
        custom_type: tag,
      });
      open.push(o.body.channel_url);
      const g = await call<GroupChannelResource>(sandbox, "POST", "/v3/group_channels", {
        user_ids: [users[i]],
        custom_type: tag,
      });
      group.push(g.body.channel_url);
    }
    const walkedUsers = await walk<"users", UserResource>(
      "/v3/users",
      "users",
      `user_ids=${users.join(",")}`,
    );
    // Created side by side, so their creation order is not the array's.
    expect(ids(walkedUsers.items).sort()).toEqual([...users].sort());
    expect(walkedUsers.pages).toBe(3);
    const walkedOpen = await walk<"channels", OpenChannelResource>(
      "/v3/open_channels",
      "channels",
      `custom_types=${tag}`,
    );
    expect(urls(walkedOpen.items)).toEqual(open);
    const walkedGroup = await walk<"channels", GroupChannelResource>(
      "/v3/group_channels",
      "channels",
      `custom_types=${tag}&show_empty=true`,
    );
    expect(urls(walkedGroup.items)).toEqual(group);
  });

  it("still accepts the older name next, and refuses a token of another list (400111)", async () => {
    const users = await createUsers(sandbox, 3, "alias");
    const first = await call<Page<"users", UserResource>>(
      sandbox,
      "GET",
      `/v3/users?limit=1&user_ids=${users.join(",")}`,
    );
    const second = await call<Page<"users", UserResource>>(
      sandbox,
      "GET",
      `/v3/users?limit=2&user_ids=${users.join(",")}&next=${first.body.next}`,
    );
    expect([...ids(first.body.users), ...ids(second.body.users)].sort()).toEqual([...users].sort());
    expectPlatformError(
      await call(sandbox, "GET", `/v3/open_channels?token=${first.body.next}`),
      400,
      400111,
    );
  });
});

describe("list filters (Why 2)", () => {
  it("filters users by nickname, nickname_startswith and metadata", async () => {
    const prefix = uniqueId("nick");
    const made: string[] = [];
    for (const [suffix, team] of [
      ["a", "red"],
      ["b", "blue"],
      ["c", "red"],
    ] as const) {
      const userId = uniqueId("f");
      made.push(userId);
      await call(sandbox, "POST", "/v3/users", {
        user_id: userId,
        nickname: `${prefix} ${suffix}`,
        profile_url: "",
        metadata: { team, [prefix]: "1" },
      });
    }
    const list = async (query: string) =>
      ids((await walk<"users", UserResource>("/v3/users", "users", query, 100)).items);
    expect(await list(`nickname=${encodeURIComponent(`${prefix} b`)}`)).toEqual([made[1]]);
    expect(await list(`nickname_startswith=${encodeURIComponent(prefix)}`)).toEqual(made);
    expect(await list(`metadatakey=${prefix}&metadatavalues_in=1`)).toEqual(made);
    expect(
      await list(
        `nickname_startswith=${encodeURIComponent(prefix)}&metadatakey=team&metadatavalues_in=red,green`,
      ),
    ).toEqual([made[0], made[2]]);
    expect(await list(`nickname=${uniqueId("nobody")}`)).toEqual([]);
  });

  it("filters open channels by channel_urls, custom_types, name_contains and url_contains", async () => {
    const tag = uniqueId("otag");
    const a = uniqueId("oa");
    const b = uniqueId("ob");
    await call(sandbox, "POST", "/v3/open_channels", {
      channel_url: a,
      name: "Alpha room",
      custom_type: tag,
    });
    await call(sandbox, "POST", "/v3/open_channels", {
      channel_url: b,
      name: "Beta room",
      custom_type: tag,
    });
    const list = async (query: string) =>
      urls(
        (await walk<"channels", OpenChannelResource>("/v3/open_channels", "channels", query, 100))
          .items,
      );
    expect(await list(`channel_urls=${a}`)).toEqual([a]);
    expect(await list(`channel_urls=${a},${b}`)).toEqual([a, b]);
    expect(await list(`custom_types=${tag}&name_contains=Beta`)).toEqual([b]);
    expect(await list(`custom_types=${tag}&url_contains=${a.slice(3)}`)).toEqual([a]);
    // "Does this channel exist?" asked by filter says no for one that does not.
    expect(await list(`channel_urls=${uniqueId("none")}`)).toEqual([]);
  });

  it("filters group channels by name and members, with query_type AND or OR", async () => {
    const [u1, u2, u3] = await createUsers(sandbox, 3, "gf");
    const tag = uniqueId("gtag");
    const make = async (userIds: string[], name: string) =>
      (
        await call<GroupChannelResource>(sandbox, "POST", "/v3/group_channels", {
          user_ids: userIds,
          name,
          custom_type: tag,
        })
      ).body.channel_url;
    const c12 = await make([u1!, u2!], "Team one");
    const c123 = await make([u1!, u2!, u3!], "Team two");
    const c3 = await make([u3!], "Other");
    const list = async (query: string) =>
      urls(
        (
          await walk<"channels", GroupChannelResource>(
            "/v3/group_channels",
            "channels",
            `custom_types=${tag}&show_empty=true&${query}`,
            100,
          )
        ).items,
      );
    expect(await list("")).toEqual([c12, c123, c3]);
    expect(await list(`members_exactly_in=${u2},${u1}`)).toEqual([c12]);
    expect(await list(`members_include_in=${u1},${u3}`)).toEqual([c123]);
    expect(await list(`members_include_in=${u1},${u3}&query_type=OR`)).toEqual([c12, c123, c3]);
    expect(await list("name=Other")).toEqual([c3]);
    expect(await list("name_contains=eam")).toEqual([c12, c123]);
    expect(await list("name_startswith=Team%20t")).toEqual([c123]);
    expect(await list(`channel_urls=${c3},${uniqueId("none")}`)).toEqual([c3]);
    expect(await list(`members_exactly_in=${uniqueId("nobody")}`)).toEqual([]);
  });

  it("leaves out empty group channels and members unless asked, as the real platform does", async () => {
    const [user] = await createUsers(sandbox, 1, "empty");
    const tag = uniqueId("etag");
    const created = await call<GroupChannelResource>(sandbox, "POST", "/v3/group_channels", {
      user_ids: [user],
      custom_type: tag,
    });
    const channelUrl = created.body.channel_url;
    const list = (query: string) =>
      call<Page<"channels", GroupChannelResource>>(
        sandbox,
        "GET",
        `/v3/group_channels?custom_types=${tag}${query}`,
      );
    expect((await list("")).body.channels).toEqual([]);
    expect((await list("&show_empty=true")).body.channels[0]).not.toHaveProperty("members");
    await call(sandbox, "POST", `/v3/migration/${channelUrl}`, {
      messages: [
        { message_type: "MESG", user_id: user, message: "hi", timestamp: 1_600_000_000_000 },
      ],
    });
    const listed = (await list("&show_member=true")).body.channels;
    expect(urls(listed)).toEqual([channelUrl]);
    expect(listed[0]?.members?.map((member) => member.user_id)).toEqual([user]);
    // As the platform's Python SDK sends them: True and False.
    const capitalised = (await list("&show_empty=True&show_member=TRUE")).body.channels;
    expect(capitalised[0]?.members?.map((member) => member.user_id)).toEqual([user]);
    expect((await list("&show_member=False")).body.channels[0]).not.toHaveProperty("members");
    expectPlatformError(await list("&show_member=yes"), 400, 400100);
  });
});

describe("active_mode (Why 3) and leave_all_when_deactivated (Why 4)", () => {
  let active: string;
  let inactive: string;
  let users: string[];

  beforeAll(async () => {
    users = await createUsers(sandbox, 3, "act");
    [active, inactive] = users as [string, string];
  });

  it("lists active users by default, the deactivated with deactivated, everyone with all", async () => {
    expect((await put(inactive, { is_active: false })).body.is_active).toBe(false);
    const list = async (mode: string) =>
      ids(
        (
          await walk<"users", UserResource>(
            "/v3/users",
            "users",
            `user_ids=${active},${inactive}${mode ? `&active_mode=${mode}` : ""}`,
          )
        ).items,
      );
    expect(await list("")).toEqual([active]);
    expect(await list("activated")).toEqual([active]);
    expect(await list("deactivated")).toEqual([inactive]);
    expect((await list("all")).sort()).toEqual([active, inactive].sort());
    expectPlatformError(await call(sandbox, "GET", "/v3/users?active_mode=asleep"), 400, 400111);
  });

  it("takes a deactivated user out of every group channel by default, and not with false", async () => {
    const [leaver, stayer, other] = await createUsers(sandbox, 3, "leave");
    const channelOf = async () =>
      (
        await call<GroupChannelResource>(sandbox, "POST", "/v3/group_channels", {
          user_ids: [leaver, stayer, other],
        })
      ).body.channel_url;
    const first = await channelOf();
    const second = await channelOf();
    expect((await put(leaver!, { is_active: false })).status).toBe(200);
    expect(
      (await put(stayer!, { is_active: false, leave_all_when_deactivated: false })).status,
    ).toBe(200);
    for (const channelUrl of [first, second]) {
      const channel = await call<GroupChannelResource>(
        sandbox,
        "GET",
        `/v3/group_channels/${channelUrl}`,
      );
      expect(channel.body.members?.map((member) => member.user_id)).toEqual([stayer, other]);
      expect(channel.body.member_count).toBe(2);
    }
    // Reactivation does not bring the channels back, as on the real platform.
    await put(leaver!, { is_active: true });
    const again = await call<GroupChannelResource>(sandbox, "GET", `/v3/group_channels/${first}`);
    expect(again.body.member_count).toBe(2);
  });
});

describe("user metadata family (Why 5)", () => {
  const path = (userId: string, key?: string) =>
    `/v3/users/${encodeURIComponent(userId)}/metadata${key === undefined ? "" : `/${encodeURIComponent(key)}`}`;
  const metadataOf = async (userId: string) =>
    (await call<Record<string, string>>(sandbox, "GET", path(userId))).body;

  it("creates items with POST (answering them) and refuses a key that exists (400202)", async () => {
    const [userId] = await createUsers(sandbox, 1, "meta");
    const created = await call(sandbox, "POST", path(userId!), {
      metadata: { team: "red", lang: "nb" },
    });
    expect(created.status).toBe(200);
    expect(created.body).toEqual({ team: "red", lang: "nb" });
    const refused = await call(sandbox, "POST", path(userId!), {
      metadata: { city: "Oslo", team: "x" },
    });
    expect(expectPlatformError(refused, 400, 400202).message).toContain("team");
    expect(await metadataOf(userId!)).toEqual({ team: "red", lang: "nb" });
  });

  it("reads, updates (with and without upsert) and deletes one item", async () => {
    const [userId] = await createUsers(sandbox, 1, "meta");
    await call(sandbox, "POST", path(userId!), { metadata: { team: "red" } });
    expect((await call(sandbox, "GET", path(userId!, "team"))).body).toEqual({ team: "red" });
    expectPlatformError(await call(sandbox, "GET", path(userId!, "city")), 400, 400201);

    const updated = await call(sandbox, "PUT", path(userId!, "team"), { value: "blue" });
    expect(updated.body).toEqual({ team: "blue" });
    expectPlatformError(
      await call(sandbox, "PUT", path(userId!, "city"), { value: "Oslo" }),
      400,
      400201,
    );
    const upserted = await call(sandbox, "PUT", path(userId!, "city"), {
      value: "Oslo",
      upsert: true,
    });
    expect(upserted.body).toEqual({ city: "Oslo" });
    expectPlatformError(await call(sandbox, "PUT", path(userId!, "city"), {}), 400, 400105);
    expectPlatformError(
      await call(sandbox, "PUT", path(userId!, "city"), { value: { name: "Oslo" } }),
      400,
      400100,
    );

    expect((await call(sandbox, "DELETE", path(userId!, "team"))).status).toBe(200);
    expectPlatformError(await call(sandbox, "DELETE", path(userId!, "team")), 400, 400201);
    expect(await metadataOf(userId!)).toEqual({ city: "Oslo" });
  });

  it("stores booleans and whole numbers as the platform's text of them, on every route", async () => {
    const [userId] = await createUsers(sandbox, 1, "meta");
    const created = await call(sandbox, "POST", path(userId!), {
      metadata: { vip: true, level: 5 },
    });
    expect(created.body).toEqual({ vip: "True", level: "5" });
    const updated = await call(sandbox, "PUT", path(userId!), {
      metadata: { vip: false, rank: 0 },
      upsert: true,
    });
    expect(updated.body).toEqual({ vip: "False", rank: "0" });
    const item = await call(sandbox, "PUT", path(userId!, "level"), { value: 6 });
    expect(item.body).toEqual({ level: "6" });
    expect((await call(sandbox, "PUT", path(userId!, "vip"), { value: true })).body).toEqual({
      vip: "True",
    });
    expect(await metadataOf(userId!)).toEqual({ vip: "True", level: "6", rank: "0" });
    for (const value of [null, 2.5, ["a"]]) {
      expectPlatformError(
        await call(sandbox, "POST", path(userId!), { metadata: { other: value } }),
        400,
        400100,
      );
    }
    expect(await metadataOf(userId!)).toEqual({ vip: "True", level: "6", rank: "0" });
  });

  it("deletes every item with DELETE /metadata", async () => {
    const [userId] = await createUsers(sandbox, 1, "meta");
    await call(sandbox, "POST", path(userId!), { metadata: { a: "1", b: "2" } });
    const deleted = await call(sandbox, "DELETE", path(userId!));
    expect(deleted.status).toBe(200);
    expect(deleted.body).toEqual({});
    expect(await metadataOf(userId!)).toEqual({});
  });

  it("answers 400201 for a user that does not exist, on every metadata route", async () => {
    const ghost = uniqueId("ghost");
    for (const [method, pathname, body] of [
      ["GET", path(ghost), undefined],
      ["POST", path(ghost), { metadata: { a: "1" } }],
      ["PUT", path(ghost), { metadata: { a: "1" }, upsert: true }],
      ["DELETE", path(ghost), undefined],
      ["GET", path(ghost, "a"), undefined],
      ["PUT", path(ghost, "a"), { value: "1", upsert: true }],
      ["DELETE", path(ghost, "a"), undefined],
    ] as const) {
      expectPlatformError(await call(sandbox, method, pathname, body), 400, 400201);
    }
  });
});

describe("issue_access_token on update (Why 6)", () => {
  it("issues a new access token and answers it", async () => {
    const userId = uniqueId("tok");
    const created = await call<UserResource>(sandbox, "POST", "/v3/users", {
      user_id: userId,
      nickname: "T",
      profile_url: "",
      issue_access_token: true,
    });
    const before = created.body.access_token;
    expect(before).toMatch(/^[0-9a-f]{40}$/);
    const updated = await put(userId, { issue_access_token: true });
    expect(updated.body.access_token).toMatch(/^[0-9a-f]{40}$/);
    expect(updated.body.access_token).not.toBe(before);
    expect(
      (await call<UserResource>(sandbox, "GET", `/v3/users/${userId}`)).body.access_token,
    ).toBe(updated.body.access_token);
    // Without it, the token stays.
    expect((await put(userId, { nickname: "U" })).body.access_token).toBe(
      updated.body.access_token,
    );
  });
});
