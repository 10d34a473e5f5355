import "server-only";
import type { Database } from "@/lib/db/client";
import type { MissingReferences, ReferenceLookup } from "@/lib/imports/references";
import { channelResources } from "@/lib/imports/types";
import { isPlatformError, type PlatformClient } from "@/lib/platform";
import { platformRetries } from "@/lib/platform/retries";
import { withRetries } from "@/lib/retry";
import { forEachConcurrent } from "../shared/concurrency";
import { chunk } from "../shared/rows";
import { importedKeys } from "../store/jobs";

/**
 * The look-ups against what exists, shared by the plans and the wizard's preview: channels
 * and users in this console's imports (not cancelled), and on the platform.
 */

export type ImportSource = { jobId: string; fileName: string; status: string };

/** Look-ups per request the platform answers (`GET /v3/users?user_ids=`). */
export const LOOKUP_BATCH = 100;
const CHANNEL_LOOKUP_CONCURRENCY = 8;
const USER_LOOKUP_CONCURRENCY = 4;

/** Rows of channel imports (not cancelled) that name one of `refs` as channel URL or source id. */
export async function channelImportRows(db: Database, refs: string[]) {
  return importedKeys(db, channelResources, refs, { bySourceId: true });
}

/** Open or group: the migration takes either, so both are asked. */
export async function channelExists(
  client: PlatformClient,
  channelUrl: string,
  count: () => void = () => {},
  onFound: (name: string) => void = () => {},
): Promise<boolean> {
  return (await channelKindOnPlatform(client, channelUrl, count, onFound)) !== null;
}

/** Whether a channel on the platform is open or group (null: on neither); `onFound` hears its name. */
export async function channelKindOnPlatform(
  client: PlatformClient,
  channelUrl: string,
  count: () => void = () => {},
  onFound: (name: string) => void = () => {},
): Promise<"open_channels" | "group_channels" | null> {
  const lookups: Array<
    ["open_channels" | "group_channels", (url: string) => Promise<{ name?: string }>]
  > = [
    ["open_channels", client.openChannels.get],
    ["group_channels", client.groupChannels.get],
  ];
  for (const [kind, get] of lookups) {
    count();
    try {
      const channel = await withRetries(() => get(channelUrl), platformRetries());
      if (channel.name) onFound(channel.name);
      return kind;
    } catch (error) {
      if (!isPlatformError(error, 400201)) throw error;
    }
  }
  return null;
}

/**
 * The channels of `urls` on neither kind of the platform's channels, asked a few at a time;
 * `onRequest` hears each request sent, `onChecked` each channel answered, `onFound` the name
 * of each channel found.
 */
export async function channelsMissing(
  client: PlatformClient,
  urls: readonly string[],
  hooks: {
    onRequest?: () => void;
    onChecked?: () => Promise<void>;
    onFound?: (url: string, name: string) => void;
  } = {},
): Promise<Set<string>> {
  const missing = new Set<string>();
  await forEachConcurrent([...urls], CHANNEL_LOOKUP_CONCURRENCY, async (url) => {
    const found = (name: string) => hooks.onFound?.(url, name);
    if (!(await channelExists(client, url, hooks.onRequest, found))) missing.add(url);
    await hooks.onChecked?.();
  });
  return missing;
}

/** The users of `ids` some users import of this console holds (to create, created, or found existing). */
export async function importedUsers(
  db: Database,
  ids: string[],
): Promise<Map<string, ImportSource>> {
  return new Map((await importedKeys(db, "users", ids)).map((row) => [row.key, row]));
}

/**
 * The users of `ids` on the platform, asked a page of ids at a time; `onBatch` hears how
 * many ids each answered page covered. Every caller says whether deactivated users count:
 * `all` for references that a deactivated user still satisfies (a message's sender, a
 * channel's member), `activated` only where an active user is needed.
 */
export async function usersOnPlatform(
  client: PlatformClient,
  ids: string[],
  options: { activeMode: "all" | "activated"; onBatch?: (ids: number) => Promise<void> },
): Promise<Set<string>> {
  const onPlatform = new Set<string>();
  await forEachConcurrent(chunk(ids, LOOKUP_BATCH), USER_LOOKUP_CONCURRENCY, async (userIds) => {
    const page = await withRetries(
      () =>
        client.users.list({
          userIds,
          limit: LOOKUP_BATCH,
          activeMode: options.activeMode,
        }),
      platformRetries(),
    );
    for (const user of page.users) onPlatform.add(user.user_id);
    await options.onBatch?.(userIds.length);
  });
  return onPlatform;
}

/**
 * The wizard's question before any upload: which of these channels and users exist neither
 * in this console's imports nor on the platform. Deactivated users count, as in the plans: the
 * history of people who left is migrated like anyone's, and a channel keeps them as members.
 */
export async function missingReferences(
  db: Database,
  client: PlatformClient,
  lookup: ReferenceLookup,
): Promise<MissingReferences> {
  const inImports = new Set<string>();
  if (lookup.channels.length > 0) {
    for (const row of await channelImportRows(db, lookup.channels)) {
      inImports.add(row.key);
      if (row.sourceId) inImports.add(row.sourceId);
    }
  }
  const missing = await channelsMissing(
    client,
    lookup.channels.filter((ref) => !inImports.has(ref)),
  );
  const imported = await importedUsers(db, lookup.users);
  const toAsk = lookup.users.filter((id) => !imported.has(id));
  const onPlatform = await usersOnPlatform(client, toAsk, { activeMode: "all" });
  return {
    channels: lookup.channels.filter((ref) => missing.has(ref)),
    users: toAsk.filter((id) => !onPlatform.has(id)),
  };
}
