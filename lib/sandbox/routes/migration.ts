import { messageListQuerySchema, migrationSchema } from "@/lib/schemas/messages";
import type { SandboxRouter } from "../context";
import { listMessages, migrateMessages } from "../messages";
import { parseWith, readJsonObject } from "../request";

/** Message migration (platform interface 4.6) and the message list that shows its result. */
export function registerMigrationRoutes(api: SandboxRouter): void {
  api.post("/v3/migration/:channel_url", async (c) => {
    const migration = parseWith(migrationSchema, await readJsonObject(c));
    await migrateMessages(c.get("db"), c.get("app").id, c.req.param("channel_url"), migration);
    return c.json({});
  });

  for (const channelType of ["open", "group"] as const) {
    api.get(`/v3/${channelType}_channels/:channel_url/messages`, async (c) => {
      const query = parseWith(messageListQuerySchema, c.req.query());
      return c.json(
        await listMessages(
          c.get("db"),
          c.get("app").id,
          channelType,
          c.req.param("channel_url"),
          query,
        ),
      );
    });
  }
}
