import type { PlatformClient } from "@/lib/platform";

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
