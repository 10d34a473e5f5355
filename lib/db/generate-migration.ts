/**
 * `npm run db:generate -- --name <what_changed>`: writes the next versioned SQL migration
 * from the tables of lib/db/schema/ with drizzle-kit, then drops the `"public".` schema prefix
 * drizzle-kit puts on references, so the same migrations run in any schema (DATABASE_SCHEMA, tests).
 */
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";

const folder = path.join(import.meta.dirname, "migrations");
const result = spawnSync("npx", ["drizzle-kit", "generate", ...process.argv.slice(2)], {
  stdio: "inherit",
});
if (result.status !== 0) process.exit(result.status ?? 1);
for (const file of fs.readdirSync(folder).filter((name) => name.endsWith(".sql"))) {
  const sqlPath = path.join(folder, file);
  const text = fs.readFileSync(sqlPath, "utf8");
  if (text.includes('"public".')) fs.writeFileSync(sqlPath, text.replaceAll('"public".', ""));
}
