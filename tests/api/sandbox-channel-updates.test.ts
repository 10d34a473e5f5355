import { beforeAll, describe, expect, it } from "vitest";
import type { GroupChannelResource, OpenChannelResource } from "@/lib/schemas/channels";
import { callMultipart, createUsers, jpgBytes } from "../fixtures/chat";
import { call, expectPlatformError, sharedSandbox, uniqueId } from "./support/http";

const sandbox = sharedSandbox();

const updateGroup = (url: string, body: unknown) =>
  call<GroupChannelResource>(sandbox, "PUT", `/v3/group_channels/${url}`, body);
const updateOpen = (url: string, body: unknown) =>
  call<OpenChannelResource>(sandbox, "PUT", `/v3/open_channels/${url}`, body);

async function createGroup(body: Record<string, unknown>): Promise<GroupChannelResource> {
  const response = await call<GroupChannelResource>(sandbox, "POST", "/v3/group_channels", body);
  expect(response.status, JSON.stringify(response.body)).toBe(200);
  return response.body;
}

async function getGroup(url: string) {
  return (await call<GroupChannelResource>(sandbox, "GET", `/v3/group_channels/${url}`)).body;
}

describe("sandbox: updating a group channel", () => {
  let users: string[];

  beforeAll(async () => {
    users = await createUsers(sandbox, 4, "upd");
  });

  it("changes the properties given and answers the channel", async () => {
    const channel = await createGroup({ user_ids: users.slice(0, 2), name: "before" });
    const response = await updateGroup(channel.channel_url, {
      name: "after",
      cover_url: "https://img.example.com/c.png",
      custom_type: "team",
      data: '{"x":1}',
    });
    expect(response.status, JSON.stringify(response.body)).toBe(200);
    expect(response.body).toMatchObject({
      channel_url: channel.channel_url,
      name: "after",
      cover_url: "https://img.example.com/c.png",
      custom_type: "team",
      data: '{"x":1}',
      member_count: 2,
    });
    expect(await getGroup(channel.channel_url)).toEqual(response.body);
    // An empty body changes nothing.
    expect((await updateGroup(channel.channel_url, {})).body).toEqual(response.body);
  });

  it("registers operator_ids beside the operators there are; each must be a user", async () => {
    const channel = await createGroup({ user_ids: users.slice(0, 3), operator_ids: [users[0]] });
    const response = await updateGroup(channel.channel_url, { operator_ids: [users[1], users[0]] });
    expect(response.status, JSON.stringify(response.body)).toBe(200);
    expect(response.body.operators?.map((operator) => operator.user_id)).toEqual(users.slice(0, 2));
    expect(
      response.body.members?.filter((m) => m.role === "operator").map((m) => m.user_id),
    ).toEqual(users.slice(0, 2));
    const refused = expectPlatformError(
      await updateGroup(channel.channel_url, { operator_ids: [users[2], "ghost"], name: "x" }),
      400,
      400201,
    );
    expect(refused.message).toContain("ghost");
    expect(await getGroup(channel.channel_url)).toMatchObject({ name: channel.name });
  });

  it("keeps at most 100 operators (400111)", async () => {
    const many = await createUsers(sandbox, 101, "ops");
    const channel = await createGroup({ user_ids: [users[0]], operator_ids: many.slice(0, 100) });
    const refused = expectPlatformError(
      await updateGroup(channel.channel_url, { operator_ids: [many[100], many[0]] }),
      400,
      400111,
    );
    expect(refused.message).toContain("101 operators");
    expect((await getGroup(channel.channel_url)).operators).toHaveLength(100);
  });

  it("applies creation's rules to the channel as it would be (400111)", async () => {
    const distinct = await createGroup({ user_ids: users.slice(0, 2), is_distinct: true });
    expectPlatformError(await updateGroup(distinct.channel_url, { is_super: true }), 400, 400111);
    const plain = await createGroup({ user_ids: users.slice(0, 2) });
    expectPlatformError(
      await updateGroup(plain.channel_url, { access_code: "secret" }),
      400,
      400111,
    );
    const opened = await updateGroup(plain.channel_url, { is_public: true, access_code: "secret" });
    expect(opened.body).toMatchObject({ is_public: true, is_access_code_required: true });
    // A public channel with an access code cannot stop being public while it keeps the code.
    expectPlatformError(await updateGroup(plain.channel_url, { is_public: false }), 400, 400111);
    const closed = await updateGroup(plain.channel_url, { is_public: false, access_code: null });
    expect(closed.body).toMatchObject({ is_public: false, is_access_code_required: false });
    const superGroup = await updateGroup(plain.channel_url, { is_super: true });
    expect(superGroup.body.is_super).toBe(true);
  });

  it("keeps a supergroup of more than 100 members a supergroup (400111)", async () => {
    const members = await createUsers(sandbox, 101, "big");
    const channel = await createGroup({ user_ids: members.slice(0, 100), is_super: true });
    await call(sandbox, "POST", `/v3/group_channels/${channel.channel_url}/invite`, {
      user_ids: [members[100]],
    });
    const refused = expectPlatformError(
      await updateGroup(channel.channel_url, { is_super: false }),
      400,
      400111,
    );
    expect(refused.message).toContain("101 members");
    expect((await getGroup(channel.channel_url)).is_super).toBe(true);
  });

  it("makes a channel distinct, so that creating its member set again answers it", async () => {
    const customType = uniqueId("dt");
    const channel = await createGroup({ user_ids: users.slice(2, 4), custom_type: customType });
    expect((await updateGroup(channel.channel_url, { is_distinct: true })).body.is_distinct).toBe(
      true,
    );
    const again = await createGroup({
      user_ids: [users[3], users[2]],
      custom_type: customType,
      is_distinct: true,
    });
    expect(again.channel_url).toBe(channel.channel_url);
  });

  it.each([
    ["a name of 192 characters", { name: "n".repeat(192) }, 400110],
    ["is_public as text", { is_public: "true" }, 400100],
    ["operator_ids as text", { operator_ids: "a" }, 400100],
    ["a custom_type of 129 characters", { custom_type: "c".repeat(129) }, 400110],
  ])("refuses %s, changing nothing", async (_, body, code) => {
    const channel = await createGroup({ user_ids: users.slice(0, 1), name: "kept" });
    expectPlatformError(await updateGroup(channel.channel_url, body), 400, code);
    expect(await getGroup(channel.channel_url)).toEqual(channel);
  });

  it("refuses a channel that does not exist, or an open channel's URL (400201)", async () => {
    expectPlatformError(await updateGroup(uniqueId("none"), { name: "x" }), 400, 400201);
    const open = uniqueId("open");
    await call(sandbox, "POST", "/v3/open_channels", { channel_url: open });
    expectPlatformError(await updateGroup(open, { name: "x" }), 400, 400201);
  });

  it("takes a new cover as a multipart cover_file", async () => {
    const channel = await createGroup({ user_ids: users.slice(0, 1) });
    const response = await callMultipart(
      sandbox,
      `/v3/group_channels/${channel.channel_url}`,
      [
        ["name", "with cover"],
        ["is_public", "true"],
        ["cover_file", new Blob([jpgBytes()], { type: "image/jpeg" })],
      ],
      "cover.jpg",
      "PUT",
    );
    expect(response.status, JSON.stringify(response.body)).toBe(200);
    const updated = response.body as unknown as GroupChannelResource;
    expect(updated).toMatchObject({ name: "with cover", is_public: true });
    const image = await fetch(updated.cover_url);
    expect(image.headers.get("content-type")).toBe("image/jpeg");
  });
});

