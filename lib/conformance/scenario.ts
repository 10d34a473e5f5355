import { randomBytes } from "node:crypto";
import type { PlatformClient } from "@/lib/platform/client";
import { isPlatformError } from "@/lib/platform/errors";

/**
 * The read-and-write scenario of a migration, run against any platform address: users,
 * metadata, channels, members, messages migrated and sent, threads, reactions, listing with
 * filters and paging, channel updates, deactivation.
 * Everything it creates carries one scratch namespace and is deleted at the end, so it can
 * be pointed at a real application. Each step checks what a migration script relies on.
 */

export type StepResult = { step: string; ok: boolean; detail: string; ms: number };

class Mismatch extends Error {}

function expectThat(condition: boolean, detail: string): void {
  if (!condition) throw new Mismatch(detail);
}

function same(actual: unknown, expected: unknown, what: string): void {
  const a = JSON.stringify(actual);
  const e = JSON.stringify(expected);
  expectThat(a === e, `${what}: expected ${e}, got ${a}`);
}

export async function runConformance(
  client: PlatformClient,
  options: { namespace?: string; onStep?: (result: StepResult) => void } = {},
): Promise<StepResult[]> {
  const ns = options.namespace ?? `conf_${randomBytes(4).toString("hex")}`;
  const results: StepResult[] = [];
  const users = [1, 2, 3].map((i) => `${ns}_user${i}`);
  const [u1, u2, u3] = users as [string, string, string];
  const openUrl = `${ns}_open`;
  const groupUrl = `${ns}_group`;
  const t0 = 1_600_000_000_000;

  let unreachable = false;
  async function step(name: string, run: () => Promise<string | void>): Promise<void> {
    const started = performance.now();
    let result: StepResult;
    if (unreachable) {
      result = {
        step: name,
        ok: false,
        detail: "not run: the platform could not be reached",
        ms: 0,
      };
      results.push(result);
      options.onStep?.(result);
      return;
    }
    try {
      const detail = await run();
      result = { step: name, ok: true, detail: detail ?? "", ms: performance.now() - started };
    } catch (error) {
      const detail =
        error instanceof Mismatch || isPlatformError(error)
          ? error.message
          : `unexpected: ${error instanceof Error ? error.message : String(error)}`;
      result = { step: name, ok: false, detail, ms: performance.now() - started };
      unreachable = isPlatformError(error) && error.kind === "network";
    }
    results.push(result);
    options.onStep?.(result);
  }

  await step("create users", async () => {
    for (const [index, userId] of users.entries()) {
      const user = await client.users.create({
        user_id: userId,
        nickname: `${ns} ${index + 1}`,
        profile_url: "",
        issue_access_token: index === 0,
        metadata: index === 0 ? { team: ns } : {},
      });
      same(user.user_id, userId, "user_id");
      same(user.is_active, true, "is_active");
    }
    return `${users.length} users`;
  });

  await step("read a user", async () => {
    const user = await client.users.get(u1);
    same([user.nickname, user.metadata], [`${ns} 1`, { team: ns }], "nickname and metadata");
  });

  await step("issue a new access token on update", async () => {
    const before = (await client.users.get(u1)).access_token;
    const after = (await client.users.update(u1, { issue_access_token: true })).access_token;
    expectThat(Boolean(after) && after !== before, "access_token did not change");
  });

  await step("user metadata: create, update with upsert, read, delete", async () => {
    same(await client.users.metadata.create(u2, { role: "a" }), { role: "a" }, "created items");
    same(
      await client.users.metadata.update(u2, { role: "b", lang: "nb" }, true),
      { role: "b", lang: "nb" },
      "updated items",
    );
    same(await client.users.metadata.getItem(u2, "lang"), { lang: "nb" }, "one item");
    await client.users.metadata.deleteItem(u2, "lang");
    same(await client.users.metadata.get(u2), { role: "b" }, "all items");
    const refused = await client.users.metadata.create(u2, { role: "c" }).then(
      () => null,
      (error: unknown) => error,
    );
    expectThat(
      isPlatformError(refused, 400202),
      "creating an existing key was not refused with 400202",
    );
  });

  await step("list users by ids, paging with token", async () => {
    const seen: string[] = [];
    let token = "";
    let pages = 0;
    do {
      const page = await client.users.list({ userIds: users, limit: 1, token });
      seen.push(...page.users.map((user) => user.user_id));
      token = page.next;
      pages += 1;
      expectThat(pages <= users.length + 1, "paging did not end");
    } while (token);
    same([...seen].sort(), [...users].sort(), "users seen");
    return `${pages} pages`;
  });

  await step("list users by nickname and metadata", async () => {
    const byPrefix = await client.users.list({ nicknameStartswith: ns, limit: 100 });
    same(
      byPrefix.users.map((user) => user.user_id).sort(),
      [...users].sort(),
      "nickname_startswith",
    );
    const byMetadata = await client.users.list({
      metadataKey: "team",
      metadataValuesIn: [ns],
      limit: 100,
    });
    same(
      byMetadata.users.map((user) => user.user_id),
      [u1],
      "metadatakey",
    );
  });

  await step("create an open channel and find it by filter", async () => {
    await client.openChannels.create({ channel_url: openUrl, name: `${ns} open`, custom_type: ns });
    const found = await client.openChannels.list({ channelUrls: [openUrl], customTypes: [ns] });
    same(
      found.channels.map((channel) => channel.channel_url),
      [openUrl],
      "channel_urls",
    );
    const none = await client.openChannels.list({ channelUrls: [`${ns}_missing`] });
    same(none.channels.length, 0, "an unknown channel_url");
  });

  await step("create a group channel and invite a member", async () => {
    const created = await client.groupChannels.create({
      channel_url: groupUrl,
      user_ids: [u1, u2],
      custom_type: ns,
      name: `${ns} group`,
    });
    same(created.member_count, 2, "member_count");
    const invited = await client.groupChannels.invite(groupUrl, { user_ids: [u3] });
    same(invited.member_count, 3, "member_count after invite");
  });

  await step("list members, paging with token", async () => {
    const seen: string[] = [];
    let token = "";
    do {
      const page = await client.groupChannels.members(groupUrl, { limit: 2, token });
      seen.push(...page.members.map((member) => member.user_id));
      token = page.next;
      expectThat(seen.length <= users.length, "paging did not end");
    } while (token);
    same([...seen].sort(), [...users].sort(), "members");
  });

  await step("migrate MESG, FILE and ADMM messages, twice", async () => {
    const body = {
      messages: [
        {
          message_type: "MESG" as const,
          user_id: u1,
          message: "hello",
          timestamp: t0 + 1,
          dedup_id: `${ns}_1`,
        },
        {
          message_type: "FILE" as const,
          user_id: u2,
          url: "https://example.com/a.png",
          file_name: "a.png",
          file_type: "image/png",
          file_size: 10,
          timestamp: t0 + 2,
          dedup_id: `${ns}_2`,
        },
        {
          message_type: "ADMM" as const,
          message: "welcome",
          timestamp: t0 + 3,
          dedup_id: `${ns}_3`,
        },
      ],
    };
    await client.migration.migrateMessages(groupUrl, body);
    await client.migration.migrateMessages(groupUrl, body);
  });

  await step("list messages in time order, each once", async () => {
    const { messages } = await client.messages.list("group_channels", groupUrl, {
      messageTs: 0,
      nextLimit: 10,
    });
    same(
      messages.map((message) => [message.type, message.created_at, message.user?.user_id ?? null]),
      [
        ["MESG", t0 + 1, u1],
        ["FILE", t0 + 2, u2],
        ["ADMM", t0 + 3, null],
      ],
      "messages",
    );
    same(messages[1]?.file?.url, "https://example.com/a.png", "file url");
    const admins = await client.messages.list("group_channels", groupUrl, {
      messageTs: 0,
      messageType: "ADMM",
    });
    same(admins.messages.length, 1, "message_type filter");
  });

  let root = 0;
  let reply = 0;
  await step(
    "send a message, a reply at its own time, and the message again by dedup_id",
    async () => {
      const sent = await client.messages.send("group_channels", groupUrl, {
        message_type: "MESG",
        user_id: u1,
        message: "root",
        created_at: t0 + 10,
        dedup_id: `${ns}_root`,
      });
      same([sent.created_at, sent.parent_message_id ?? 0], [t0 + 10, 0], "created_at, parent");
      root = sent.message_id;
      const answered = await client.messages.send("group_channels", groupUrl, {
        message_type: "MESG",
        user_id: u2,
        message: "reply",
        created_at: t0 + 11,
        parent_message_id: root,
      });
      same(answered.parent_message_id, root, "the reply's parent_message_id");
      reply = answered.message_id;
      const again = await client.messages.send("group_channels", groupUrl, {
        message_type: "MESG",
        user_id: u1,
        message: "root",
        dedup_id: `${ns}_root`,
      });
      same(again.message_id, root, "the message_id answered for a dedup_id sent again");
    },
  );

  await step("add a reaction, twice, and list it", async () => {
    await client.reactions.add(groupUrl, root, { user_id: u2, reaction: "heart" });
    await client.reactions.add(groupUrl, root, { user_id: u2, reaction: "heart" });
    same(await client.reactions.list(groupUrl, root), { reactions: { heart: [u2] } }, "reactions");
  });

  await step("list threads: replies, thread_info, parent and reactions", async () => {
    const plain = await client.messages.list("group_channels", groupUrl, {
      messageTs: t0 + 10,
      messageId: 0,
      prevLimit: 0,
    });
    same(
      plain.messages.map((message) => message.message_id),
      [root],
      "replies left out by default",
    );
    const { messages } = await client.messages.list("group_channels", groupUrl, {
      messageTs: t0 + 10,
      messageId: 0,
      prevLimit: 0,
      includeReplyType: "all",
      includeThreadInfo: true,
      includeParentMessageInfo: true,
      includeReactions: true,
    });
    same(
      messages.map((message) => [message.message_id, message.parent_message_id ?? 0]),
      [
        [root, 0],
        [reply, root],
      ],
      "root and reply",
    );
    same(messages[0]?.thread_info?.reply_count, 1, "thread_info.reply_count");
    same(
      messages[0]?.reactions?.map((reaction) => [reaction.key, reaction.user_ids]),
      [["heart", [u2]]],
      "reactions",
    );
    same(messages[1]?.parent_message_info?.message, "root", "parent_message_info.message");
  });

  await step("get, update, count and delete one message", async () => {
    same((await client.messages.get("group_channels", groupUrl, reply)).message, "reply", "get");
    const edited = await client.messages.update("group_channels", groupUrl, reply, {
      message_type: "MESG",
      message: "edited",
    });
    same(edited.message, "edited", "updated message");
    same(await client.messages.totalCount("group_channels", groupUrl), { total: 5 }, "total");
    await client.messages.delete("group_channels", groupUrl, reply);
    same(await client.messages.totalCount("group_channels", groupUrl), { total: 4 }, "total");
    const gone = await client.messages.get("group_channels", groupUrl, reply).then(
      () => null,
      (error: unknown) => error,
    );
    expectThat(isPlatformError(gone, 400201), "a deleted message was still answered");
  });

  await step("update channels; the group channel answers its last message", async () => {
    const group = await client.groupChannels.update(groupUrl, { name: `${ns} renamed` });
    same([group.name, group.last_message?.message_id], [`${ns} renamed`, root], "name, last");
    same((await client.openChannels.update(openUrl, { data: ns })).data, ns, "open channel data");
  });

  await step("list group channels by members and custom type", async () => {
    const exactly = await client.groupChannels.list({
      membersExactlyIn: users,
      customTypes: [ns],
      showMember: true,
    });
    same(
      exactly.channels.map((channel) => channel.channel_url),
      [groupUrl],
      "members_exactly_in",
    );
    const including = await client.groupChannels.list({
      membersIncludeIn: [u1, `${ns}_nobody`],
      queryType: "AND",
    });
    same(including.channels.length, 0, "members_include_in with AND and an unknown member");
  });

  await step("deactivate a user: it leaves its channels and the default list", async () => {
    const user = await client.users.update(u3, { is_active: false });
    same(user.is_active, false, "is_active");
    const channel = await client.groupChannels.get(groupUrl);
    same(channel.members?.map((member) => member.user_id).sort(), [u1, u2].sort(), "members");
    const active = await client.users.list({ userIds: users, limit: 10 });
    same(
      active.users.map((u) => u.user_id).sort(),
      [u1, u2].sort(),
      "active_mode=activated (default)",
    );
    const deactivated = await client.users.list({
      userIds: users,
      limit: 10,
      activeMode: "deactivated",
    });
    same(
      deactivated.users.map((u) => u.user_id),
      [u3],
      "active_mode=deactivated",
    );
  });

  await step("freeze a channel", async () => {
    same((await client.groupChannels.freeze(groupUrl, true)).freeze, true, "freeze");
    same((await client.openChannels.freeze(openUrl, true)).freeze, true, "freeze");
  });

  await step("clean up the scratch namespace", async () => {
    const failures: string[] = [];
    const attempt = async (what: string, run: () => Promise<unknown>) => {
      await run().catch((error: unknown) => {
        // Already gone is fine; anything else is reported.
        if (!isPlatformError(error, 400201))
          failures.push(`${what}: ${error instanceof Error ? error.message : error}`);
      });
    };
    await attempt(groupUrl, () => client.groupChannels.delete(groupUrl));
    await attempt(openUrl, () => client.openChannels.delete(openUrl));
    for (const userId of users) await attempt(userId, () => client.users.delete(userId));
    expectThat(failures.length === 0, failures.join("; "));
    return `namespace ${ns}`;
  });

  return results;
}

/** The results as a plain-text table, one line per step. */
export function formatTable(results: StepResult[]): string {
  const width = Math.max(4, ...results.map((result) => result.step.length));
  const lines = [
    `${"Step".padEnd(width)}  Result  ms     Detail`,
    `${"-".repeat(width)}  ------  -----  ------`,
    ...results.map(
      (result) =>
        `${result.step.padEnd(width)}  ${(result.ok ? "pass" : "FAIL").padEnd(6)}  ${String(Math.round(result.ms)).padEnd(5)}  ${result.detail}`,
    ),
  ];
  const failed = results.filter((result) => !result.ok).length;
  lines.push("", `${results.length - failed} passed, ${failed} failed`);
  return lines.join("\n");
}
