import "server-only";
import { isNotNull } from "drizzle-orm";
import { getDatabaseHandle, getDb } from "@/lib/db/client";
import { importChannelLeases, importJobs, importRows, importVerifications } from "@/lib/db/schema";
import { env } from "@/lib/env";
import { getPlatformClient } from "@/lib/platform";
import { defaultTargetKey } from "@/lib/targets";
import { startImportRunner, type ImportRunner } from "./runner";

const runnerKey = Symbol.for("switchboard.imports.runner");
type GlobalWithRunner = typeof globalThis & { [runnerKey]?: Promise<ImportRunner> };

/**
 * Starts working import jobs in this process (once): from lib/startup.ts in the console,
 * from worker.ts in an extra worker. Jobs that were running before a restart go on
 * where they were, plans cut short are made again, and Verifies go on from their cursor.
 */
export function startImportJobs(options: { concurrency?: number } = {}): Promise<ImportRunner> {
  const store = globalThis as GlobalWithRunner;
  store[runnerKey] ??= (async () => {
    const handle = await getDatabaseHandle();
    if (handle.kind === "pglite") {
      // Embedded PGlite has one process by construction: every claim left is a dead one's.
      await handle.db
        .update(importRows)
        .set({ lockedUntil: null, lockedBy: null })
        .where(isNotNull(importRows.lockedUntil));
      await handle.db
        .update(importChannelLeases)
        .set({ lockedUntil: null, lockedBy: null })
        .where(isNotNull(importChannelLeases.lockedUntil));
      await handle.db
        .update(importJobs)
        .set({ claimedUntil: null, claimedBy: null })
        .where(isNotNull(importJobs.claimedUntil));
      await handle.db
        .update(importVerifications)
        .set({ claimedUntil: null, claimedBy: null })
        .where(isNotNull(importVerifications.claimedUntil));
    }
    return startImportRunner({
      getDb,
      concurrency: options.concurrency ?? env().IMPORT_CONCURRENCY,
      // Each job on the target it was made on, whatever the console works on now.
      createClient: ({ targetId, ...hooks }) =>
        getPlatformClient({ ...hooks, targetId: targetId ?? defaultTargetKey }),
    });
  })();
  return store[runnerKey];
}

/** A job was started, resumed or asked for a plan: look now rather than at the next poll. */
export function nudgeImportJobs(): void {
  void (globalThis as GlobalWithRunner)[runnerKey]?.then((runner) => runner.nudge());
}

export async function stopImportJobs(): Promise<void> {
  const store = globalThis as GlobalWithRunner;
  const runner = store[runnerKey];
  delete store[runnerKey];
  await (await runner)?.stop();
}
