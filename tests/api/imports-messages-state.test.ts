import { randomBytes } from "node:crypto";
import { describe, expect, it } from "vitest";
import { controlJob } from "@/lib/imports/jobs/run/control";
import {
  claimChannels,
  moveSentThrough,
  readMessages,
  type MessagePosition,
} from "@/lib/imports/jobs/run/message-channels";
import { jobOutcomeCounts } from "@/lib/imports/jobs/report/overview";
import {
  failuresCsv,
  jobProgress,
  reportPage,
  rowRequests,
} from "@/lib/imports/jobs/report/report";
import { applyRowUpdates } from "@/lib/imports/jobs/store/row-updates";
import { jobFromRowsNotDone } from "@/lib/imports/jobs/report/rows-not-done";
import { listRows, requireJob, rowCounts } from "@/lib/imports/jobs/store/jobs";
import { messagesFile, messagesMapping } from "@/tests/fixtures/imports";
import {
  channelHistory,
  clientFor,
  createPlannedJob,
  runJob,
  useJobDatabase,
} from "./imports-harness";
import { sharedSandbox } from "./support/http";

/**
 * A message's row is not written when the platform takes its request: its channel's
 * `sent_through` place moves, and every reader of a row's state (counts, report, failures
 * CSV, rows not done, completion) reads it from there.
 */
