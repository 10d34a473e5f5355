import fs from "node:fs";
import path from "node:path";
import type { PgDatabase, PgQueryResultHKT } from "drizzle-orm/pg-core";
import { env } from "@/lib/env";
import * as schema from "./schema";

export type Database = PgDatabase<PgQueryResultHKT, typeof schema>;

export type DatabaseHandle = {
  db: Database;
  kind: "pglite" | "postgres";
  /** Where the data lives, for logs and the settings page (no credentials). */
  location: string;
  close: () => Promise<void>;
};

export type DatabaseOptions = {
  /** postgres:// URL; when absent, embedded PGlite in `dataDir`. */
  url?: string;
  /** PostgreSQL schema to use instead of `public` (tests use a fresh one per run). */
  schemaName?: string;
  /** PGlite data directory. */
  dataDir?: string;
};

const migrationsFolder = path.join(process.cwd(), "lib", "db", "migrations");

/** Opens a database and brings its schema up to date. */
export async function openDatabase(options: DatabaseOptions): Promise<DatabaseHandle> {
  if (process.env.NEXT_PHASE === "phase-production-build") {
    throw new Error("The database must not be opened while `next build` runs.");
  }
  return options.url ? openPostgres(options.url, options.schemaName) : openPglite(options.dataDir);
}

async function openPostgres(url: string, schemaName?: string): Promise<DatabaseHandle> {
  const { Pool } = await import("pg");
  const { drizzle } = await import("drizzle-orm/node-postgres");
  const { migrate } = await import("drizzle-orm/node-postgres/migrator");
  if (schemaName && !/^[a-z_][a-z0-9_]{0,62}$/.test(schemaName)) {
    throw new Error(`Invalid schema name: ${schemaName}`);
  }
  const pool = new Pool({
    connectionString: url,
    max: 10,
    options: schemaName ? `-c search_path=${schemaName}` : undefined,
  });
  const db = drizzle(pool, { schema });
  // Two processes starting together must not both apply the same migration.
  const client = await pool.connect();
  try {
    await client.query("select pg_advisory_lock(727274)");
    if (schemaName) await client.query(`create schema if not exists ${schemaName}`);
    await migrate(drizzle(client, { schema }), {
      migrationsFolder,
      migrationsSchema: schemaName ?? "drizzle",
    });
  } finally {
    await client.query("select pg_advisory_unlock(727274)").catch(() => {});
    client.release();
  }
  const parsed = new URL(url);
  return {
    db: db as unknown as Database,
    kind: "postgres",
    location: `postgres://${parsed.host}${parsed.pathname}${schemaName ? ` (schema ${schemaName})` : ""}`,
    close: async () => {
      runCloseHooks(db);
      await pool.end();
    },
  };
}

async function openPglite(dataDirOption?: string): Promise<DatabaseHandle> {
  const { PGlite } = await import("@electric-sql/pglite");
  const { drizzle } = await import("drizzle-orm/pglite");
  const { migrate } = await import("drizzle-orm/pglite/migrator");
  // Where the data lives is configuration, not part of the build: keep Turbopack from tracing it.
  const dataDir = path.resolve(
    /*turbopackIgnore: true*/ dataDirOption ?? path.join(env().DATA_DIR, "pglite"),
  );
  fs.mkdirSync(dataDir, { recursive: true });
  const releaseLock = await lockDataDir(dataDir);
  try {
    const client = await PGlite.create({ dataDir });
    const db = drizzle(client, { schema });
    await migrate(db, { migrationsFolder });
    return {
      db: db as unknown as Database,
      kind: "pglite",
      location: dataDir,
      close: async () => {
        runCloseHooks(db);
        await client.close();
        await releaseLock();
      },
    };
  } catch (error) {
    await releaseLock();
    throw error;
  }
}

const closeHooks = new WeakMap<object, Array<() => void>>();

/** Runs `hook` just before `db` closes, e.g. to give back a connection held for LISTEN. */
export function onDatabaseClose(db: Database, hook: () => void): void {
  closeHooks.set(db, [...(closeHooks.get(db) ?? []), hook]);
}

function runCloseHooks(db: object): void {
  for (const hook of closeHooks.get(db) ?? []) hook();
  closeHooks.delete(db);
}

/**
 * A lock whose holder stopped refreshing it for this long belongs to a dead process. Only a
 * lock without a readable owner file waits for this (a crash between taking the lock and
 * writing the file); generous, because a holder whose event loop stalls this long gives up
 * its lock and stops.
 */
export const pgliteLockStaleMs = 30_000;

