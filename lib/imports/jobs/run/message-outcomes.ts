import "server-only";
import type { RowLease } from "@/lib/background/lease";
import type { Database } from "@/lib/db/client";
import { applyRowUpdates, type RowUpdate } from "../store/row-updates";
import { moveSentThrough, releaseChannels, type MessagePosition } from "./message-channels";

/** Outcomes are written together off the send path: a statement per this many rows or this long. */
const FLUSH_ROWS = 1000;
const FLUSH_MS = 200;

/**
 * Collects outcomes and writes them in groups, one write at a time in the order given: each
 * channel's new `sent_through` place in one statement, the rows put back or failed through
 * `applyRowUpdates`, then the channels let go. Only messages still pending are written: one
 * another worker sent (after this one's lease ran out) keeps its outcome. A failed write is
 * logged: its messages stay pending and are sent again, which the dedup ids make harmless.
 */
export function outcomeRecorder(db: Database, lease: RowLease, log: (line: string) => void) {
  /** Per channel, the last message of its last request the platform took. */
  let created = new Map<string, MessagePosition>();
  let createdRows = 0;
  let updates: RowUpdate[] = [];
  let releases: Array<{ channelUrl: string; retryAt: string | null }> = [];
  let writing: Promise<void> = Promise.resolve();
  let timer: ReturnType<typeof setTimeout> | null = null;

  async function write(
    sent: Map<string, MessagePosition>,
    others: RowUpdate[],
    letGo: typeof releases,
  ) {
    if (sent.size > 0) await moveSentThrough(db, lease.jobId, sent);
    await applyRowUpdates(db, lease.jobId, others, { pendingOnly: true });
    if (letGo.length > 0) await releaseChannels(db, lease, letGo);
  }

  function flush(): Promise<void> {
    if (timer) clearTimeout(timer);
    timer = null;
    const sent = created;
    const others = updates;
    const letGo = releases;
    created = new Map();
    createdRows = 0;
    updates = [];
    releases = [];
    if (sent.size === 0 && others.length === 0 && letGo.length === 0) return writing;
    writing = writing
      .then(() => write(sent, others, letGo))
      .catch((error: unknown) => log(`recording outcomes failed: ${String(error)}`));
    return writing;
  }

  function added() {
    if (createdRows + updates.length >= FLUSH_ROWS) void flush();
    else timer ??= setTimeout(() => void flush(), FLUSH_MS);
  }

  return {
    /** The platform took a channel's request, whose last message is at `last`. */
    created(channelUrl: string, last: MessagePosition, messages: number) {
      created.set(channelUrl, last);
      createdRows += messages;
      added();
    },
    update(rows: RowUpdate[]) {
      if (rows.length === 0) return;
      updates.push(...rows);
      added();
    },
    /** Writes what is waiting and lets the channel go (to be sent again from `retryAt`). */
    release(channelUrl: string, retryAt: string | null): Promise<void> {
      releases.push({ channelUrl, retryAt });
      return flush();
    },
    close: flush,
  };
}

export type OutcomeRecorder = ReturnType<typeof outcomeRecorder>;