describe("a messages job's state, read from its channels' sent_through places", () => {
  const sandbox = sharedSandbox();
  const jobs = useJobDatabase();

  async function plannedJob(perChannel: number) {
    const prefix = `mst_${randomBytes(4).toString("hex")}`;
    const client = clientFor(sandbox);
    const senders = [`${prefix}_a`, `${prefix}_b`];
    for (const id of senders)
      await client.users.create({ user_id: id, nickname: id, profile_url: "" });
    const channels = [`${prefix}_c0`, `${prefix}_c1`];
    for (const url of channels)
      await client.groupChannels.create({ channel_url: url, user_ids: senders });
    const file = messagesFile(channels, senders, perChannel, { prefix });
    const job = await createPlannedJob(jobs.handle, sandbox, "messages", file, messagesMapping);
    return { job, channels, client, total: file.rows.length };
  }

  /** Sends a channel's next request as the run does, and records it: the platform took it. */
  async function sendNext(
    jobId: string,
    channelUrl: string,
    after: MessagePosition | null,
    client: ReturnType<typeof clientFor>,
  ) {
    const [batch] = await readMessages(jobs.handle.db, jobId, channelUrl, after, 100);
    await client.migration.migrateMessages(channelUrl, batch!.body);
    await moveSentThrough(jobs.handle.db, jobId, new Map([[channelUrl, batch!.last]]));
    return batch!;
  }

  it("counts, lists and reports the messages a channel's sending passed as created, once", async () => {
    const { job, channels, client, total } = await plannedJob(250);
    const [channel] = channels;
    const { db } = jobs.handle;
    // A lease that runs out at once: the channel is free again for the run below.
    await claimChannels(db, { jobId: job.id, workerId: "test", leaseMs: 1 }, [channel!]);
    const first = await sendNext(job.id, channel!, null, client);
    // A try put back on the second request's rows before it went through: its error goes.
    const [second] = await readMessages(db, job.id, channel!, first.last, 100);
    await applyRowUpdates(
      db,
      job.id,
      second!.rowIndexes.map((rowIndex) => ({
        rowIndex,
        attemptsDelta: 1,
        resultCode: 500,
        resultMessage: "Will try again: boom",
      })),
      { pendingOnly: true },
    );
    await client.migration.migrateMessages(channel!, second!.body);
    await moveSentThrough(db, job.id, new Map([[channel!, second!.last]]));

    expect(await rowCounts(db, job.id)).toMatchObject({ created: 200, pending: total - 200 });
    // The same place again, or an earlier one (a late worker), counts nothing twice.
    await moveSentThrough(db, job.id, new Map([[channel!, second!.last]]));
    await moveSentThrough(db, job.id, new Map([[channel!, first.last]]));
    expect(await rowCounts(db, job.id)).toMatchObject({ created: 200, pending: total - 200 });
    expect((await jobOutcomeCounts(db, [job])).get(job.id)).toMatchObject({
      created: 200,
      pending: total - 200,
    });

    const sent = [...first.rowIndexes, ...second!.rowIndexes].sort((a, b) => a - b);
    const created = await listRows(db, job.id, { states: ["created"], limit: 1000 });
    expect(created.map((row) => row.rowIndex)).toEqual(sent);
    expect(created.every((row) => row.resultMessage === null && row.resultCode === null)).toBe(
      true,
    );
    const pending = await listRows(db, job.id, { states: ["pending"], limit: 1000 });
    expect(pending).toHaveLength(total - 200);
    expect(pending.some((row) => sent.includes(row.rowIndex))).toBe(false);
    const page = await reportPage(db, job.id, { state: "created" });
    expect(page.rows.map((row) => row.rowIndex)).toEqual(sent.slice(0, 100));
    expect((await rowRequests(db, job.id, { rowIndex: second!.rowIndexes[0]! }))?.state).toBe(
      "created",
    );

    // A late failure of a message already taken (a worker whose lease ran out) changes nothing.
    await applyRowUpdates(
      db,
      job.id,
      [{ rowIndex: sent[0]!, state: "failed", resultMessage: "Refused", finished: true }],
      { pendingOnly: true },
    );
    expect(await rowCounts(db, job.id)).toMatchObject({ created: 200, failed: 0 });

    // The run sends only what is left, and the platform ends with each message once.
    const { job: done } = await runJob(jobs.handle, sandbox, job.id, { concurrency: 2 });
    expect(done.status).toBe("completed");
    expect(await rowCounts(db, job.id)).toMatchObject({ created: total, pending: 0, failed: 0 });
    expect((await jobProgress(db, job.id)).channels).toEqual({ done: 2, total: 2 });
    for (const url of channels) {
      const history = await channelHistory(sandbox, "group_channels", url);
      expect(history).toHaveLength(250);
      expect(history.map((message) => message.created_at)).toEqual(
        Array.from({ length: 250 }, (_, n) => (1_700_000_000 + n) * 1000),
      );
    }
  });

  it("leaves the messages a cancelled job sent out of the failures CSV and the rows not done", async () => {
    const { job, channels, client, total } = await plannedJob(150);
    const { db } = jobs.handle;
    await claimChannels(db, { jobId: job.id, workerId: "test", leaseMs: 1 }, [channels[0]!]);
    const first = await sendNext(job.id, channels[0]!, null, client);
    // The next request was refused: its rows failed, and the channel's sending went on past them.
    const [refused] = await readMessages(db, job.id, channels[0]!, first.last, 100);
    await applyRowUpdates(
      db,
      job.id,
      refused!.rowIndexes.map((rowIndex) => ({
        rowIndex,
        state: "failed",
        resultCode: 400_111,
        resultMessage: "Refused",
        finished: true,
      })),
      { pendingOnly: true },
    );
    expect(await rowCounts(db, job.id)).toMatchObject({
      created: 100,
      failed: 50,
      pending: total - 150,
    });
    await new Promise((resolve) => setTimeout(resolve, 5));
    expect((await controlJob(db, job.id, "cancel")).status).toBe("cancelled");
    expect((await requireJob(db, job.id)).status).toBe("cancelled");

    let csv = "";
    for await (const chunk of failuresCsv(db, job.id)) csv += chunk;
    const lines = csv.trim().split("\n").slice(1);
    // The refused rows and the rows never sent; not the 100 the platform took.
    expect(lines).toHaveLength(total - 100);
    const numbers = new Set(lines.map((line) => Number(line.split(",").at(-1))));
    for (const rowIndex of first.rowIndexes)
      expect(numbers.has(rowIndex + job.firstRow)).toBe(false);

    const again = await jobFromRowsNotDone(db, job.id);
    expect(again.totalRows).toBe(total - 100);
    const copied = await listRows(db, again.id, { limit: 1000 });
    expect(copied.some((row) => first.rowIndexes.includes(row.rowIndex))).toBe(false);
  });
});
