import "server-only";
import type { Database } from "@/lib/db/client";
import { applyRowUpdates, type RowUpdate } from "../store/row-updates";

const MAX_ROWS = 100;
const MAX_WAIT_MS = 200;

/**
 * The replies stage's row outcomes of one channel, written a batch at a time: one statement
 * per 100 outcomes or 200 ms, not one per reply or reacted message. PGlite is one connection,
 * so a statement per request serialised every lane behind the database and the stage ran at
 * about half the sandbox's rate (docs/benchmarks.md, "Replies-and-reactions stage"). A worker
 * killed before a flush loses at most that batch's outcomes, and losing them is harmless: a
 * reply sent again answers the stored message (its dedup id), and a message's reactions are
 * listed before any is added. Flushed before the channel's rows are read again (the next page
 * must not hold rows already done) and when the channel's work ends, however it ends.
 */
export class OutcomeBuffer {
  private pending: RowUpdate[] = [];
  private rows = new Set<number>();
  private firstAt = 0;

  constructor(
    private readonly db: Database,
    private readonly jobId: string,
  ) {}

  async write(updates: RowUpdate[]): Promise<void> {
    // One outcome per row in a batch: a second would be applied in no set order.
    if (updates.some((update) => this.rows.has(update.rowIndex))) await this.flush();
    if (this.pending.length === 0) this.firstAt = performance.now();
    for (const update of updates) {
      this.pending.push(update);
      this.rows.add(update.rowIndex);
    }
    if (this.pending.length >= MAX_ROWS || performance.now() - this.firstAt >= MAX_WAIT_MS)
      await this.flush();
  }

  async flush(): Promise<void> {
    if (this.pending.length === 0) return;
    const batch = this.pending;
    this.pending = [];
    this.rows = new Set();
    await applyRowUpdates(this.db, this.jobId, batch);
  }
}
