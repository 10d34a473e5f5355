import { defineConfig } from "drizzle-kit";

// Only `npm run db:generate` reads this: it writes versioned SQL migrations
// into lib/db/migrations, which the app applies at start-up.
export default defineConfig({
  dialect: "postgresql",
  schema: "./lib/db/schema/index.ts",
  out: "./lib/db/migrations",
});
