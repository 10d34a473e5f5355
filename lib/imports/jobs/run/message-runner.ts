import "server-only";
import type { Database } from "@/lib/db/client";
import { isPlatformError, type PlatformClient } from "@/lib/platform";
import { MIGRATION_MESSAGES_MAX } from "@/lib/schemas/messages";
import type { ImportJob } from "../store/jobs";
import type { RowUpdate } from "../store/row-updates";
import {
  channelsWithMessages,
  claimChannels,
  readMessages,
  type MessageBatch,
} from "./message-channels";
import { watchChannelWork } from "./channel-watch";
import { outcomeRecorder, type OutcomeRecorder } from "./message-outcomes";
import type { Pacer } from "./pacer";
import { gaveUpMessage, rowRetry, type RowRetryLimits } from "./row-retry";

/** What a stage of a messages job that works it a channel at a time is given. */
export type ChannelStageOptions = {
  db: Database;
  client: PlatformClient;
  job: ImportJob;
  workerId: string;
  leaseMs: number;
  /** Channels worked at once. */
  concurrency: number;
  limits: RowRetryLimits;
  /** False once the worker is stopping. */
  running: () => boolean;
  log: (line: string) => void;
};

export type MessageWorkOptions = ChannelStageOptions & {
  /** The pacer of the platform's `migration` rate-limit class. */
  pacer: Pacer;
};

/** A channel's messages read by one statement: the next few requests' worth. */
const READ_BATCHES = 10;
const READ_ROWS = READ_BATCHES * MIGRATION_MESSAGES_MAX;
/** New channels claimed by one statement. */
const CLAIM_CHANNELS = 4;
/** Lanes with no channel look again after this, doubling up to IDLE_MAX_MS. */
const IDLE_MS = 50;
const IDLE_MAX_MS = 1000;

/** How one request ended: created, or rows to write (a retry or a final failure). */
type SendOutcome =
  { created: true } | { created: false; updates: RowUpdate[]; retryAt: string | null };

/** What a lane needs to send its channel's requests. */
type ChannelSending = {
  options: MessageWorkOptions;
  recorder: OutcomeRecorder;
  keepGoing: () => boolean;
};

/**
 * Works a messages job until nothing is claimable now or it stops running. Each lane holds
 * one channel (a lease in import_channel_leases) and sends its earliest messages, so a
 * channel's history goes in timestamp order and never two of its requests at once, while many
 * channels go in parallel. A lane reads its channel's messages several requests at a time,
 * and the next ones while the last is in flight. What the platform took moves the channel's
 * `sent_through` place (`../store/row-state.ts`), written in groups beside the sends
 * (`./message-outcomes.ts`); a message's row is written only when its request is put back or
 * fails. A request whose answer was lost (or whose outcome was not written before a crash) is
 * sent again: the dedup ids make the platform store its messages once.
 */
export async function workMessageJob(options: MessageWorkOptions): Promise<boolean> {
  const { db, job, workerId, leaseMs } = options;
  let active = true;
  let worked = false;
  /** Channels claimed here, not yet taken by a lane: each its first requests in order. */
  const queue: MessageBatch[][] = [];
  /** Channels held here (queued, in flight or being released): never claimed twice. */
  const busy = new Set<string>();
  /** Channels found claimable and not yet tried. */
  let candidates: string[] = [];
  let refill: Promise<void> | null = null;
  let idleMs = 0;
  let lastLook = 0;
  let wake: (() => void) | null = null;
  const lease = { jobId: job.id, workerId, leaseMs };
  const recorder = outcomeRecorder(db, lease, options.log);
  const keepGoing = () => active && options.running();
  const sending: ChannelSending = { options, recorder, keepGoing };

  const stopWatching = watchChannelWork(db, lease, busy, {
    onNotRunning: () => (active = false),
    log: options.log,
  });

  /**
   * Claims channels for the lanes that have none, from those found claimable. Looking for
   * claimable channels reads the job's channels: while it finds none (the other lanes hold
   * the last ones), the lanes wait together for one look per interval, doubling up to a second.
   */
  async function refillQueue() {
    if (candidates.length === 0) {
      const wait = lastLook + idleMs - performance.now();
      // A lane letting go of its channel ends the wait: with none left in flight, there may be
      // nothing more to do here.
      if (wait > 0 && busy.size > 0) {
        await new Promise<void>((resolve) => {
          const timer = setTimeout(done, wait);
          function done() {
            clearTimeout(timer);
            resolve();
          }
          wake = done;
        });
        wake = null;
      }
      if (!keepGoing()) return;
      candidates = (await channelsWithMessages(db, job.id, { claimable: true })).filter(
        (url) => !busy.has(url),
      );
      lastLook = performance.now();
      idleMs = candidates.length === 0 ? Math.min(IDLE_MAX_MS, Math.max(IDLE_MS, idleMs * 2)) : 0;
      // Nothing claimable and nothing in flight: this job has no work here for now.
      if (candidates.length === 0 && busy.size === 0) active = false;
    }
    // A few channels per statement, so the first lanes start while the others' are claimed.
    const wanted = Math.min(CLAIM_CHANNELS, Math.max(1, options.concurrency - busy.size));
    const tried = candidates.splice(0, wanted);
    if (tried.length === 0) return;
    const claimed = await claimChannels(db, lease, tried);
    for (const { channelUrl } of claimed) busy.add(channelUrl);
    const reads = await Promise.all(
      claimed.map(({ channelUrl, sentThrough }) =>
        readMessages(db, job.id, channelUrl, sentThrough, READ_ROWS),
      ),
    );
    for (const [n, { channelUrl }] of claimed.entries()) {
      const batches = reads[n]!;
      if (batches.length > 0) queue.push(batches);
      // Its messages went out since it was found claimable.
      else void recorder.release(channelUrl, null).finally(() => letGo(channelUrl));
    }
  }

  function letGo(channelUrl: string) {
    busy.delete(channelUrl);
    wake?.();
  }

  async function nextChannel(): Promise<MessageBatch[] | undefined> {
    while (keepGoing()) {
      const claimed = queue.shift();
      if (claimed) return claimed;
      refill ??= refillQueue().finally(() => {
        refill = null;
      });
      await refill;
    }
    return undefined;
  }

  /** A lane keeps its channel while it has messages to send. */
  async function lane() {
    try {
      for (let claimed = await nextChannel(); claimed; claimed = await nextChannel()) {
        worked = true;
        const channelUrl = claimed[0]!.channelUrl;
        let retryAt: string | null = null;
        try {
          retryAt = await sendChannel(sending, claimed);
        } finally {
          // The lease goes once the channel's outcomes are written: another lane finding the
          // channel free then reads only what is still to send.
          await recorder.release(channelUrl, retryAt).finally(() => letGo(channelUrl));
        }
      }
    } catch (error) {
      // One lane's failure stops the others; the job is picked up again by the next tick.
      active = false;
      throw error;
    }
  }

  const lanes = await Promise.allSettled(Array.from({ length: options.concurrency }, lane));
  stopWatching();
  // Claimed and never taken by a lane: released at once, not when the lease runs out.
  await Promise.all(
    queue.splice(0).map((batches) => recorder.release(batches[0]!.channelUrl, null)),
  );
  await recorder.close();
  const failed = lanes.find((result) => result.status === "rejected");
  if (failed) throw failed.reason;
  return worked;
}

