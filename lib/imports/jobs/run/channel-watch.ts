import "server-only";
import { keepRenewed, type RowLease } from "@/lib/background/lease";
import type { Database } from "@/lib/db/client";
import { jobStatus } from "../store/jobs";
import { renewChannelLeases } from "./message-channels";

const STATUS_CHECK_MS = 1000;

/**
 * What the lanes of a messages job share while they work its channels (the migration and the
 * replies stage): the job's status, asked every second, so that a pause or a cancel from
 * another console or worker stops them (`onNotRunning`); and the leases of the channels they
 * hold, renewed before they run out. Returns what stops both.
 */
export function watchChannelWork(
  db: Database,
  lease: RowLease,
  held: ReadonlySet<string>,
  hooks: { onNotRunning: () => void; log: (line: string) => void },
): () => void {
  const statusTimer = setInterval(() => {
    void jobStatus(db, lease.jobId)
      .then((status) => {
        if (status !== "running") hooks.onNotRunning();
      })
      .catch(() => {});
  }, STATUS_CHECK_MS);
  const stopRenewing = keepRenewed(
    async () => {
      if (held.size > 0) await renewChannelLeases(db, lease, [...held]);
    },
    lease.leaseMs,
    hooks.log,
  );
  return () => {
    clearInterval(statusTimer);
    stopRenewing();
  };
}
