import { randomBytes } from "node:crypto";
import type { PlatformClient } from "@/lib/platform/client";
import { counted } from "@/lib/text/counted";

/**
 * Read-only operations run against the console's target (sandbox or remote), each answer
 * checked by the client against the shared schemas: what answered as the console expects,
 * what did not (naming the field), and what could not be tried (nothing to read).
 */

export type CompatibilityOutcome = "pass" | "fail" | "skipped";
export type CompatibilityResult = {
  operation: string;
  outcome: CompatibilityOutcome;
  detail: string;
};

export async function runCompatibilityCheck(
  client: PlatformClient,
): Promise<CompatibilityResult[]> {
  const results: CompatibilityResult[] = [];
  const unknownId = `compat_${randomBytes(6).toString("hex")}`;

  async function check(operation: string, run: () => Promise<string | null>): Promise<void> {
    try {
      const detail = await run();
      results.push(
        detail === null
          ? { operation, outcome: "skipped", detail: "Nothing to read on this platform yet." }
          : { operation, outcome: "pass", detail },
      );
    } catch (error) {
      results.push({
        operation,
        outcome: "fail",
        detail: error instanceof Error ? error.message : String(error),
      });
    }
  }
  await check("GET webhook settings", async () => {
    const { webhook } = await client.webhooks.getSettings({ displayAllCategories: true });
    return `${counted(webhook.all_webhook_categories?.length ?? 0, "category", "categories")} listed`;
  });

  const users = await client.users.list({ limit: 2, activeMode: "all" }).catch(() => null);
  await check("GET /v3/users (paging with token)", async () => {
    const first = await client.users.list({ limit: 1, activeMode: "all" });
    if (!first.next) return counted(first.users.length, "user");
    const second = await client.users.list({ limit: 1, activeMode: "all", token: first.next });
    if (second.users[0]?.user_id === first.users[0]?.user_id)
      throw new Error("The second page repeats the first: the platform did not read `token`.");
    return "the second page follows the first";
  });
  await check("GET /v3/users (filter by an unknown id)", async () => {
    const page = await client.users.list({ userIds: [unknownId], activeMode: "all" });
    if (page.users.length > 0)
      throw new Error("A filter on an unknown user_id listed users: filters are ignored.");
    return "no user listed, as expected";
  });
  const firstUser = users?.users[0];
  await check("GET /v3/users/{user_id}", async () =>
    firstUser ? `read ${(await client.users.get(firstUser.user_id)).user_id}` : null,
  );
  await check("GET /v3/users/{user_id}/metadata", async () =>
    firstUser
      ? counted(Object.keys(await client.users.metadata.get(firstUser.user_id)).length, "item")
      : null,
  );

  await check("GET /v3/open_channels", async () => {
    const page = await client.openChannels.list({ limit: 1 });
    const first = page.channels[0];
    if (first) await client.openChannels.get(first.channel_url);
    return counted(page.channels.length, "channel") + (first ? ", the first read back" : "");
  });
  await check("GET /v3/open_channels (filter by an unknown channel_url)", async () => {
    const page = await client.openChannels.list({ channelUrls: [unknownId] });
    if (page.channels.length > 0)
      throw new Error("A filter on an unknown channel_url listed channels.");
    return "no channel listed, as expected";
  });

  const groups = await client.groupChannels.list({ limit: 1, showEmpty: true }).catch(() => null);
  const group = groups?.channels[0];
  await check("GET /v3/group_channels", async () => {
    const page = await client.groupChannels.list({ limit: 1, showEmpty: true, showMember: true });
    return counted(page.channels.length, "channel");
  });
  await check("GET /v3/group_channels/{channel_url}", async () =>
    group ? `read ${(await client.groupChannels.get(group.channel_url)).channel_url}` : null,
  );
  await check("GET /v3/group_channels/{channel_url}/members", async () =>
    group
      ? counted(
          (await client.groupChannels.members(group.channel_url, { limit: 10 })).members.length,
          "member",
        )
      : null,
  );
  await check(
    "GET /v3/group_channels/{channel_url}/messages (with threads and reactions)",
    async () =>
      group
        ? counted(
            (
              await client.messages.list("group_channels", group.channel_url, {
                messageTs: 0,
                messageId: 0,
                nextLimit: 5,
                includeReplyType: "all",
                includeThreadInfo: true,
                includeParentMessageInfo: true,
                includeReactions: true,
              })
            ).messages.length,
            "message",
          )
        : null,
  );
  await check("GET /v3/group_channels/{channel_url}/messages/total_count", async () =>
    group
      ? counted(
          (await client.messages.totalCount("group_channels", group.channel_url)).total,
          "message",
        )
      : null,
  );
  return results;
}
