import "server-only";
import type { Database } from "@/lib/db/client";
import { applyRowUpdates, type RowUpdate } from "../store/row-updates";

/** Outcomes are written together off the send path: a statement per this many rows or this long. */
const FLUSH_ROWS = 200;
const FLUSH_MS = 250;

export type OutcomeBatches = {
  /** Keeps a row's outcome, writing the batch when it is full or has waited long enough. */
  record: (update: RowUpdate) => void;
  /** Writes what has waited too long (the lanes may all be waiting on the platform). */
  flushIfDue: () => void;
  /** Writes what is kept, after the writes before it. */
  flush: () => Promise<void>;
};

/**
 * The rows' outcomes of one worker on one job, written in batches through `applyRowUpdates`,
 * one write at a time in the order recorded. `only`: as `applyRowUpdates` takes it; the
 * creation runner's batches (`lockedBy`) are written only on rows this worker still holds,
 * the replies stage's (which holds its channel, not its rows) on any.
 */
export function outcomeBatches(
  db: Database,
  jobId: string,
  only: { lockedBy?: string } = {},
): OutcomeBatches {
  let buffer: RowUpdate[] = [];
  let flushing: Promise<void> = Promise.resolve();
  let lastFlush = Date.now();

  const flush = () => {
    const batch = buffer;
    buffer = [];
    lastFlush = Date.now();
    flushing = flushing.then(() => applyRowUpdates(db, jobId, batch, only));
    return flushing;
  };
  return {
    record(update) {
      buffer.push(update);
      if (buffer.length >= FLUSH_ROWS || Date.now() - lastFlush > FLUSH_MS) void flush();
    },
    flushIfDue() {
      if (buffer.length > 0 && Date.now() - lastFlush > FLUSH_MS) void flush();
    },
    flush,
  };
}
