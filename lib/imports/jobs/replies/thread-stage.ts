import "server-only";
import { IMPORT_DEDUP_KEY } from "@/lib/schemas/messages";
import { channelResources } from "@/lib/imports/types";
import { isPlatformError } from "@/lib/platform";
import type { SendMessageBody } from "@/lib/platform/types";
import { MESSAGE_LIST_LIMIT_MAX } from "@/lib/schemas/messages";
import { channelKindOnPlatform } from "../plan/lookups";
import { watchChannelWork } from "../run/channel-watch";
import { claimChannels, releaseChannels } from "../run/message-channels";
import type { ChannelStageOptions } from "../run/message-runner";
import type { Pacer } from "../run/pacer";
import { gaveUpMessage, rowRetry } from "../run/row-retry";
import { importedKeys } from "../store/jobs";
import { applyRowUpdates, type RowUpdate } from "../store/row-updates";
import { outcomeBatches, type OutcomeBatches } from "../run/outcomes";
import { updateToVersion } from "./edits";
import {
  editsToMake,
  failUnmigrated,
  finishFoundRoots,
  reactedMessages,
  repliesToSend,
  rootsToFind,
  threadChannels,
  type EditToMake,
  type ReactedMessage,
  type ReplyToSend,
  type RootToFind,
} from "./thread-rows";

export type ThreadStageOptions = ChannelStageOptions & {
  /** Lists go at the platform's read pace, sends and reactions at its write pace. */
  pacers: { read: Pacer; write: Pacer };
};

/** Replies or reacted messages read by one statement. */
const READ_ROWS = 200;

type ChannelKind = "open_channels" | "group_channels";

/** A channel's work stopped for a transient failure: it is taken up again from this time. */
class RetryLater extends Error {
  constructor(readonly retryAt: string) {
    super(`retry at ${retryAt}`);
  }
}

/**
 * The replies stage of a messages job (docs/imports-jobs.md, "Replies and reactions"). Once a
 * channel's messages are all migrated, a lane takes its lease (import_channel_leases, as the
 * migration does) and: finds the platform id of each root and reacted message by listing the
 * channel with `with_sorted_meta_array` and matching the `import_dedup_id` every imported
 * message carries; sends the replies with the send API (`parent_message_id`, their original
 * time as `created_at`, their dedup ids); adds the reactions, listing a message's reactions
 * first. Outcomes are written in batches (../run/outcomes.ts, as the creation runner's are): a
 * statement per request queued every lane behind PGlite's one connection. A worker killed at any
 * point, a batch unwritten, leaves rows that the next one resumes: a reply sent again answers
 * the stored message (its dedup id), a reaction already there is not added again. Returns
 * whether it did any work.
 */
export async function workThreadStage(options: ThreadStageOptions): Promise<boolean> {
  const { db, job, workerId, leaseMs } = options;
  const lease = { jobId: job.id, workerId, leaseMs };
  let active = true;
  let worked = false;
  const held = new Set<string>();
  let candidates: string[] | null = null;
  const kinds = new Map<string, ChannelKind>();
  const keepGoing = () => active && options.running();

  const stopWatching = watchChannelWork(db, lease, held, {
    onNotRunning: () => (active = false),
    log: options.log,
  });

  /** Claims are made one after another, so no two lanes take the same channel. */
  let claims: Promise<unknown> = Promise.resolve();
  function claimNext(): Promise<string | undefined> {
    const next = claims.then(async () => {
      for (;;) {
        candidates ??= await threadChannels(db, job.id, { claimable: true });
        const channelUrl = candidates.shift();
        if (channelUrl === undefined) return undefined;
        if (held.has(channelUrl)) continue;
        const [claimed] = await claimChannels(db, lease, [channelUrl]);
        if (claimed) {
          held.add(channelUrl);
          return channelUrl;
        }
      }
    });
    claims = next.catch(() => {});
    return next;
  }

  async function lane() {
    while (keepGoing()) {
      const channelUrl = await claimNext();
      if (channelUrl === undefined) return;
      worked = true;
      let retryAt: string | null = null;
      try {
        const kind = kinds.get(channelUrl) ?? (await channelKind(options, channelUrl));
        kinds.set(channelUrl, kind);
        await workChannel(options, channelUrl, kind, keepGoing);
      } catch (error) {
        if (error instanceof RetryLater) retryAt = error.retryAt;
        else {
          active = false;
          throw error;
        }
      } finally {
        await releaseChannels(db, lease, [{ channelUrl, retryAt }]).finally(() =>
          held.delete(channelUrl),
        );
      }
    }
  }

  const lanes = await Promise.allSettled(Array.from({ length: options.concurrency }, lane));
  stopWatching();
  const failed = lanes.find((result) => result.status === "rejected");
  if (failed) throw failed.reason;
  return worked;
}