/**
 * Sends a channel's requests one after another, reading its next ones while the last is in
 * flight. A request put back for a retry holds the rest of the channel until it is due:
 * returns when that is, or null.
 */
async function sendChannel(
  { options, recorder, keepGoing }: ChannelSending,
  first: MessageBatch[],
): Promise<string | null> {
  const { db, job } = options;
  const channelUrl = first[0]!.channelUrl;
  let batches = [...first];
  let full = rowCount(first) === READ_ROWS;
  let ahead: Promise<MessageBatch[]> | null = null;
  while (batches.length > 0) {
    const batch = batches.shift()!;
    if (batches.length === 0 && full && keepGoing()) {
      const after = batch.last;
      ahead = readMessages(db, job.id, channelUrl, after, READ_ROWS);
    }
    const outcome = await sendBatch(options, batch);
    if (outcome.created) recorder.created(channelUrl, batch.last, batch.rowIndexes.length);
    else recorder.update(outcome.updates);
    if (!outcome.created) {
      await ahead?.catch(() => {});
      return outcome.retryAt;
    }
    if (!keepGoing()) break;
    if (batches.length === 0 && ahead) {
      batches = await ahead;
      ahead = null;
      full = rowCount(batches) === READ_ROWS;
    }
  }
  await ahead?.catch(() => {});
  return null;
}

/** Sends one request: the platform took it, or its rows are to be tried again or failed. */
async function sendBatch(options: MessageWorkOptions, batch: MessageBatch): Promise<SendOutcome> {
  const { client, job, pacer } = options;
  const tries = {
    // This request counts as a try of each of its messages.
    attempt: batch.attempts + 1,
    rateLimitedTries: batch.rateLimitedTries,
  };
  // The row numbers of the file, as everywhere else: a spreadsheet's, header included.
  const numbers = batch.rowIndexes.map((rowIndex) => rowIndex + job.firstRow);
  const each = (
    update: Omit<RowUpdate, "rowIndex">,
    retryAt: string | null = null,
  ): SendOutcome => ({
    created: false,
    retryAt,
    updates: batch.rowIndexes.map((rowIndex) => ({
      rowIndex,
      ...update,
      attemptsDelta: 1 + (update.attemptsDelta ?? 0),
    })),
  });
  try {
    await pacer.acquire();
    await client.migration.migrateMessages(batch.channelUrl, batch.body);
    return { created: true };
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    const code = isPlatformError(error) ? error.code : null;
    const carried = `the request of ${batch.rowIndexes.length} messages to ${batch.channelUrl} (rows ${rowList(numbers)})`;
    const next = rowRetry(options.limits, tries, error);
    if (isPlatformError(error) && next.retry) {
      const retryAt = new Date(Date.now() + next.delayMs).toISOString();
      return each(
        {
          resultCode: code,
          resultMessage: `Will try again: ${reason}`,
          nextAttemptAt: retryAt,
          ...next.counts,
        },
        retryAt,
      );
    }
    options.log(`rows ${rowList(numbers)} to ${batch.channelUrl} failed: ${reason}`);
    return each({
      state: "failed",
      resultCode: code,
      resultMessage:
        next.retry || next.reason === "permanent"
          ? `Refused with ${carried}: ${reason}`
          : gaveUpMessage(next, reason, carried),
      finished: true,
      ...next.counts,
    });
  }
}

function rowCount(batches: MessageBatch[]): number {
  return batches.reduce((sum, batch) => sum + batch.rowIndexes.length, 0);
}

/** "3, 4, 5, 9", shortened past 10. */
function rowList(numbers: number[]): string {
  const shown = numbers.slice(0, 10).join(", ");
  return numbers.length > 10 ? `${shown} and ${numbers.length - 10} more` : shown;
}
