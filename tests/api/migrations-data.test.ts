import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { drizzle } from "drizzle-orm/pglite";
import { migrate } from "drizzle-orm/pglite/migrator";
import { afterEach, describe, expect, it } from "vitest";
import { scratchPglite } from "../support/pglite-template";

const migrationsFolder = path.resolve("lib/db/migrations");
const cleanUp: Array<() => Promise<void> | void> = [];

afterEach(async () => {
  for (const step of cleanUp.splice(0).reverse()) await step();
});

/** A copy of the migrations as they were before `tag` was added. */
function migrationsBefore(tag: string): string {
  const folder = fs.mkdtempSync(path.join(os.tmpdir(), "switchboard-migrations-"));
  cleanUp.push(() => fs.rmSync(folder, { recursive: true, force: true }));
  fs.cpSync(migrationsFolder, folder, { recursive: true });
  const journalPath = path.join(folder, "meta", "_journal.json");
  const journal = JSON.parse(fs.readFileSync(journalPath, "utf8")) as {
    entries: Array<{ tag: string }>;
  };
  const index = journal.entries.findIndex((entry) => entry.tag === tag);
  expect(index, `no migration ${tag}`).toBeGreaterThan(0);
  journal.entries = journal.entries.slice(0, index);
  fs.writeFileSync(journalPath, JSON.stringify(journal));
  return folder;
}

/** A database at the state just before `tag`, and a way to run the rest. */
async function databaseBefore(tag: string) {
  const { client, close } = await scratchPglite();
  cleanUp.push(close);
  const db = drizzle(client);
  await migrate(db, { migrationsFolder: migrationsBefore(tag) });
  return { client, migrateTheRest: () => migrate(db, { migrationsFolder }) };
}

describe("data migrations", () => {
  it("0016 raises a rate limit saved below 1 request per second to 1 and keeps the others", async () => {
    const { client, migrateTheRest } = await databaseBefore("0016_rate_limits_at_least_one");
    await client.query(`insert into sandbox_apps (id, name, api_token, webhook, rate_limit) values
      ('locked', 'Locked', 'token-locked', '{}', '{"write": 0.5, "get": 20, "migration": 0.0000001}'),
      ('fine', 'Fine', 'token-fine', '{}', '{"write": 1, "get": 2.5}'),
      ('none', 'None', 'token-none', '{}', null)`);

    await migrateTheRest();

    const { rows } = await client.query("select id, rate_limit from sandbox_apps order by id");
    expect(rows).toEqual([
      { id: "fine", rate_limit: { write: 1, get: 2.5 } },
      { id: "locked", rate_limit: { write: 1, get: 20, migration: 1 } },
      { id: "none", rate_limit: null },
    ]);
  });
});
