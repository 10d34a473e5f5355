import { createHash } from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";

/**
 * Empty PGlite directories that tests copy instead of creating a database each time.
 *
 * A new PGlite directory runs initdb (about 9 s of CPU) and then every migration (3 s more),
 * against about 1 s to copy one and open it (docs/testing.md, "A database to copy"). The suites
 * start dozens of servers and job databases on fresh directories, so each template is made once
 * per machine: its name carries a hash of PGlite's version and our patches of it, and the
 * migrated one's also of the migrations, so that a change to any of them makes a new one. A copy
 * holds exactly what a new directory holds: nothing (`bare`), or after `openDatabase` the
 * schema and nothing else (no migration seeds rows).
 */

const root = path.resolve(import.meta.dirname, "../..");

function hashOf(folders: string[]): string {
  const hash = createHash("sha256");
  for (const folder of folders) {
    const absolute = path.join(root, folder);
    const files = (fs.readdirSync(absolute, { recursive: true }) as string[]).sort();
    for (const file of files) {
      const full = path.join(absolute, file);
      if (fs.statSync(full).isFile()) hash.update(file).update(fs.readFileSync(full));
    }
  }
  const pglite = path.join(root, "node_modules", "@electric-sql", "pglite", "package.json");
  hash.update(JSON.parse(fs.readFileSync(pglite, "utf8")).version as string);
  return hash.digest("hex").slice(0, 16);
}

type Kind = "bare" | "migrated";

const templateDirs: Record<Kind, string> = {
  bare: path.join(os.tmpdir(), `switchboard-pglite-bare-${hashOf(["lib/db/patches"])}`),
  migrated: path.join(
    os.tmpdir(),
    `switchboard-pglite-template-${hashOf(["lib/db/patches", "lib/db/migrations"])}`,
  ),
};
const making: Partial<Record<Kind, Promise<string>>> = {};

const isMade = (kind: Kind) => fs.existsSync(path.join(templateDirs[kind], "PG_VERSION"));

/** The template's directory, made first if this machine has none for the current code. */
export function pgliteTemplate(kind: Kind = "migrated"): Promise<string> {
  making[kind] ??= makeTemplate(kind).catch((error: unknown) => {
    delete making[kind];
    throw error;
  });
  return making[kind];
}

async function makeTemplate(kind: Kind): Promise<string> {
  const templateDir = templateDirs[kind];
  if (isMade(kind)) return templateDir;
  // Made aside and renamed into place, so that a copy never sees half a template; processes
  // making it at the same time each make their own, and the first rename wins.
  const building = fs.mkdtempSync(`${templateDir}-building-`);
  const dataDir = path.join(building, "pglite");
  try {
    if (kind === "bare") {
      const { PGlite } = await import("@electric-sql/pglite");
      await (await PGlite.create({ dataDir })).close();
    } else {
      fs.cpSync(await pgliteTemplate("bare"), dataDir, { recursive: true });
      const { openDatabase } = await import("@/lib/db/client");
      await (await openDatabase({ dataDir })).close();
    }
    try {
      fs.renameSync(dataDir, templateDir);
    } catch (error) {
      if (!isMade(kind)) throw error;
    }
  } finally {
    fs.rmSync(building, { recursive: true, force: true });
  }
  return templateDir;
}

/**
 * Fills `dataDir` (absent or empty) with a copy of a template: a new database, migrated unless
 * `bare` is asked for.
 */
export async function copyPgliteTemplate(dataDir: string, kind: Kind = "migrated"): Promise<void> {
  fs.cpSync(await pgliteTemplate(kind), dataDir, { recursive: true });
}

/**
 * For a test server about to start with `env`: when it will open PGlite in `dataDir` (its
 * DATA_DIR, and no DATABASE_URL), fills the directory it opens with a copy of the migrated
 * template.
 */
export async function copyPgliteTemplateFor(env: NodeJS.ProcessEnv, dataDir: string) {
  if (env.DATA_DIR === dataDir && !env.DATABASE_URL)
    await copyPgliteTemplate(path.join(dataDir, "pglite"));
}

/**
 * The same without making the template: copies it when this machine has one for the current
 * code (for a caller that cannot wait, as Playwright's config), else leaves `dataDir` to PGlite.
 */
export function copyPgliteTemplateIfMade(dataDir: string): boolean {
  if (!isMade("migrated")) return false;
  fs.cpSync(templateDirs.migrated, dataDir, { recursive: true });
  return true;
}

/**
 * A PGlite of a test's own on a copy of a template, in place of `new PGlite()` (whose initdb is
 * the 9 s). `close` closes it and removes its directory.
 */
export async function scratchPglite(kind: Kind = "bare") {
  const { PGlite } = await import("@electric-sql/pglite");
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "switchboard-scratch-pglite-"));
  await copyPgliteTemplate(dataDir, kind);
  const client = await PGlite.create({ dataDir });
  return {
    client,
    close: async () => {
      await client.close();
      fs.rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