/** Whether the channel is open or group: from its import here, or asked of the platform. */
async function channelKind(options: ThreadStageOptions, channelUrl: string): Promise<ChannelKind> {
  const [imported] = await importedKeys(options.db, channelResources, [channelUrl]);
  if (imported) return imported.resource as ChannelKind;
  await options.pacers.read.acquire();
  return (await channelKindOnPlatform(options.client, channelUrl)) ?? "group_channels";
}

async function workChannel(
  options: ThreadStageOptions,
  channelUrl: string,
  kind: ChannelKind,
  keepGoing: () => boolean,
): Promise<void> {
  const { db, job } = options;
  await failUnmigrated(db, job.id, channelUrl);
  const roots = await rootsToFind(db, job.id, channelUrl);
  if (roots.length > 0) await findRoots(options, channelUrl, kind, roots);
  // Flushed before the channel's rows are read again (a page must not hold rows already done)
  // and when the channel's work ends, however it ends.
  const outcomes = outcomeBatches(db, job.id);
  const work = { ...options, outcomes };
  try {
    // Replies, in their time order, a page at a time.
    for (;;) {
      if (!keepGoing()) return;
      await outcomes.flush();
      const replies = await repliesToSend(db, job.id, channelUrl, READ_ROWS);
      if (replies.length === 0) break;
      for (const reply of replies) {
        if (!keepGoing()) return;
        await sendReply(work, channelUrl, kind, reply);
      }
    }
    // A newer export's edits, each read first so that only what differs is updated.
    for (;;) {
      if (!keepGoing()) return;
      await outcomes.flush();
      const edits = await editsToMake(db, job.id, channelUrl, {
        limit: READ_ROWS,
        knownIds: true,
      });
      if (edits.length === 0) break;
      for (const edit of edits) {
        if (!keepGoing()) return;
        await updateEdited(work, channelUrl, kind, { ...edit, messageId: edit.messageId! });
      }
    }
    if (kind === "group_channels") {
      for (;;) {
        if (!keepGoing()) return;
        await outcomes.flush();
        const messages = await reactedMessages(db, job.id, channelUrl, READ_ROWS);
        if (messages.length === 0) break;
        for (const message of messages) {
          if (!keepGoing()) return;
          await addReactions(work, channelUrl, message);
        }
      }
    }
    await outcomes.flush();
    await finishFoundRoots(db, job.id, channelUrl, { reactionsLeftOut: kind === "open_channels" });
  } finally {
    await outcomes.flush();
  }
}

/** A channel's work: the stage's options, and where its rows' outcomes are written. */
type ChannelWork = ThreadStageOptions & { outcomes: OutcomeBatches };

/**
 * Finds the platform ids of migrated messages: the migration answers none, so the channel is
 * listed from the earliest of them, 200 at a time, and each listed message's
 * `import_dedup_id` matched. Whatever is not found by the last of their times is failed.
 */
