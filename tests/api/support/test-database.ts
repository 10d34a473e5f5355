import { randomBytes } from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import pg from "pg";
import { afterAll, beforeAll } from "vitest";
import { openDatabase, type Database, type DatabaseHandle } from "@/lib/db/client";
import { copyPgliteTemplate } from "../../support/pglite-template";

/**
 * A fresh database for the surrounding describe block, on the storage the run tests: a schema
 * of its own in TEST_DATABASE_URL when that is set, else a PGlite directory of its own (a copy of
 * the migrated template, tests/support/pglite-template.ts). Opened
 * (and migrated) before its tests; closed and removed after them.
 */
export function useTestDatabase(): { readonly db: Database } {
  const databaseUrl = process.env.TEST_DATABASE_URL;
  const schemaName = `t_${randomBytes(6).toString("hex")}`;
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "switchboard-test-db-"));
  let handle: DatabaseHandle | undefined;

  beforeAll(async () => {
    if (!databaseUrl) await copyPgliteTemplate(dataDir);
    handle = await openDatabase(databaseUrl ? { url: databaseUrl, schemaName } : { dataDir });
  });
  afterAll(async () => {
    await handle?.close();
    fs.rmSync(dataDir, { recursive: true, force: true });
    if (databaseUrl) {
      const client = new pg.Client({ connectionString: databaseUrl });
      await client.connect();
      await client.query(`drop schema if exists ${schemaName} cascade`);
      await client.end();
    }
  });
  return {
    get db() {
      if (!handle) throw new Error("useTestDatabase: the database is opened in beforeAll");
      return handle.db;
    },
  };
}
