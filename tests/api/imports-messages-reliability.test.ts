import { randomBytes } from "node:crypto";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openDatabase } from "@/lib/db/client";
import { controlJob } from "@/lib/imports/jobs/run/control";
import { listRows, requireJob, rowCounts } from "@/lib/imports/jobs/store/jobs";
import { messagesFile, messagesMapping } from "@/tests/fixtures/imports";
import { clientFor, createPlannedJob, openJobDatabase } from "./imports-harness";
import { startSandboxServer, type SandboxServer } from "./support/sandbox-server";
import { sized } from "../support/test-size";
import { doneRows, retrying, startWorker } from "./support/worker-process";

/**
 * The size is a knob: `npm test` runs 1,200 messages over 6 channels (200 each, two requests
 * per channel, so a channel's history still spans requests that fail, hang and are retried);
 * `npm run test:slow` 3,000 over 15 (about 90 s on 2 shared cores), and
 * `RELIABILITY_MESSAGES=200000 RELIABILITY_CHANNELS=500` is the full size.
 */
const MESSAGES = Number(process.env.RELIABILITY_MESSAGES ?? sized(1_200, 3_000));
const CHANNELS = Number(process.env.RELIABILITY_CHANNELS ?? sized(6, 15));
const PER_CHANNEL = Math.floor(MESSAGES / CHANNELS);

type Listed = { messages: Array<{ created_at: number; message_id: number }> };

/**
 * A messages import run by `npm run worker` against a sandbox that fails 5% of requests and
 * leaves 1% unanswered (half of those after storing the messages), killed mid-run and started
 * again: every valid message is stored exactly once, each channel's history is in time order,
 * and the report's counts are the platform's.
 */
describe("messages import reliability under faults and a crash", () => {
  let sandbox: SandboxServer;

  beforeAll(async () => {
    sandbox = await startSandboxServer({
      SANDBOX_FAULTS: "error_rate=0.05,hang_rate=0.01",
      // The run must last long enough to be killed in the middle, whatever the machine's
      // speed: paced to the migration limit, its requests take at least four seconds (the
      // worker reports progress every second). A floor of 10 requests a second let CI's size
      // (12 requests) finish between two reports, and the test found the worker gone.
      SANDBOX_RATE_LIMIT: `migration=${Math.max(3, Math.ceil(MESSAGES / 100 / 4))}`,
    });
  });
  afterAll(async () => {
    await sandbox?.stop();
  });

  it(
    `stores each of ${MESSAGES.toLocaleString("en")} messages over ${CHANNELS} channels once, in order`,
    async () => {
      const prefix = `mrel_${randomBytes(4).toString("hex")}`;
      const client = clientFor(sandbox, { timeoutMs: 1000 });
      const senders = Array.from({ length: 10 }, (_, n) => `${prefix}_u${n}`);
      for (const id of senders)
        await retrying(() => client.users.create({ user_id: id, nickname: id, profile_url: "" }));
      const channels = Array.from({ length: CHANNELS }, (_, n) => `${prefix}_c${n}`);
      for (const url of channels)
        await retrying(() => client.groupChannels.create({ channel_url: url, user_ids: senders }));

      const file = messagesFile(channels, senders, PER_CHANNEL, { prefix });
      const valid = file.rows.length;
      file.rows.push([channels[0]!, "file", senders[0]!, "", "1700000001", `${prefix}-nourl`, ""]);

      const handle = await openJobDatabase();
      const planned = await createPlannedJob(handle, sandbox, "messages", file, messagesMapping, {
        clientTimeoutMs: 1000,
      });
      expect(planned.plan).toMatchObject({ toCreate: valid, invalid: 1 });
      await controlJob(handle.db, planned.id, "run");
      await handle.close();

      // A request of 100 messages takes longer than one user: on a busy machine 1 s would cut
      // off answers that are merely slow, again and again.
      const worker = () => startWorker(handle.dataDir, sandbox, { PLATFORM_TIMEOUT_MS: "5000" });
      const first = worker();
      await first.waitFor((output) => (doneRows(output) ?? 0) >= valid / 3);
      first.kill();
      await first.exited;
      const second = worker();
      const code = await second.exited;
      expect(code, second.output()).toBe(0);

      const reopened = await openDatabase({ dataDir: path.join(handle.dataDir, "pglite") });
      try {
        expect((await requireJob(reopened.db, planned.id)).status).toBe("completed");
        const counts = await rowCounts(reopened.db, planned.id);
        const failures = await listRows(reopened.db, planned.id, { states: ["failed"], limit: 3 });
        expect(counts, failures.map((row) => row.resultMessage).join("\n")).toMatchObject({
          created: valid,
          invalid: 1,
          failed: 0,
          pending: 0,
        });

        let stored = 0;
        const expected = Array.from({ length: PER_CHANNEL }, (_, n) => (1_700_000_000 + n) * 1000);
        for (const url of channels) {
          const history: number[] = [];
          for (let ts = 0, first = true; ; first = false) {
            const page = await retrying(() =>
              client.request<Listed>("chat", "GET", `/v3/group_channels/${url}/messages`, {
                query: { message_ts: ts, prev_limit: 0, next_limit: 200, include: first },
              }),
            );
            history.push(...page.messages.map((message) => message.created_at));
            if (page.messages.length < 200) break;
            ts = page.messages.at(-1)!.created_at;
          }
          expect(history, url).toEqual(expected);
          stored += history.length;
        }
        expect(stored).toBe(counts.created);
      } finally {
        await reopened.close();
      }
    },
    // Ten minutes for CI's size; the full size takes longer on 2 cores.
    Math.max(600_000, MESSAGES * 10),
  );
});
