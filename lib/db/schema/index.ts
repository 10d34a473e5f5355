/**
 * The database's tables, by system: the console's own, the embedded sandbox platform's, and
 * the guided imports'. `npm run db:generate` reads this file (drizzle.config.ts); everything
 * else imports `@/lib/db/schema` as one module. The JSON columns' types are zod schemas of
 * lib/schemas, so no table imports a feature.
 */
export * from "./console";
export * from "./imports";
export * from "./sandbox";
