import { beforeAll, describe, expect, it } from "vitest";
import type { MessageResource as Message } from "@/lib/schemas/messages";
import { createUsers } from "../fixtures/chat";
import { call, expectPlatformError, sharedSandbox, uniqueId } from "./support/http";

const sandbox = sharedSandbox();

type ReactionAnswer = {
  reaction: string;
  user_id: string;
  success: boolean;
  msg_id: number;
  updated_at: number;
};

const reactionsPath = (channelUrl: string, messageId: number, kind = "group") =>
  `/v3/${kind}_channels/${channelUrl}/messages/${messageId}/reactions`;

const react = (channelUrl: string, messageId: number, body: unknown, kind = "group") =>
  call<ReactionAnswer>(sandbox, "POST", reactionsPath(channelUrl, messageId, kind), body);

const unreact = (channelUrl: string, messageId: number, query: string, kind = "group") =>
  call<ReactionAnswer>(sandbox, "DELETE", `${reactionsPath(channelUrl, messageId, kind)}?${query}`);

async function reactionsOf(channelUrl: string, messageId: number) {
  const response = await call<{ reactions: Record<string, string[]> }>(
    sandbox,
    "GET",
    reactionsPath(channelUrl, messageId),
  );
  expect(response.status, JSON.stringify(response.body)).toBe(200);
  return response.body.reactions;
}

