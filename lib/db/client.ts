import fs from "node:fs";
import path from "node:path";
import type { PgDatabase, PgQueryResultHKT } from "drizzle-orm/pg-core";
import { env } from "@/lib/env";
import { lockDataDir } from "./pglite-lock";
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