async function findRoots(
  options: ThreadStageOptions,
  channelUrl: string,
  kind: ChannelKind,
  roots: RootToFind[],
): Promise<void> {
  const { client, pacers } = options;
  const wanted = new Map(roots.map((root) => [root.dedupId, root]));
  const latest = Math.max(...roots.map((root) => root.timestamp));
  const found = new Map<RootToFind, number>();
  let from: { messageTs: number } | { messageId: number } = {
    messageTs: Math.min(...roots.map((root) => root.timestamp)),
  };
  let refusal: string | null = null;
  for (;;) {
    await pacers.read.acquire();
    const page = await transient(options, () =>
      client.messages.list(kind, channelUrl, {
        ...from,
        include: "messageTs" in from,
        prevLimit: 0,
        nextLimit: MESSAGE_LIST_LIMIT_MAX,
        withSortedMetaArray: true,
      }),
    ).catch((error: unknown) => {
      if (error instanceof RetryLater) throw error;
      refusal = error instanceof Error ? error.message : String(error);
      return null;
    });
    if (!page) break;
    for (const message of page.messages) {
      const dedupId = message.sorted_metaarray?.find((item) => item.key === IMPORT_DEDUP_KEY)
        ?.value[0];
      const root = dedupId === undefined ? undefined : wanted.get(dedupId);
      if (root && !found.has(root)) found.set(root, message.message_id);
    }
    const last = page.messages.at(-1);
    if (
      found.size === wanted.size ||
      !last ||
      page.messages.length < MESSAGE_LIST_LIMIT_MAX ||
      last.created_at > latest
    )
      break;
    from = { messageId: last.message_id };
  }
  // Written per job: a root may be an earlier import's row.
  const byJob = new Map<string, RowUpdate[]>();
  for (const root of roots) {
    const messageId = found.get(root);
    const updates = byJob.get(root.jobId) ?? [];
    // An edited message not found is a failed row: its newer version is not on the platform.
    const work = root.edit
      ? "its update to this version was not made"
      : "its replies and reactions were not sent";
    updates.push(
      messageId === undefined
        ? root.jobId === options.job.id
          ? {
              rowIndex: root.rowIndex,
              threadState: "failed",
              ...(root.edit && { state: "failed", editState: "failed", finished: true }),
              resultMessage:
                refusal === null
                  ? `Not found on the platform after migration: no message of "${channelUrl}" carries its ${IMPORT_DEDUP_KEY} "${root.dedupId}", so ${work}.`
                  : `${work[0]!.toUpperCase()}${work.slice(1)}: listing "${channelUrl}" to find it was refused: ${refusal}`,
            }
          : { rowIndex: root.rowIndex }
        : { rowIndex: root.rowIndex, platformMessageId: messageId },
    );
    byJob.set(root.jobId, updates);
  }
  for (const [jobId, updates] of byJob) await applyRowUpdates(options.db, jobId, updates);
}

async function sendReply(
  options: ChannelWork,
  channelUrl: string,
  kind: ChannelKind,
  reply: ReplyToSend,
): Promise<void> {
  const { client, pacers, outcomes } = options;
  if (reply.rootMessageId === null) {
    outcomes.record({
      rowIndex: reply.rowIndex,
      state: "failed",
      threadState: "failed",
      resultMessage: `Not sent: its thread root "${reply.parentSourceId}" is not on the platform (not migrated, or not found after migration).`,
      finished: true,
    });
    return;
  }
  try {
    await pacers.write.acquire();
    const sent = await client.messages.send(kind, channelUrl, {
      ...reply.body,
      parent_message_id: reply.rootMessageId,
    } as SendMessageBody);
    outcomes.record({
      rowIndex: reply.rowIndex,
      state: "created",
      platformMessageId: sent.message_id,
      threadState: reply.hasReactions && kind === "group_channels" ? "pending" : "done",
      resultCode: null,
      resultMessage: null,
      nextAttemptAt: null,
      attemptsDelta: 1,
      finished: true,
    });
  } catch (error) {
    await failedTry(options, reply, error, `the reply to "${reply.parentSourceId}"`, {
      state: "failed",
    });
  }
}

/**
 * Updates a message an earlier import sent to the newer export's version: the message is read
 * first (read pace) and only the fields that differ are sent (write pace), so a rerun, or a
 * worker taking over after one whose outcome was never written, updates nothing that matches.
 * A refusal fails the row, with the platform's reason.
 */