describe("sandbox: reactions", () => {
  let alice: string;
  let bob: string;
  let outsider: string;

  beforeAll(async () => {
    [alice, bob, outsider] = (await createUsers(sandbox, 3, "react")) as [string, string, string];
  });

  async function channelWithMessage(extra: Record<string, unknown> = {}) {
    const created = await call<{ channel_url: string }>(sandbox, "POST", "/v3/group_channels", {
      user_ids: [alice, bob],
      ...extra,
    });
    const url = created.body.channel_url;
    const message = await call<Message>(sandbox, "POST", `/v3/group_channels/${url}/messages`, {
      message_type: "MESG",
      user_id: alice,
      message: "react to me",
    });
    expect(message.status, JSON.stringify(message.body)).toBe(200);
    return { url, messageId: message.body.message_id };
  }

  it("adds reactions, lists them by key in the order added, and shows them on listed messages", async () => {
    const { url, messageId } = await channelWithMessage();
    const before = Date.now();
    const added = await react(url, messageId, { user_id: bob, reaction: "thumbsup" });
    expect(added.status, JSON.stringify(added.body)).toBe(200);
    expect(added.body).toEqual({
      reaction: "thumbsup",
      user_id: bob,
      success: true,
      msg_id: messageId,
      updated_at: expect.any(Number),
    });
    expect(added.body.updated_at).toBeGreaterThanOrEqual(before);
    await react(url, messageId, { user_id: alice, reaction: "heart" });
    await react(url, messageId, { user_id: alice, reaction: "thumbsup" });
    expect(await reactionsOf(url, messageId)).toEqual({ thumbsup: [bob, alice], heart: [alice] });

    const listed = await call<{ messages: Message[] }>(
      sandbox,
      "GET",
      `/v3/group_channels/${url}/messages?message_ts=0&include_reactions=True`,
    );
    expect(listed.body.messages[0]?.reactions).toEqual([
      { key: "thumbsup", user_ids: [bob, alice], updated_at: expect.any(Number) },
      { key: "heart", user_ids: [alice], updated_at: expect.any(Number) },
    ]);
    const plain = await call<{ messages: Message[] }>(
      sandbox,
      "GET",
      `/v3/group_channels/${url}/messages?message_ts=0`,
    );
    expect(plain.body.messages[0]).not.toHaveProperty("reactions");
    const one = await call<Message>(
      sandbox,
      "GET",
      `/v3/group_channels/${url}/messages/${messageId}?include_reactions=true`,
    );
    expect(one.body.reactions?.map((reaction) => reaction.key)).toEqual(["thumbsup", "heart"]);
  });

  it("changes nothing when the same reaction is added again", async () => {
    const { url, messageId } = await channelWithMessage();
    const first = await react(url, messageId, { user_id: bob, reaction: "smile" });
    const again = await react(url, messageId, { user_id: bob, reaction: "smile" });
    expect(again.status).toBe(200);
    expect(again.body).toEqual(first.body);
    expect(await reactionsOf(url, messageId)).toEqual({ smile: [bob] });
  });

  it("removes a reaction named in the query; removing one that is not there changes nothing", async () => {
    const { url, messageId } = await channelWithMessage();
    await react(url, messageId, { user_id: bob, reaction: "smile" });
    await react(url, messageId, { user_id: alice, reaction: "smile" });
    const removed = await unreact(url, messageId, `user_id=${bob}&reaction=smile`);
    expect(removed.status, JSON.stringify(removed.body)).toBe(200);
    expect(removed.body).toMatchObject({ reaction: "smile", user_id: bob, success: true });
    expect(await reactionsOf(url, messageId)).toEqual({ smile: [alice] });
    expect((await unreact(url, messageId, `user_id=${bob}&reaction=smile`)).status).toBe(200);
    expect(await reactionsOf(url, messageId)).toEqual({ smile: [alice] });
    expectPlatformError(await unreact(url, messageId, `user_id=${bob}`), 400, 400105);
    expectPlatformError(await unreact(url, messageId, `user_id=ghost&reaction=smile`), 400, 400201);
  });

  it("refuses reactions in an open channel (400111): the platform has none there", async () => {
    const url = uniqueId("open");
    await call(sandbox, "POST", "/v3/open_channels", { channel_url: url });
    const message = await call<Message>(sandbox, "POST", `/v3/open_channels/${url}/messages`, {
      message_type: "MESG",
      user_id: alice,
      message: "hi",
    });
    const id = message.body.message_id;
    const refused = expectPlatformError(
      await react(url, id, { user_id: alice, reaction: "x" }, "open"),
      400,
      400111,
    );
    expect(refused.message).toContain("open channel");
    expectPlatformError(await call(sandbox, "GET", reactionsPath(url, id, "open")), 400, 400111);
    expectPlatformError(await unreact(url, id, `user_id=${alice}&reaction=x`, "open"), 400, 400111);
    // Listed open channel messages carry none.
    const listed = await call<{ messages: Message[] }>(
      sandbox,
      "GET",
      `/v3/open_channels/${url}/messages?message_ts=0&include_reactions=true`,
    );
    expect(listed.body.messages[0]?.reactions).toEqual([]);
  });

  it("lets only an active member react, and only an operator in a frozen channel", async () => {
    const [leaver] = (await createUsers(sandbox, 1, "leaver")) as [string];
    const { url, messageId } = await channelWithMessage({
      user_ids: [alice, bob, leaver],
      operator_ids: [alice],
    });
    const body = (userId: string) => ({ user_id: userId, reaction: "wave" });
    expectPlatformError(await react(url, messageId, body("ghost")), 400, 400201);
    expectPlatformError(await react(url, messageId, body(outsider)), 400, 400108);
    await call(sandbox, "PUT", `/v3/users/${leaver}`, {
      is_active: false,
      leave_all_when_deactivated: false,
    });
    expectPlatformError(await react(url, messageId, body(leaver)), 400, 400300);
    await call(sandbox, "PUT", `/v3/group_channels/${url}/freeze`, { freeze: true });
    expectPlatformError(await react(url, messageId, body(bob)), 400, 900050);
    expect((await react(url, messageId, body(alice))).status).toBe(200);
    expect(await reactionsOf(url, messageId)).toEqual({ wave: [alice] });
  });

  it.each([
    ["no reaction", { user_id: "x" }, 400105],
    ["no user_id", { reaction: "x" }, 400105],
    ["an empty reaction", { user_id: "x", reaction: "" }, 400111],
    ["a reaction of 129 characters", { user_id: "x", reaction: "r".repeat(129) }, 400110],
    ["a reaction that is not text", { user_id: "x", reaction: 5 }, 400100],
  ])("refuses %s", async (_, body, code) => {
    const { url, messageId } = await channelWithMessage();
    expectPlatformError(await react(url, messageId, body), 400, code);
    expect(await reactionsOf(url, messageId)).toEqual({});
  });

  it("takes a key of 128 characters", async () => {
    const { url, messageId } = await channelWithMessage();
    const key = "k".repeat(128);
    expect((await react(url, messageId, { user_id: bob, reaction: key })).status).toBe(200);
    expect(await reactionsOf(url, messageId)).toEqual({ [key]: [bob] });
  });

  it("refuses a message that is not the channel's, or an admin message", async () => {
    const { url, messageId } = await channelWithMessage();
    const other = await channelWithMessage();
    expectPlatformError(
      await react(other.url, messageId, { user_id: bob, reaction: "x" }),
      400,
      400201,
    );
    expectPlatformError(
      await call(sandbox, "GET", reactionsPath(other.url, messageId)),
      400,
      400201,
    );
    const admin = await call<Message>(sandbox, "POST", `/v3/group_channels/${url}/messages`, {
      message_type: "ADMM",
      message: "notice",
    });
    expectPlatformError(
      await react(url, admin.body.message_id, { user_id: bob, reaction: "x" }),
      400,
      400111,
    );
    expectPlatformError(
      await react(uniqueId("none"), messageId, { user_id: bob, reaction: "x" }),
      400,
      400201,
    );
  });

  it("goes with its message when the message is deleted", async () => {
    const { url, messageId } = await channelWithMessage();
    await react(url, messageId, { user_id: bob, reaction: "x" });
    await call(sandbox, "DELETE", `/v3/group_channels/${url}/messages/${messageId}`);
    expectPlatformError(await call(sandbox, "GET", reactionsPath(url, messageId)), 400, 400201);
  });
});
