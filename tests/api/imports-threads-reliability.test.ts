import { randomBytes } from "node:crypto";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openDatabase } from "@/lib/db/client";
import type { PlatformClient } from "@/lib/platform";
import { controlJob } from "@/lib/imports/jobs/run/control";
import { listRows, requireJob, rowCounts } from "@/lib/imports/jobs/store/jobs";
import { threadsFile, threadsMapping } from "@/tests/fixtures/imports";
import { clientFor, createPlannedJob, openJobDatabase } from "./imports-harness";
import { startSandboxServer, type SandboxServer } from "./support/sandbox-server";
import { expectThreadsOnPlatform } from "./support/threads";
import { doneRows, retrying, startWorker } from "./support/worker-process";
import { sized } from "../support/test-size";

const CHANNELS = sized(4, 10);
const PER_CHANNEL = { messages: 60, replies: 20, roots: 5, reactions: 30 };

/**
 * The replies stage (issue 23, "Done means"): `npm run worker` against a sandbox that fails 5%
 * of requests and leaves 1% unanswered (half of those after doing them), killed with SIGKILL
 * while it sends replies and reactions, then started again. Every reply arrives once, under
 * its root, and every reaction once: nothing lost, nothing twice.
 */
describe("the replies stage under faults and a crash", () => {
  let sandbox: SandboxServer;

  beforeAll(async () => {
    sandbox = await startSandboxServer({
      SANDBOX_FAULTS: "error_rate=0.05,hang_rate=0.01",
      // Paced so the stage lasts some seconds on any machine: it is killed in the middle.
      SANDBOX_RATE_LIMIT: "write=25",
    });
  });
  afterAll(async () => {
    await sandbox?.stop();
  });

  it(`sends ${CHANNELS} channels' replies and reactions once across a kill -9`, async () => {
    const prefix = `trel_${randomBytes(4).toString("hex")}`;
    const client = clientFor(sandbox, { timeoutMs: 2000 });
    const senders = Array.from({ length: 4 }, (_, n) => `${prefix}_u${n}`);
    for (const id of senders)
      await retrying(() => client.users.create({ user_id: id, nickname: id, profile_url: "" }));
    const urls = Array.from({ length: CHANNELS }, (_, n) => `${prefix}_c${n}`);
    for (const url of urls)
      await retrying(() => client.groupChannels.create({ channel_url: url, user_ids: senders }));
    const file = threadsFile(urls, senders, PER_CHANNEL, { prefix });

    const handle = await openJobDatabase();
    const planned = await createPlannedJob(handle, sandbox, "messages", file, threadsMapping, {
      clientTimeoutMs: 2000,
    });
    expect(planned.plan).toMatchObject({ toCreate: file.rows.length, invalid: 0 });
    await controlJob(handle.db, planned.id, "run");
    await handle.close();

    // The migrated messages are done first; killed once a quarter of the replies are.
    const migrated = CHANNELS * (PER_CHANNEL.messages - PER_CHANNEL.replies);
    const worker = () => startWorker(handle.dataDir, sandbox, { PLATFORM_TIMEOUT_MS: "5000" });
    const first = worker();
    await first.waitFor(
      (output) => (doneRows(output) ?? 0) >= migrated + (CHANNELS * PER_CHANNEL.replies) / 4,
    );
    first.kill();
    await first.exited;
    const done = doneRows(first.output())!;
    expect(done, "killed after the last reply").toBeLessThan(file.rows.length);
    const second = worker();
    expect(await second.exited, second.output()).toBe(0);

    const reopened = await openDatabase({ dataDir: path.join(handle.dataDir, "pglite") });
    try {
      expect((await requireJob(reopened.db, planned.id)).status).toBe("completed");
      const failed = await listRows(reopened.db, planned.id, { states: ["failed"], limit: 3 });
      expect(
        await rowCounts(reopened.db, planned.id),
        failed.map((row) => row.resultMessage).join("\n"),
      ).toMatchObject({ created: file.rows.length, failed: 0, threadsFailed: 0, pending: 0 });
    } finally {
      await reopened.close();
    }
    // Read through the same faults: each listing is tried again until answered.
    const list = client.messages.list;
    const listing = {
      ...client,
      messages: { ...client.messages, list: (...args) => retrying(() => list(...args)) },
    } as PlatformClient & { messages: { list: typeof list } };
    expect(await expectThreadsOnPlatform(listing, file, urls)).toEqual({
      replies: CHANNELS * PER_CHANNEL.replies,
      reactions: file.reactionCount,
    });
  }, 600_000);
});