async function updateEdited(
  options: ChannelWork,
  channelUrl: string,
  kind: ChannelKind,
  edit: EditToMake & { messageId: number },
): Promise<void> {
  const { outcomes } = options;
  let updated: string[];
  try {
    updated = await updateToVersion(options, channelUrl, kind, edit.messageId, edit.wanted);
  } catch (error) {
    await failedTry(
      options,
      edit,
      error,
      `the update of message ${edit.messageId} to this version`,
      { state: "failed", editState: "failed" },
    );
    return;
  }
  outcomes.record({
    rowIndex: edit.rowIndex,
    editState: "done",
    resultCode: null,
    resultMessage:
      updated.length > 0
        ? `Sent by an earlier import, and updated on the platform to this version (${updated.join(", ")} of message ${edit.messageId}).`
        : `Sent by an earlier import; the platform's message ${edit.messageId} already had this version.`,
  });
}

/** Adds the message's reactions that are not there yet (listed first, so a rerun adds none). */
async function addReactions(
  options: ChannelWork,
  channelUrl: string,
  message: ReactedMessage,
): Promise<void> {
  const { client, pacers, outcomes } = options;
  const refused: string[] = [];
  try {
    await pacers.read.acquire();
    const present = (await client.reactions.list(channelUrl, message.messageId)).reactions;
    for (const { key, user_ids: users } of message.reactions) {
      const there = new Set(present[key] ?? []);
      for (const userId of users) {
        if (there.has(userId)) continue;
        await pacers.write.acquire();
        try {
          await client.reactions.add(channelUrl, message.messageId, {
            user_id: userId,
            reaction: key,
          });
        } catch (error) {
          if (!isPlatformError(error) || rowRetry(options.limits, triesOf(message), error).retry)
            throw error;
          refused.push(`${key} by "${userId}": ${error.message}`);
        }
      }
    }
  } catch (error) {
    await failedTry(options, message, error, `the reactions of message ${message.messageId}`, {});
    return;
  }
  outcomes.record(
    refused.length === 0
      ? { rowIndex: message.rowIndex, threadState: "done", resultMessage: null, resultCode: null }
      : {
          rowIndex: message.rowIndex,
          threadState: "failed",
          resultMessage: `${refused.length} reaction${refused.length === 1 ? "" : "s"} refused: ${refused.slice(0, 3).join("; ")}${refused.length > 3 ? "; …" : ""}`,
        },
  );
}

function triesOf(row: { attempts: number; rateLimitedTries: number }) {
  return { attempt: row.attempts + 1, rateLimitedTries: row.rateLimitedTries };
}

/**
 * A request of the stage failed: a transient failure is counted on the row and the channel
 * is put back until it is due (RetryLater); a final one fails the row's thread work (and,
 * given `state`, the row).
 */
async function failedTry(
  options: ChannelWork,
  row: { rowIndex: number; attempts: number; rateLimitedTries: number },
  error: unknown,
  subject: string,
  final: { state?: "failed"; editState?: "failed" },
): Promise<never | void> {
  const reason = error instanceof Error ? error.message : String(error);
  const code = isPlatformError(error) ? error.code : null;
  const next = rowRetry(options.limits, triesOf(row), error);
  if (next.retry) {
    const retryAt = new Date(Date.now() + next.delayMs).toISOString();
    options.outcomes.record({
      rowIndex: row.rowIndex,
      resultCode: code,
      resultMessage: `Will try again: ${reason}`,
      ...next.counts,
      attemptsDelta: 1 + (next.counts.attemptsDelta ?? 0),
    });
    throw new RetryLater(retryAt);
  }
  options.log(`row ${row.rowIndex + options.job.firstRow}: ${subject} failed: ${reason}`);
  options.outcomes.record({
    rowIndex: row.rowIndex,
    ...final,
    threadState: "failed",
    resultCode: code,
    resultMessage:
      next.reason === "permanent"
        ? `Refused: ${subject}: ${reason}`
        : gaveUpMessage(next, reason, subject),
    ...next.counts,
    attemptsDelta: 1 + (next.counts.attemptsDelta ?? 0),
    finished: final.state !== undefined,
  });
}

/** A list whose transient failure puts the channel back (its rows are untouched). */
async function transient<T>(options: ThreadStageOptions, request: () => Promise<T>): Promise<T> {
  try {
    return await request();
  } catch (error) {
    const next = rowRetry(options.limits, { attempt: 1, rateLimitedTries: 0 }, error);
    if (next.retry) throw new RetryLater(new Date(Date.now() + next.delayMs).toISOString());
    throw error;
  }
}
