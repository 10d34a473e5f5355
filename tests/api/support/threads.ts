import { expect } from "vitest";
import type { PlatformClient } from "@/lib/platform";
import { randomBytes } from "node:crypto";
import { threadsFile, type ThreadsFile } from "@/tests/fixtures/imports";
import { THREADS_PAGE, threadsAsStored } from "@/tests/support/threads-on-platform";

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

/** What the sandbox holds of the file's threads, all as the file has them: replies and reactions counted. */
export async function expectThreadsOnPlatform(
  client: PlatformClient,
  file: ThreadsFile,
  channels: readonly string[],
) {
  const stored = await threadsAsStored(
    async (url, messageTs, include) =>
      (
        await client.messages.list("group_channels", url, {
          messageTs,
          include,
          prevLimit: 0,
          nextLimit: THREADS_PAGE,
          includeReplyType: "all",
          includeReactions: true,
        })
      ).messages,
    file,
    channels,
  );
  expect(stored.problems).toEqual([]);
  return { replies: stored.replies, reactions: stored.reactions };
}
