import { eq } from "drizzle-orm";
import type { PoolClient } from "pg";
import { onDatabaseClose, type Database } from "@/lib/db/client";
import { sandboxApps } from "@/lib/db/schema";
import {
  rateLimitSettingsSchema,
  storedWebhookSettingsSchema,
} from "@/lib/schemas/sandbox-storage";

export type SandboxApplication = typeof sandboxApps.$inferSelect;

/** An application as read from the database, its webhook settings and rate limit parsed. */
export function parsedApplication(row: SandboxApplication): SandboxApplication {
  return {
    ...row,
    webhook: storedWebhookSettingsSchema.parse(row.webhook),
    rateLimit: rateLimitSettingsSchema.nullable().parse(row.rateLimit),
  };
}

/** PostgreSQL channel on which every process announces a changed application. */
const channel = "switchboard_sandbox_apps";

type CacheState = {
  rows: Map<string, SandboxApplication>;
  /** Bumped on every invalidation, so a look-up that raced with one is not cached. */
  generation: number;
  /** PostgreSQL: the LISTEN connection; rows are cached only while it is up. */
  listener?: Promise<PoolClient | undefined>;
};

// One cache per database, shared by every Next.js bundle of the process like the database handle.
const stateKey = Symbol.for("switchboard.sandbox.app-cache");
type GlobalWithCache = typeof globalThis & { [stateKey]?: WeakMap<Database, CacheState> };

function state(db: Database): CacheState {
  const store = globalThis as GlobalWithCache;
  store[stateKey] ??= new WeakMap();
  let cache = store[stateKey].get(db);
  if (!cache) {
    cache = { rows: new Map(), generation: 0 };
    store[stateKey].set(db, cache);
  }
  return cache;
}

/**
 * The application row that authenticates every request, read from memory. Every change made
 * through the door (`./index.ts`) drops it here at once by `applicationChanged` and, on
 * PostgreSQL, in every other process by NOTIFY; on PGlite only one process opens the data.
 */
export async function cachedApplication(
  db: Database,
  appId: string,
): Promise<SandboxApplication | undefined> {
  const cache = state(db);
  const hit = cache.rows.get(appId);
  if (hit) return hit;
  const canCache = await listening(db);
  const generation = cache.generation;
  const [stored] = await db.select().from(sandboxApps).where(eq(sandboxApps.id, appId)).limit(1);
  // Parsed once per read from the database; the cached row serves every request after it.
  const row = stored && parsedApplication(stored);
  if (row && canCache && generation === cache.generation) cache.rows.set(appId, row);
  return row;
}

/**
 * Called by the door after each change to an application (creation, token, rate limit, webhook
 * settings, deletion), never by anyone else.
 */
export async function applicationChanged(db: Database, appId: string): Promise<void> {
  forget(state(db), appId);
  await postgresPool(db)?.query("select pg_notify($1, $2)", [channel, appId]);
}

function forget(cache: CacheState, appId: string | undefined): void {
  cache.generation += 1;
  if (appId === undefined) cache.rows.clear();
  else cache.rows.delete(appId);
}

type PgPool = {
  connect: () => Promise<PoolClient>;
  query: (text: string, values: unknown[]) => Promise<unknown>;
};

function postgresPool(db: Database): PgPool | undefined {
  const client = (db as { $client?: unknown }).$client as Partial<PgPool> | undefined;
  // node-postgres pools have `connect`; PGlite has `listen` but no pool.
  return client && typeof client.connect === "function" && !("listen" in client)
    ? (client as PgPool)
    : undefined;
}

/** Whether rows may be cached: always on PGlite; on PostgreSQL while LISTEN is up. */
async function listening(db: Database): Promise<boolean> {
  const pool = postgresPool(db);
  if (!pool) return true;
  const cache = state(db);
  cache.listener ??= pool.connect().then(
    async (client) => {
      let released = false;
      const release = () => {
        if (released) return;
        released = true;
        client.release(true);
      };
      const lost = () => {
        // Notifications may have been missed: trust nothing cached, listen again on next use.
        cache.listener = undefined;
        forget(cache, undefined);
        release();
      };
      // The pool waits for its borrowed clients when it ends.
      onDatabaseClose(db, () => {
        cache.listener = undefined;
        forget(cache, undefined);
        release();
      });
      client.on("error", lost);
      client.on("end", lost);
      client.on("notification", (message) => forget(cache, message.payload));
      await client.query(`listen ${channel}`);
      return client;
    },
    () => {
      cache.listener = undefined;
      return undefined;
    },
  );
  return (await cache.listener) !== undefined;
}
