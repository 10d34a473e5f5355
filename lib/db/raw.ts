import { escapeLiteral } from "pg";
import type { Database } from "./client";

type PgPoolLike = {
  query: (config: {
    name: string;
    text: string;
    values: unknown[];
  }) => Promise<{ rows: unknown[] }>;
};
type PgliteLike = {
  listen: unknown;
  exec: (text: string) => Promise<Array<{ rows: unknown[] }>>;
};

/**
 * The statements PREPAREd on a PGlite instance (they live as long as its one session). Kept on
 * the instance under a global symbol: the console reaches one instance from two copies of this
 * module (Next.js's bundle and the sandbox's plain listener), and both must see the same set.
 */
const preparedKey = Symbol.for("switchboard.preparedStatements");
type PreparedSet = Set<string>;

/**
 * Runs one statement on the driver under Drizzle, for the few hot paths where building the
 * query through Drizzle costs more than the database's own work; the statement is parsed and
 * planned once. On PostgreSQL it is a named prepared statement (once per connection). On
 * PGlite it is PREPAREd once and run as `EXECUTE name(literals)` through the simple protocol
 * (the literals written by `pg`'s `escapeLiteral`, never by hand):
 * PGlite's extended protocol parses and plans every time and copies its type-parser table per
 * query, which cost ~40 % more per statement (measured). `text` must be a constant for a given
 * `name`; values are strings, numbers, booleans or null.
 */
export async function preparedQuery<Row>(
  db: Database,
  name: string,
  text: string,
  values: Array<string | number | boolean | null>,
): Promise<Row[]> {
  // PostgreSQL refuses NUL in text, through a parameter as well: both drivers say so alike.
  if (values.some((value) => typeof value === "string" && value.includes("\0")))
    throw new RangeError("A text value cannot contain NUL (U+0000)");
  const client = (db as unknown as { $client: PgPoolLike | PgliteLike }).$client;
  if (!("listen" in client)) return (await client.query({ name, text, values })).rows as Row[];

  const holder = client as unknown as { [preparedKey]?: PreparedSet };
  const prepared = (holder[preparedKey] ??= new Set());
  if (!prepared.has(name)) {
    try {
      await client.exec(`prepare ${name} as ${text}`);
    } catch (error) {
      // 42P05: prepared by a caller that got there first; the text is the same for a name.
      if ((error as { code?: string }).code !== "42P05") throw error;
    }
    prepared.add(name);
  }
  const [result] = await client.exec(`execute ${name}(${values.map(literal).join(", ")})`);
  return (result?.rows ?? []) as Row[];
}

/**
 * A value as an SQL literal for `EXECUTE` on PGlite, which the simple protocol it is sent
 * through cannot pass as a parameter. Strings are quoted by `pg`'s `escapeLiteral` (libpq's
 * rules: quotes doubled, and an `E'…'` string with doubled backslashes when there are any, so
 * the literal means the same whatever `standard_conforming_strings` says). A NUL never gets
 * here (preparedQuery refuses it): it would end the query string early.
 */
function literal(value: string | number | boolean | null): string {
  if (value === null) return "null";
  if (typeof value === "string") return escapeLiteral(value);
  if (typeof value === "number" && !Number.isFinite(value))
    throw new RangeError(`Not a finite number: ${value}`);
  if (typeof value !== "number" && typeof value !== "boolean")
    throw new TypeError(`Not a string, number, boolean or null: ${typeof value}`);
  return String(value);
}

/** Whether `db` is embedded PGlite, which runs on this process's one thread. */
export function isEmbedded(db: Database): boolean {
  return "listen" in (db as unknown as { $client: object }).$client;
}
