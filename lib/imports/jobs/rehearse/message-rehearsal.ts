import "server-only";
import { sql } from "drizzle-orm";
import type { Database } from "@/lib/db/client";
import { isPlatformError, type PlatformClient } from "@/lib/platform";
import { channelResources } from "@/lib/imports/types";
import type { MigrationBody } from "@/lib/platform/types";
import { MIGRATION_MESSAGES_MAX } from "@/lib/schemas/messages";
import { readMessages, type MessagePosition } from "../run/message-channels";
import type { Pacer } from "../run/pacer";
import { StoppedEarly } from "../plan/plan";
import { chunk, rowsOf } from "../shared/rows";
import { platformRetries } from "@/lib/platform/retries";
import { withRetries } from "@/lib/retry";
import { forEachConcurrent } from "../shared/concurrency";
import { importedKeys, type ImportJob } from "../store/jobs";
import type { RehearsalProgressWriter } from "./progress";
import {
  createScratchGroupChannel,
  messagesAlreadySent,
  rehearseChannelThreads,
  threadParticipants,
  type ThreadTally,
} from "./thread-rehearsal";

type Failure = { rowIndex: number; code: number | null; message: string };

/** A channel's messages read by one statement. */
const REHEARSAL_READ_ROWS = 1000;

/**
 * The rehearsal of a messages import: the scratch application is given the senders and the
 * channels (of the type they have on the target or in their channel import), then every
 * channel's history is sent as the run sends it, 100 messages at a time in timestamp order,
 * and then its replies and reactions (`./thread-rehearsal.ts`). A group channel's members in
 * the scratch application are its reply senders and reacting users, whom the plan made sure
 * the target has as members; the roots that earlier imports created are migrated first.
 */
