import { migrationSchema } from "@/lib/schemas/messages";
import type { SandboxRouter } from "../context";
import { migrateMessages } from "../messages";
import { parseWith, readJsonObject } from "../request";

/** Message migration (platform interface 4.6). */
export function registerMigrationRoutes(api: SandboxRouter): void {
  api.post("/v3/migration/:channel_url", async (c) => {
    const migration = parseWith(migrationSchema, await readJsonObject(c));
    await migrateMessages(c.get("db"), c.get("app").id, c.req.param("channel_url"), migration);
    return c.json({});
  });
}
