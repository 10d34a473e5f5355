import type { Database } from "./client";

type PgPoolLike = {
  query: (config: {
    name: string;
    text: string;
    values: unknown[];
  }) => Promise<{ rows: unknown[] }>;
};
type PgliteLike = { query: (text: string, params: unknown[]) => Promise<{ rows: unknown[] }> };

/**
 * Runs one statement on the driver under Drizzle, for the few hot paths where building the
 * query through Drizzle costs more than the database's own work. On PostgreSQL it is a named
 * prepared statement (parsed and planned once per connection); on PGlite it skips the
 * per-query type-parser options Drizzle passes, which make PGlite copy its parser table.
 * `text` must be a constant for a given `name`.
 */
export async function preparedQuery<Row>(
  db: Database,
  name: string,
  text: string,
  values: unknown[],
): Promise<Row[]> {
  const client = (db as unknown as { $client: PgPoolLike | PgliteLike }).$client;
  const result =
    "listen" in client
      ? await (client as PgliteLike).query(text, values)
      : await (client as PgPoolLike).query({ name, text, values });
  return result.rows as Row[];
}

/** Whether `db` is embedded PGlite, which runs on this process's one thread. */
export function isEmbedded(db: Database): boolean {
  return "listen" in (db as unknown as { $client: object }).$client;
}
