import "server-only";
import { sql } from "drizzle-orm";
import type { Database } from "@/lib/db/client";
import { importJobs } from "@/lib/db/schema";
import type { RehearsalProgress } from "@/lib/imports/types";
import { rowsOf } from "../shared/rows";

/** A rehearsal's counts are written at most this often while it sends. */
const WRITE_EVERY_MS = 1000;

export type RehearsalOutcome = "created" | "existed" | "failed";

/**
 * Counts a rehearsal's outcomes and writes them on the job (`rehearsal.progress`) as it goes,
 * at most every second and once more when told, so the job page shows how far it has got, its
 * pace and the time left, reloaded or not. A write only lands while this attempt is the one
 * running: a rehearsal cancelled, finished or taken over by another worker is left alone, and
 * the writer then says it is `superseded`, so the attempt stops within a write's interval.
 */
export class RehearsalProgressWriter {
  private progress: RehearsalProgress | null = null;
  private timer: NodeJS.Timeout | undefined;
  private writes: Promise<void> = Promise.resolve();
  private failure: unknown;
  private landedNothing = false;

  constructor(
    private readonly db: Database,
    private readonly jobId: string,
    /** The attempt's scratch application: which attempt the counts belong to. */
    private readonly appId: string,
    private readonly everyMs = WRITE_EVERY_MS,
  ) {}

  /** The rows start to be sent: `total` of them. Written at once, so the page shows 0 of total. */
  start(total: number): void {
    const now = new Date().toISOString();
    this.progress = { total, done: 0, created: 0, existed: 0, failed: 0, since: now, at: now };
    this.write();
  }

  /** `rows` rows (messages) reached `outcome`. */
  count(outcome: RehearsalOutcome, rows = 1): void {
    if (!this.progress) return;
    this.progress[outcome] += rows;
    this.progress.done += rows;
    this.timer ??= setTimeout(() => this.write(), this.everyMs);
  }

  /** Writes the last counts and waits for every write; a write that failed fails here. */
  async flush(): Promise<void> {
    if (this.timer) this.write();
    await this.writes;
    if (this.failure) throw this.failure;
  }

  /** A write found this attempt no longer the one running: cancelled, or taken over. */
  get superseded(): boolean {
    return this.landedNothing;
  }

  /** Writes nothing more (the rehearsal stopped). */
  stop(): void {
    clearTimeout(this.timer);
    this.timer = undefined;
    this.progress = null;
  }

  private write(): void {
    clearTimeout(this.timer);
    this.timer = undefined;
    if (!this.progress) return;
    const progress = JSON.stringify({ ...this.progress, at: new Date().toISOString() });
    // One after another, so an older count never lands after a newer one.
    this.writes = this.writes
      .then(() =>
        this.db.execute(sql`
          update ${importJobs}
          set rehearsal = jsonb_set(rehearsal, '{progress}', ${progress}::jsonb)
          where id = ${this.jobId} and rehearsal ->> 'state' = 'running'
            and rehearsal ->> 'appId' = ${this.appId}
          returning id`),
      )
      .then(
        (result) => {
          if (rowsOf(result).length === 0) this.landedNothing = true;
        },
        (error: unknown) => {
          this.failure ??= error;
        },
      );
  }
}
