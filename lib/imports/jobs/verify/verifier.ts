import "server-only";
import { and, asc, eq } from "drizzle-orm";
import type { Database } from "@/lib/db/client";
import { importVerifications } from "@/lib/db/schema";
import { claimRows, keepRenewed, unclaimed } from "@/lib/background/lease";
import { startPollLoop, type PollLoop } from "@/lib/background/poll-loop";
import type { PlatformClient, ResponseInfo } from "@/lib/platform";
import { findApplication } from "@/lib/sandbox";
import { StoppedEarly } from "../plan/plan";
import { Pacer } from "../run/pacer";
import { scratchClient } from "../rehearse/scratch-client";
import { requireJob } from "../store/jobs";
import { failVerification, runVerification, type Verification } from "./verify";

export type VerifierOptions = {
  getDb: () => Promise<Database>;
  /** A job's target (null: a job made with no target), answering every response to `onResponse` (the read pace). */
  createClient: (hooks: {
    targetId: string | null;
    onResponse: (info: ResponseInfo) => void;
    rateLimitRetries: number;
  }) => Promise<PlatformClient>;
  workerId: string;
  /** How long a claim holds without being renewed; a dead worker's Verify goes on after it. */
  leaseMs?: number;
  pollMs?: number;
  log?: (line: string) => void;
};

/**
 * Works the requested Verifies, one at a time, oldest first, claimed as plans are
 * (`../worker/planner.ts`): `FOR UPDATE SKIP LOCKED` and a lease, so two processes never work
 * the same one, and one cut short by a crash goes on from its cursor once the lease runs out.
 * Its reads wait for a pacer that learns the platform's read limit from its answers.
 */
export function startVerifier(options: VerifierOptions): Pick<PollLoop, "nudge" | "stop"> {
  const leaseMs = options.leaseMs ?? 15_000;
  const { workerId } = options;
  const log = options.log ?? ((line: string) => console.log(`[imports] ${line}`));
  const leaseEnd = () => new Date(Date.now() + leaseMs);
  const ours = (id: string) =>
    and(eq(importVerifications.id, id), eq(importVerifications.claimedBy, workerId));
  let stopping = false;

  async function tick(db: Database): Promise<boolean> {
    const [verification] = await claimRows(db, importVerifications, {
      key: importVerifications.id,
      where: and(
        eq(importVerifications.state, "running"),
        unclaimed(importVerifications.claimedUntil),
      ),
      orderBy: asc(importVerifications.createdAt),
      limit: 1,
      set: { claimedBy: workerId, claimedUntil: leaseEnd() },
    });
    if (!verification) return false;
    const stopRenewing = keepRenewed(
      () =>
        db
          .update(importVerifications)
          .set({ claimedUntil: leaseEnd() })
          .where(ours(verification.id)),
      leaseMs,
      log,
    );
    try {
      const started = performance.now();
      const pacer = new Pacer({ learnFirst: true });
      const onResponse = (info: ResponseInfo) => pacer.observe(info.status, info.rateLimit);
      const client = await clientFor(db, verification, onResponse);
      await runVerification(db, client, verification.id, {
        pacer,
        workerId,
        shouldStop: () => stopping,
      });
      log(`verified job ${verification.jobId} in ${Math.round(performance.now() - started)} ms`);
    } catch (error) {
      if (error instanceof StoppedEarly) {
        // Cancelled, or this process is stopping: let another take it at once.
        await db
          .update(importVerifications)
          .set({ claimedBy: null, claimedUntil: null })
          .where(ours(verification.id));
      } else {
        log(`verifying job ${verification.jobId} failed: ${String(error)}`);
        await failVerification(db, verification.id, error);
      }
    } finally {
      stopRenewing();
    }
    return true;
  }

  async function clientFor(
    db: Database,
    verification: Verification,
    onResponse: (info: ResponseInfo) => void,
  ): Promise<PlatformClient> {
    if (verification.scope === "run") {
      // The target the job ran on, whatever the console works on now.
      const { targetId } = await requireJob(db, verification.jobId);
      return options.createClient({ targetId, onResponse, rateLimitRetries: 0 });
    }
    const app = verification.appId ? await findApplication(db, verification.appId) : undefined;
    if (!app)
      throw new Error(
        "the rehearsal's scratch application is gone (the import was planned again or run).",
      );
    return scratchClient(db, { id: app.id, apiToken: app.apiToken }, onResponse);
  }

  const loop = startPollLoop(async () => tick(await options.getDb()), {
    pollMs: options.pollMs ?? 500,
    name: "import-verifications",
    onError: (error) => log(`verify worker failed: ${String(error)}`),
  });
  return {
    nudge: () => loop.nudge(),
    stop: async () => {
      stopping = true;
      await loop.stop();
    },
  };
}