describe("sandbox: updating an open channel", () => {
  let users: string[];

  beforeAll(async () => {
    users = await createUsers(sandbox, 2, "oupd");
  });

  async function createOpen(): Promise<OpenChannelResource> {
    const url = uniqueId("open");
    const response = await call<OpenChannelResource>(sandbox, "POST", "/v3/open_channels", {
      channel_url: url,
      name: "before",
      operator_ids: [users[0]],
    });
    expect(response.status, JSON.stringify(response.body)).toBe(200);
    return response.body;
  }

  it("changes the properties given and answers the channel", async () => {
    const channel = await createOpen();
    const response = await updateOpen(channel.channel_url, {
      name: "after",
      custom_type: "lobby",
      data: "d",
      cover_url: "https://img.example.com/o.png",
      operator_ids: [users[1]],
    });
    expect(response.status, JSON.stringify(response.body)).toBe(200);
    expect(response.body).toMatchObject({
      name: "after",
      custom_type: "lobby",
      data: "d",
      cover_url: "https://img.example.com/o.png",
      operators: [{ user_id: users[0] }, { user_id: users[1] }],
      created_at: channel.created_at,
    });
    const read = await call(sandbox, "GET", `/v3/open_channels/${channel.channel_url}`);
    expect(read.body).toEqual(response.body);
  });

  it("refuses an unknown operator (400201) and bad values, changing nothing", async () => {
    const channel = await createOpen();
    expectPlatformError(
      await updateOpen(channel.channel_url, { name: "x", operator_ids: ["ghost"] }),
      400,
      400201,
    );
    expectPlatformError(await updateOpen(channel.channel_url, { name: 5 }), 400, 400100);
    const read = await call(sandbox, "GET", `/v3/open_channels/${channel.channel_url}`);
    expect(read.body).toEqual(channel);
    expectPlatformError(await updateOpen(uniqueId("none"), { name: "x" }), 400, 400201);
  });
});