export async function rehearseMessages(
  db: Database,
  target: PlatformClient,
  scratch: PlatformClient,
  job: ImportJob,
  options: {
    pacers: { read: Pacer; write: Pacer; migration: Pacer };
    maxListedFailures: number;
    shouldStop?: () => boolean;
    progress: RehearsalProgressWriter;
  },
) {
  const alreadySent = await messagesAlreadySent(db, job.id);
  const seededUsers = await seedSenders(db, target, scratch, job.id, alreadySent);

  // Channels with messages to send, and those with only thread work or edits on messages an
  // earlier import sent.
  const channels = rowsOf<{ url: string }>(
    await db.execute(sql`select distinct resource_key as url from import_rows
      where job_id = ${job.id} and resource_key is not null
        and (state = 'pending' or thread_state = 'pending' or edit_state = 'pending')`),
  ).map((row) => row.url);
  const importedKinds = new Map(
    (await importedKeys(db, channelResources, channels)).map((row) => [row.key, row.resource]),
  );

  // The messages the rehearsal sends: each channel's pending ones, migrated (with a timestamp)
  // or sent as replies by the replies stage.
  const [toSend] = rowsOf<{ n: number }>(
    await db.execute(sql`select count(*)::int as n from import_rows
      where job_id = ${job.id} and state = 'pending' and resource_key is not null
        and (body ? 'timestamp' or parent_source_id is not null)`),
  );
  options.progress.start(toSend?.n ?? 0);

  const tally = {
    created: 0,
    existed: 0,
    failed: 0,
    followUpsFailed: 0,
    failures: [] as Failure[],
    seededUsers,
    threads: emptyTally(),
  };
  const fail = (rowIndex: number, code: number | null, message: string) => {
    if (tally.failures.length < options.maxListedFailures)
      tally.failures.push({ rowIndex, code, message });
  };
  await forEachConcurrent(channels, 8, async (channelUrl) => {
    if (options.shouldStop?.()) throw new StoppedEarly();
    const open =
      (importedKinds.get(channelUrl) ?? (await kindOnTarget(target, channelUrl))) ===
      "open_channels";
    // The members the replies and reactions need, as the plan made sure the target has them.
    if (open)
      await withRetries(
        () => scratch.openChannels.create({ channel_url: channelUrl }),
        platformRetries(),
      ).catch(() => {});
    else
      await createScratchGroupChannel(
        scratch,
        channelUrl,
        await threadParticipants(db, job.id, channelUrl),
      );
    const elsewhere = alreadySent.filter((sent) => sent.channel === channelUrl);
    for (const batch of chunk(elsewhere, MIGRATION_MESSAGES_MAX))
      await withRetries(
        () =>
          scratch.migration.migrateMessages(channelUrl, {
            messages: batch.map((sent) => sent.body),
          } as MigrationBody),
        platformRetries(),
      ).catch(() => {});
    // The run's reads and requests: 100 messages at a time, in the order the run sends them.
    let after: MessagePosition | null = null;
    for (;;) {
      const batches = await readMessages(db, job.id, channelUrl, after, REHEARSAL_READ_ROWS);
      if (batches.length === 0) break;
      after = batches.at(-1)!.last;
      for (const batch of batches) {
        if (options.shouldStop?.()) throw new StoppedEarly();
        try {
          await options.pacers.migration.acquire();
          await withRetries(
            () => scratch.migration.migrateMessages(channelUrl, batch.body),
            platformRetries(),
          );
          tally.created += batch.rowIndexes.length;
          options.progress.count("created", batch.rowIndexes.length);
        } catch (error) {
          tally.failed += batch.rowIndexes.length;
          options.progress.count("failed", batch.rowIndexes.length);
          fail(
            batch.rowIndexes[0]!,
            isPlatformError(error) ? error.code : null,
            `The request of ${batch.rowIndexes.length} messages to ${channelUrl} was refused: ${error instanceof Error ? error.message : String(error)}`,
          );
        }
      }
    }
    // Then the replies stage, as the run works it once the channel is migrated.
    const threads = emptyTally();
    await rehearseChannelThreads(
      db,
      scratch,
      job.id,
      channelUrl,
      open ? "open_channels" : "group_channels",
      threads,
      { pacers: options.pacers, onFailure: fail },
    );
    for (const key of Object.keys(threads) as Array<keyof ThreadTally>)
      tally.threads[key] += threads[key];
    // Replies are messages of the file: counted with them too.
    tally.created += threads.replies;
    tally.failed += threads.repliesFailed;
    options.progress.count("created", threads.replies);
    options.progress.count("failed", threads.repliesFailed);
  });
  tally.failures.sort((a, b) => a.rowIndex - b.rowIndex);
  return tally;
}

/**
 * Gives the scratch application the senders (of messages and replies) and reacting users, and
 * the senders of the messages already on the target that the replies and reactions need, with
 * their nicknames and pictures on the target. Returns how many it gave.
 */
async function seedSenders(
  db: Database,
  target: PlatformClient,
  scratch: PlatformClient,
  jobId: string,
  alreadySent: Awaited<ReturnType<typeof messagesAlreadySent>>,
): Promise<number> {
  const senders = [
    ...new Set([
      ...rowsOf<{ id: string }>(
        await db.execute(sql`select body ->> 'user_id' as id from import_rows
          where job_id = ${jobId} and state = 'pending' and body ? 'user_id'
          union
          select u.id from import_rows as r, jsonb_array_elements(r.reactions) as e,
            jsonb_array_elements_text(e -> 'user_ids') as u(id)
          where r.job_id = ${jobId} and r.state in ('pending', 'existed')
            and r.thread_state = 'pending'`),
      ).map((row) => row.id),
      ...alreadySent.flatMap(({ body }) =>
        typeof body.user_id === "string" ? [body.user_id] : [],
      ),
    ]),
  ];
  let seeded = 0;
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
      seeded++;
    }
  });
  return seeded;
}

function emptyTally(): ThreadTally {
  return {
    replies: 0,
    repliesFailed: 0,
    reactions: 0,
    reactionsFailed: 0,
    edits: 0,
    editsFailed: 0,
  };
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
