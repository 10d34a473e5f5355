import "server-only";
import { sql } from "drizzle-orm";
import type { Database } from "@/lib/db/client";
import type { FinalReason } from "@/lib/imports/types";
import { isPlatformError, type PlatformClient } from "@/lib/platform";
import { platformRetries } from "@/lib/platform/retries";
import { withRetries } from "@/lib/retry";
import type { Pacer } from "../run/pacer";
import { forEachConcurrent } from "../shared/concurrency";
import { chunk, rowsOf } from "../shared/rows";
import type { ImportJob } from "../store/jobs";

const SENDER_CONCURRENCY = 8;

/**
 * Before a messages job sends anything: the senders its plan found deactivated on the
 * platform are reactivated, and (with `createUnknownSenders`) the unknown ones created, so the
 * platform takes every message of theirs whatever it does with a deactivated sender. Each
 * gets a last-stage step first (`preparing`, then `waiting` once done), so none is left active
 * when the migration finishes, even after a crash between the two. Idempotent: a sender whose
 * step is past `preparing` is not asked again; a reactivation or creation sent twice is harmless.
 * Returns the senders that could not be prepared (their messages may then be refused).
 */
export async function prepareSenders(
  db: Database,
  client: PlatformClient,
  job: ImportJob,
  pacer: Pacer,
  log: (line: string) => void,
): Promise<number> {
  const plan = job.plan?.messages;
  const wanted: Array<{ id: string; reason: FinalReason }> = [
    ...(plan?.reactivateSenders ?? []).map((id) => ({ id, reason: "reactivated" as const })),
    ...(plan?.createSenders ?? []).map((id) => ({ id, reason: "created_sender" as const })),
  ];
  if (wanted.length === 0) return 0;
  const prepared = new Set(
    rowsOf<{ key: string }>(
      await db.execute(sql`
        select key from import_final_steps
        where job_id = ${job.id} and action = 'deactivate' and state <> 'preparing'`),
    ).map((row) => row.key),
  );
  const left = wanted.filter((sender) => !prepared.has(sender.id));
  if (left.length === 0) return 0;
  for (const batch of chunk(left, 1000)) {
    await db.execute(sql`
      insert into import_final_steps (job_id, action, key, resource, reason, state)
      select ${job.id}, 'deactivate', s.id, 'users', s.reason, 'preparing'
      from jsonb_to_recordset(${JSON.stringify(batch)}::jsonb) as s(id text, reason text)
      on conflict (job_id, action, key) do nothing`);
  }
  let failed = 0;
  await forEachConcurrent(left, SENDER_CONCURRENCY, async ({ id, reason }) => {
    try {
      await withRetries(async () => {
        await pacer.acquire();
        if (reason === "reactivated") await client.users.update(id, { is_active: true });
        else await createSender(client, id);
      }, platformRetries());
      await db.execute(sql`
        update import_final_steps set state = 'waiting', result_message = null
        where job_id = ${job.id} and action = 'deactivate' and key = ${id} and state = 'preparing'`);
    } catch (error) {
      failed++;
      const message = `${reason === "reactivated" ? "Reactivating" : "Creating"} the sender before the messages failed: ${error instanceof Error ? error.message : String(error)}`;
      await db.execute(sql`
        update import_final_steps set result_message = ${message}
        where job_id = ${job.id} and action = 'deactivate' and key = ${id} and state = 'preparing'`);
      log(`job ${job.id}: ${message}`);
    }
  });
  return failed;
}

/** An unknown sender as a user: its id as nickname, no profile image. Already there is fine. */
async function createSender(client: PlatformClient, userId: string) {
  try {
    await client.users.create({ user_id: userId, nickname: userId, profile_url: "" });
  } catch (error) {
    if (!isPlatformError(error, 400202)) throw error;
  }
}
