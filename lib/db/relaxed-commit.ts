import { sql } from "drizzle-orm";
import type { Database } from "./client";
import { isEmbedded } from "./raw";

/**
 * Runs `work` in one transaction whose commit does not wait for its WAL record to reach the
 * disk (`synchronous_commit = off` for this transaction only). The commit is at once visible
 * and survives the death of our process; only a crash of PostgreSQL itself within a fraction
 * of a second may undo it. For bookkeeping that can be redone, never for data a client was
 * told is stored: waiting for the flush (several ms per commit here) otherwise bounds how
 * often a background worker can commit. Embedded PGlite keeps the usual commit: it dies with
 * our process, so there an unflushed commit would be lost to a mere kill.
 */
export function withRelaxedCommit<T>(db: Database, work: (tx: Database) => Promise<T>): Promise<T> {
  return db.transaction(async (tx) => {
    if (!isEmbedded(db)) await tx.execute(sql`set local synchronous_commit = off`);
    return work(tx as unknown as Database);
  });
}
