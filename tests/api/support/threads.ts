import { expect } from "vitest";
import type { PlatformClient } from "@/lib/platform";
import { randomBytes } from "node:crypto";
import { threadsFile, type ThreadsFile } from "@/tests/fixtures/imports";

/** Users and group channels with every user a member, on the sandbox. */
export async function seedThreadTarget(client: PlatformClient, prefix: string, channels: number) {
  const senders = Array.from({ length: 4 }, (_, n) => `${prefix}_u${n}`);
  for (const id of senders)
    await client.users.create({ user_id: id, nickname: id, profile_url: "" });
  const urls = Array.from({ length: channels }, (_, n) => `${prefix}_c${n}`);
  for (const url of urls)
    await client.groupChannels.create({ channel_url: url, user_ids: senders });
  return { senders, urls };
}

/**
 * A fresh target of `channels` group channels (ids prefixed `name_<random>`) and a threads
 * file for it, `perChannel` as `threadsFile` takes it.
 */
export async function threadTargetAndFile(
  client: PlatformClient,
  name: string,
  channels: number,
  perChannel: Parameters<typeof threadsFile>[2],
) {
  const prefix = `${name}_${randomBytes(4).toString("hex")}`;
  const { senders, urls } = await seedThreadTarget(client, prefix, channels);
  return { prefix, senders, urls, file: threadsFile(urls, senders, perChannel, { prefix }) };
}

/** What the sandbox holds of the file's threads: each reply's root and each message's reactions. */
export async function expectThreadsOnPlatform(
  client: PlatformClient,
  file: ThreadsFile,
  channels: readonly string[],
) {
  let replies = 0;
  let reactions = 0;
  const sourceOf = new Map(file.rows.map((row) => [row[2]!, row[4]!]));
  for (const url of channels) {
    const bySource = new Map<
      string,
      { id: number; parent: number; reactions: Map<string, string[]> }
    >();
    for (let messageTs = 0, include = true; ; include = false) {
      const page = await client.messages.list("group_channels", url, {
        messageTs,
        include,
        prevLimit: 0,
        nextLimit: 200,
        includeReplyType: "all",
        includeReactions: true,
        withSortedMetaArray: true,
      });
      for (const message of page.messages) {
        const id = sourceOf.get(message.message)!;
        expect(bySource.has(id), `${id} stored twice`).toBe(false);
        bySource.set(id, {
          id: message.message_id,
          parent: message.parent_message_id ?? 0,
          reactions: new Map((message.reactions ?? []).map((r) => [r.key, [...r.user_ids].sort()])),
        });
      }
      if (page.messages.length < 200) break;
      messageTs = page.messages.at(-1)!.created_at;
    }
    for (const [id, entry] of bySource) {
      const root = file.roots.get(id);
      if (root === undefined) expect(entry.parent, id).toBe(0);
      else {
        expect(entry.parent, id).toBe(bySource.get(root)!.id);
        replies++;
      }
      const expected = file.reactions.get(id);
      const wanted = new Map([...(expected ?? [])].map(([key, users]) => [key, [...users].sort()]));
      expect(entry.reactions, id).toEqual(wanted);
      for (const users of wanted.values()) reactions += users.length;
    }
  }
  return { replies, reactions };
}
