import "server-only";
import { sql } from "drizzle-orm";
import { pollLoopHealth, type LoopHealth } from "@/lib/background/poll-loop";
import { getDatabaseHandle } from "@/lib/db/client";

/** The background workers a console process runs (lib/startup.ts). */
export const consoleWorkers = [
  "webhook-outbox",
  "import-jobs",
  "import-plans",
  "import-rehearsals",
];
const databaseTimeoutMs = 2000;

export type Health = {
  ok: boolean;
  database: { ok: boolean; kind?: "pglite" | "postgres"; error?: string };
  workers: LoopHealth[];
};

/** Whether the database answers a query and every expected worker loop is alive. No secrets. */
export async function checkHealth(expectedWorkers: string[] = consoleWorkers): Promise<Health> {
  const database = await checkDatabase();
  const running = pollLoopHealth();
  const workers = [
    ...running,
    ...expectedWorkers
      .filter((name) => !running.some((loop) => loop.name === name))
      .map((name) => ({ name, alive: false, failing: false, busyMs: 0 })),
  ];
  return {
    ok: database.ok && workers.every((loop) => loop.alive && !loop.failing),
    database,
    workers,
  };
}

async function checkDatabase(): Promise<Health["database"]> {
  let timer: NodeJS.Timeout | undefined;
  try {
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(
        () => reject(new Error(`no answer within ${databaseTimeoutMs} ms`)),
        databaseTimeoutMs,
      );
    });
    const handle = await Promise.race([getDatabaseHandle(), timeout]);
    await Promise.race([handle.db.execute(sql`select 1`), timeout]);
    return { ok: true, kind: handle.kind };
  } catch (error) {
    // The class of failure, not its text: messages can hold connection strings.
    return {
      ok: false,
      error:
        error instanceof Error && error.message.startsWith("no answer")
          ? error.message
          : "query failed",
    };
  } finally {
    clearTimeout(timer);
  }
}
