import { randomInt } from "node:crypto";
import { sql, type SQL } from "drizzle-orm";
import type { PoolClient } from "pg";
import { onDatabaseClose, type Database } from "@/lib/db/client";
import { isEmbedded } from "@/lib/db/raw";

/**
 * A worker's name on the work it claims, and the proof that it still runs.
 *
 * A lease that runs out only says its holder was silent for a while, and an event loop stalled
 * under load is silent too: taking its work then sends it a second time while the first attempt
 * is still under way, and calls that attempt interrupted when it was not. So a holder instead
 * keeps a PostgreSQL advisory lock on its key in a database session of its own for as long as
 * it lives. The database drops the lock when that session ends (the process died, or closed
 * the database), never while the process merely stalls. On PGlite the session is the process's
 * one connection, so the lock ends with the process as well.
 */
export type Holder = {
  /** Stored on what the holder claims. */
  readonly key: number;
  /** Gives the key up: what it still holds can be taken by others. */
  release: () => Promise<void>;
};

/**
 * Keys are above 2^32, so none is a one-number key of another advisory lock (the migrations
 * take 727274), and below 2^53, so they stay exact as JavaScript numbers.
 */
function randomKey(): number {
  return 2 ** 32 + randomInt(2 ** 47);
}

/**
 * The keys of the holders alive now, as a subquery: `e.locked_by not in (${liveHolderKeys})`.
 * pg_locks shows a bigint advisory key as its high (classid) and low (objid) halves, each
 * unsigned; the bits put back together are the key. (A product of the high half overflowed
 * bigint for any key held with a high half of 2^31 or more: a negative key, such as the
 * sandbox's `hashtextextended` channel locks, or another program's on the same server.)
 */
export const liveHolderKeys: SQL = sql`select (l.classid::bigint << 32) | l.objid::bigint
  from pg_locks l where l.locktype = 'advisory' and l.objsubid = 1 and l.granted`;

type PgPool = { connect: () => Promise<PoolClient> };

/** Takes a fresh key and holds it until `release` (or the database is closed). */
export async function acquireHolder(
  db: Database,
  log: (line: string) => void = console.error,
): Promise<Holder> {
  if (isEmbedded(db)) {
    for (;;) {
      const key = randomKey();
      const { rows } = (await db.execute(
        sql`select pg_try_advisory_lock(${key}::bigint) as got`,
      )) as unknown as { rows: Array<{ got: boolean }> };
      if (rows[0]?.got)
        return {
          key,
          release: async () => {
            await db.execute(sql`select pg_advisory_unlock(${key}::bigint)`);
          },
        };
    }
  }

  const pool = (db as unknown as { $client: PgPool }).$client;
  let released = false;
  let session: PoolClient | undefined;

  /** A session of the pool's that holds `key`, or undefined when another session holds it. */
  async function lockIn(key: number): Promise<PoolClient | undefined> {
    const client = await pool.connect();
    try {
      const { rows } = await client.query<{ got: boolean }>(
        "select pg_try_advisory_lock($1::bigint) as got",
        [key],
      );
      if (rows[0]?.got) return client;
    } catch (error) {
      client.release(true);
      throw error;
    }
    client.release();
    return undefined;
  }

  function watch(client: PoolClient, key: number) {
    session = client;
    let lost = false;
    const onLost = (error?: Error) => {
      if (lost || released) return;
      lost = true;
      session = undefined;
      client.release(true);
      log(
        `[holder] the session holding key ${key} ended (${error?.message ?? "closed"}); holding it again`,
      );
      void holdAgain(key);
    };
    client.on("error", onLost);
    client.on("end", () => onLost());
  }

  // Until it holds again, others may take what this holder claimed: they find it not alive.
  async function holdAgain(key: number) {
    while (!released) {
      try {
        const client = await lockIn(key);
        if (client) {
          if (released) client.release(true);
          else watch(client, key);
          return;
        }
      } catch (error) {
        log(`[holder] holding key ${key} again failed: ${String(error)}`);
      }
      await new Promise((resolve) => setTimeout(resolve, 1000));
    }
  }

  let key = randomKey();
  let client = await lockIn(key);
  while (!client) {
    key = randomKey();
    client = await lockIn(key);
  }
  watch(client, key);
  const release = async () => {
    if (released) return;
    released = true;
    const held = session;
    session = undefined;
    if (!held) return;
    // Ending the session drops its lock; the pool must not hand it out again.
    held.release(true);
  };
  // The pool waits for its borrowed sessions when it ends.
  onDatabaseClose(db, () => void release());
  return { key, release };
}