/**
 * PGlite is an embedded database: two processes writing one data directory corrupt it.
 * The lock is a directory (proper-lockfile) whose mtime its holder refreshes every second, so
 * a lock nobody refreshes for pgliteLockStaleMs is taken over. Beside it, a .owner file names the
 * holder by pid and the pid's start time: a holder that is gone, or whose pid now belongs to
 * a process started at another time, is known dead at once, so a restart right after a crash
 * does not wait for the lock to turn stale, and a reused pid cannot keep it.
 */
export async function lockDataDir(dataDir: string): Promise<() => Promise<void>> {
  const lockfile = await import("proper-lockfile");
  const lockPath = path.join(path.dirname(dataDir), `${path.basename(dataDir)}.lock`);
  // Earlier versions wrote a plain file holding a pid here; it proves nothing, remove it.
  if (fs.statSync(lockPath, { throwIfNoEntry: false })?.isFile())
    fs.rmSync(lockPath, { force: true });
  const ownerFile = `${lockPath}.owner`;
  // The owner file speaks for the lock only while the lock exists.
  const holder = fs.existsSync(lockPath) ? readLockOwner(ownerFile) : undefined;
  if (holder && !isSameProcessAlive(holder)) fs.rmSync(lockPath, { recursive: true, force: true });
  const inUse = () =>
    new Error(
      `The database directory ${dataDir} is in use by another running process${holder ? ` (pid ${holder.pid})` : ""}. ` +
        "Embedded PGlite can be opened by one process only: stop that process, " +
        "give this one its own DATA_DIR, or set DATABASE_URL to share a PostgreSQL server.",
    );
  if (holder && isSameProcessAlive(holder) && holder.pid !== process.pid) throw inUse();
  let release: () => Promise<void>;
  try {
    release = await lockfile.lock(dataDir, {
      lockfilePath: lockPath,
      realpath: false,
      stale: pgliteLockStaleMs,
      update: 1000,
      // A lock without an owner we can judge turns stale within pgliteLockStaleMs: wait that long.
      retries: {
        retries: Math.ceil((pgliteLockStaleMs + 2000) / 500),
        minTimeout: 500,
        maxTimeout: 500,
        factor: 1,
      },
      onCompromised: (error) => {
        // Another process may be writing the directory now: stopping is the only safe answer.
        console.error(`[database] lost the lock on ${dataDir} (${error.message}); stopping.`);
        process.exit(1);
      },
    });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ELOCKED") throw inUse();
    throw error;
  }
  fs.writeFileSync(
    ownerFile,
    JSON.stringify({ pid: process.pid, startTime: processStartTime(process.pid) }),
  );
  return async () => {
    fs.rmSync(ownerFile, { force: true });
    await release();
  };
}

type LockOwner = { pid: number; startTime?: string };

function readLockOwner(ownerFile: string): LockOwner | undefined {
  try {
    const owner = JSON.parse(fs.readFileSync(ownerFile, "utf8")) as LockOwner;
    return Number.isInteger(owner.pid) ? owner : undefined;
  } catch {
    return undefined;
  }
}

/** Whether the lock's holder still runs: its pid is alive and, where the system says, started when it did. */
function isSameProcessAlive(owner: LockOwner): boolean {
  try {
    process.kill(owner.pid, 0);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "EPERM") return false;
  }
  const startTime = processStartTime(owner.pid);
  return owner.startTime === undefined || startTime === undefined || startTime === owner.startTime;
}

/** The process's start time in clock ticks since boot (Linux /proc), or undefined elsewhere. */
function processStartTime(pid: number): string | undefined {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, "utf8");
    // Field 22; the command name (field 2) may hold spaces and parentheses, so count from the last ")".
    return stat.slice(stat.lastIndexOf(")") + 2).split(" ")[19];
  } catch {
    return undefined;
  }
}

// One database per process. Next.js bundles route handlers, server actions and
// instrumentation separately, so the handle lives on globalThis, not in a module variable.
const globalKey = Symbol.for("switchboard.database");
type GlobalWithDb = typeof globalThis & { [globalKey]?: Promise<DatabaseHandle> };

/** The process's database, opened (and migrated) on first use from the environment. */
export function getDatabaseHandle(): Promise<DatabaseHandle> {
  const store = globalThis as GlobalWithDb;
  if (!store[globalKey]) {
    const { DATABASE_URL, DATABASE_SCHEMA } = env();
    store[globalKey] = openDatabase({ url: DATABASE_URL, schemaName: DATABASE_SCHEMA }).catch(
      (error: unknown) => {
        delete store[globalKey];
        throw error;
      },
    );
  }
  return store[globalKey];
}

export async function getDb(): Promise<Database> {
  return (await getDatabaseHandle()).db;
}

/** Closes the process's database, if open (standalone server shutdown, tests). */
export async function closeDatabase(): Promise<void> {
  const store = globalThis as GlobalWithDb;
  const handle = store[globalKey];
  delete store[globalKey];
  if (handle) await (await handle).close();
}
