import { and, eq, inArray } from "drizzle-orm";
import type { Database } from "@/lib/db/client";
import { preparedQuery } from "@/lib/db/raw";
import { sandboxGroupChannels, sandboxOpenChannels, sandboxUsers } from "@/lib/db/schema";
import { ErrorCode, SandboxError } from "./errors";

/**
 * Look-ups every part of the sandbox shares (channels, messages, users), and the refusals that
 * name what was not found.
 */

export type ChannelType = "open" | "group";
export type UserRow = typeof sandboxUsers.$inferSelect;
export type Transaction = Parameters<Parameters<Database["transaction"]>[0]>[0];

type ChannelTable = typeof sandboxOpenChannels | typeof sandboxGroupChannels;

export function channelKey(table: ChannelTable, appId: string, channelUrl: string) {
  return and(eq(table.appId, appId), eq(table.channelUrl, channelUrl));
}

export function openChannelKey(appId: string, channelUrl: string) {
  return channelKey(sandboxOpenChannels, appId, channelUrl);
}

export function groupChannelKey(appId: string, channelUrl: string) {
  return channelKey(sandboxGroupChannels, appId, channelUrl);
}

/**
 * Which kind of channel a URL names, for operations that take either (message migration), and
 * for every request on a channel's path. One prepared statement for both tables: it runs on
 * each such request, where two queries through Drizzle cost as much as the rest of a simple
 * read. Not inside a transaction (it runs on the database's own session): see channelUrlInUse.
 */
export async function findChannelType(
  db: Database,
  appId: string,
  channelUrl: string,
): Promise<ChannelType | undefined> {
  const [row] = await preparedQuery<{ type: ChannelType }>(
    db,
    "sandbox_channel_type",
    channelTypeSql,
    [appId, channelUrl],
  );
  return row?.type;
}

const channelTypeSql = `select 'open' as type from sandbox_open_channels
  where app_id = $1 and channel_url = $2
union all
select 'group' from sandbox_group_channels
  where app_id = $1 and channel_url = $2
limit 1`;

/** Whether a URL names a channel of either kind, read inside `tx` (a creation, under its lock). */
export async function channelUrlInUse(
  tx: Transaction,
  appId: string,
  channelUrl: string,
): Promise<boolean> {
  const rows = await tx
    .select({ channelUrl: sandboxOpenChannels.channelUrl })
    .from(sandboxOpenChannels)
    .where(openChannelKey(appId, channelUrl))
    .unionAll(
      tx
        .select({ channelUrl: sandboxGroupChannels.channelUrl })
        .from(sandboxGroupChannels)
        .where(groupChannelKey(appId, channelUrl)),
    )
    .limit(1);
  return rows.length > 0;
}

export async function findUsers(
  db: Database,
  appId: string,
  userIds: readonly string[],
): Promise<Map<string, UserRow>> {
  const ids = [...new Set(userIds)];
  if (ids.length === 0) return new Map();
  const rows = await db
    .select()
    .from(sandboxUsers)
    .where(and(eq(sandboxUsers.appId, appId), inArray(sandboxUsers.userId, ids)));
  return new Map(rows.map((row) => [row.userId, row]));
}

export function channelNotFound(channelUrl: string): SandboxError {
  return new SandboxError(ErrorCode.notFound, `No channel with channel_url "${channelUrl}".`);
}

export function userNotFound(userId: string): SandboxError {
  return new SandboxError(ErrorCode.notFound, `No user with user_id "${userId}".`);
}
