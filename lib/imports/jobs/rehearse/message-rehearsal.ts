import "server-only";
import { sql } from "drizzle-orm";
import type { Database } from "@/lib/db/client";
import { isPlatformError, type PlatformClient } from "@/lib/platform";
import { channelResources } from "@/lib/imports/types";
import { readMessages, type MessagePosition } from "../run/message-channels";
import type { Pacer } from "../run/pacer";
import { StoppedEarly } from "../plan/plan";
import { chunk, rowsOf } from "../shared/rows";
import { platformRetries } from "@/lib/platform/retries";
import { withRetries } from "@/lib/retry";
import { forEachConcurrent } from "../shared/concurrency";
import { importedKeys, type ImportJob } from "../store/jobs";
import type { RehearsalProgressWriter } from "./progress";

type Failure = { rowIndex: number; code: number | null; message: string };

/** A channel's messages read by one statement. */
const REHEARSAL_READ_ROWS = 1000;

/**
 * The rehearsal of a messages import: the scratch application is given the senders and the
 * channels (of the type they have on the target or in their channel import), then every
 * channel's history is sent as the run sends it, 100 messages at a time in timestamp order.
 */
export async function rehearseMessages(
  db: Database,
  target: PlatformClient,
  scratch: PlatformClient,
  job: ImportJob,
  options: {
    pacer: Pacer;
    maxListedFailures: number;
    shouldStop?: () => boolean;
    progress: RehearsalProgressWriter;
  },
) {
  const senders = rowsOf<{ id: string }>(
    await db.execute(sql`select distinct body ->> 'user_id' as id from import_rows
      where job_id = ${job.id} and state = 'pending' and body ? 'user_id'`),
  ).map((row) => row.id);
  let seededUsers = 0;
  await forEachConcurrent(chunk(senders, 100), 4, async (userIds) => {
    const known = new Map(
      (
        await withRetries(
          () => target.users.list({ userIds, limit: 100, activeMode: "all" }),
          platformRetries(),
        )
      ).users.map((user) => [user.user_id, user]),
    );
    for (const id of userIds) {
      const user = known.get(id);
      await withRetries(
        () =>
          scratch.users.create({
            user_id: id,
            nickname: user?.nickname ?? id,
            profile_url: user?.profile_url ?? "",
          }),
        platformRetries(),
      ).catch(() => {});
      seededUsers++;
    }
  });

  const channels = rowsOf<{ url: string }>(
    await db.execute(sql`select distinct resource_key as url from import_rows
      where job_id = ${job.id} and state = 'pending' and resource_key is not null`),
  ).map((row) => row.url);
  const importedKinds = new Map(
    (await importedKeys(db, channelResources, channels)).map((row) => [row.key, row.resource]),
  );

  // The messages the reads below send: each channel's pending ones with a timestamp.
  const [toSend] = rowsOf<{ n: number }>(
    await db.execute(sql`select count(*)::int as n from import_rows
      where job_id = ${job.id} and state = 'pending' and resource_key is not null
        and body ? 'timestamp'`),
  );
  options.progress.start(toSend?.n ?? 0);

  const tally = {
    created: 0,
    existed: 0,
    failed: 0,
    followUpsFailed: 0,
    failures: [] as Failure[],
    seededUsers,
  };
  await forEachConcurrent(channels, 8, async (channelUrl) => {
    if (options.shouldStop?.()) throw new StoppedEarly();
    const open =
      (importedKinds.get(channelUrl) ?? (await kindOnTarget(target, channelUrl))) ===
      "open_channels";
    await withRetries<unknown>(
      () =>
        open
          ? scratch.openChannels.create({ channel_url: channelUrl })
          : scratch.groupChannels.create({ channel_url: channelUrl, user_ids: [] }),
      platformRetries(),
    ).catch(() => {});
    // The run's reads and requests: 100 messages at a time, in the order the run sends them.
    let after: MessagePosition | null = null;
    for (;;) {
      const batches = await readMessages(db, job.id, channelUrl, after, REHEARSAL_READ_ROWS);
      if (batches.length === 0) break;
      after = batches.at(-1)!.last;
      for (const batch of batches) {
        try {
          await options.pacer.acquire();
          await withRetries(
            () => scratch.migration.migrateMessages(channelUrl, batch.body),
            platformRetries(),
          );
          tally.created += batch.rowIndexes.length;
          options.progress.count("created", batch.rowIndexes.length);
        } catch (error) {
          tally.failed += batch.rowIndexes.length;
          options.progress.count("failed", batch.rowIndexes.length);
          if (tally.failures.length < options.maxListedFailures) {
            tally.failures.push({
              rowIndex: batch.rowIndexes[0]!,
              code: isPlatformError(error) ? error.code : null,
              message: `The request of ${batch.rowIndexes.length} messages to ${channelUrl} was refused: ${error instanceof Error ? error.message : String(error)}`,
            });
          }
        }
      }
    }
  });
  tally.failures.sort((a, b) => a.rowIndex - b.rowIndex);
  return tally;
}

async function kindOnTarget(
  target: PlatformClient,
  channelUrl: string,
): Promise<"open_channels" | "group_channels"> {
  try {
    await withRetries(() => target.openChannels.get(channelUrl), platformRetries());
    return "open_channels";
  } catch (error) {
    if (isPlatformError(error, 400201)) return "group_channels";
    throw error;
  }
}
