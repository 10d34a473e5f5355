import { sql } from "drizzle-orm";
import { rowsOf } from "@/lib/imports/jobs/shared/rows";
import { describe, expect, it } from "vitest";
import type { DatabaseHandle } from "@/lib/db/client";
import type { JobPlan } from "@/lib/imports/jobs/plan/plan";
import { listRows, requireJob, rowCounts } from "@/lib/imports/jobs/store/jobs";
import { startImportRunner } from "@/lib/imports/jobs/worker/runner";
import type { PlatformClient } from "@/lib/platform";
import { threadsMapping, type ThreadsFile } from "@/tests/fixtures/imports";
import { failuresCsv, jobProgress } from "@/lib/imports/jobs/report/report";
import { jobFromRowsNotDone } from "@/lib/imports/jobs/report/rows-not-done";
import { controlJob } from "@/lib/imports/jobs/run/control";
import {
  clientFor,
  createPlannedJob,
  rehearseJob,
  runJob,
  verifyJob,
  waitForJob,
  waitForPlan,
} from "./imports-harness";
import { sharedSandbox } from "./support/http";
import { threadTargetAndFile } from "./support/threads";
import { useTestDatabase } from "./support/test-database";

/**
 * Delta at cutover (issue 24, item 3): a newer export of the same community holds everything
 * the first did and a little more. Planned after the first was run, it sends only what is
 * new, adds the reactions that came since, and updates the messages edited since.
 */
describe("a newer export of the same messages", () => {
  const sandbox = sharedSandbox();
  const database = useTestDatabase();
  const handle = () => ({ db: database.db }) as DatabaseHandle;

  /** The first export of a community of two group channels, migrated; and a copy to change. */
  async function migrateFirst(name: string) {
    const client = clientFor(sandbox);
    const {
      prefix,
      senders,
      urls,
      file: first,
    } = await threadTargetAndFile(client, name, 2, {
      messages: 12,
      replies: 3,
      roots: 2,
      reactions: 4,
    });
    const planned = await createPlannedJob(handle(), sandbox, "messages", first, threadsMapping);
    expect((await runJob(handle(), sandbox, planned.id, { timeoutMs: 120_000 })).job.status).toBe(
      "completed",
    );
    const channel = urls[0]!;
    const newer = first.rows.map((row) => [...row]);
    return {
      prefix,
      client,
      senders,
      urls,
      channel,
      first,
      newer,
      ...parts(first, newer, channel),
    };
  }

  /** The newer export's rows of `channel`: flat ones with neither reactions nor replies, and replies. */
  function parts(first: ThreadsFile, newer: string[][], channel: string) {
    const roots = new Set(first.roots.values());
    const ofChannel = newer.filter((row) => row[0] === channel && row[6] === "");
    return {
      flatRows: ofChannel.filter((row) => row[5] === "" && !roots.has(row[4]!)),
      replyRows: ofChannel.filter((row) => row[5] !== ""),
    };
  }

  it("sends only what is new: new messages, new replies to old roots, new reactions, edits", async () => {
    const { prefix, client, senders, urls, channel, first, newer, flatRows, replyRows } =
      await migrateFirst("dlt");

    // The newer export: the same rows, a message and a reply edited and a message with a
    // reaction since, and more.
    const [edited, reacted] = flatRows;
    const oldText = edited![2]!;
    edited![2] = `${oldText} (edited)`;
    const editedReply = replyRows[0]!;
    const oldReplyText = editedReply[2]!;
    editedReply[2] = `${oldReplyText} (edited)`;
    reacted![6] = `heart:${senders[2]}`;
    const oldRoot = [...first.roots.values()].find((id) => id.startsWith(`${prefix}-0-`))!;
    for (let i = 0; i < 3; i++)
      newer.push([
        channel,
        senders[i]!,
        `new ${i}`,
        String(1_700_000_100 + i),
        `${prefix}-n${i}`,
        "",
        "",
      ]);
    for (let i = 0; i < 2; i++)
      newer.push([
        channel,
        senders[i]!,
        `new reply ${i}`,
        String(1_700_000_200 + i),
        `${prefix}-nr${i}`,
        oldRoot,
        "",
      ]);
    const file = { columns: first.columns, rows: newer };

    const delta = await createPlannedJob(handle(), sandbox, "messages", file, threadsMapping);
    const plan = delta.plan as JobPlan;
    expect(plan).toMatchObject({ toCreate: 5, existing: first.rows.length, invalid: 0 });
    expect(plan.messages?.earlier).toEqual({
      imported: first.rows.length,
      changed: 2,
      keptAsSent: 0,
      newReactions: 1,
    });
    expect(plan.messages?.threads).toMatchObject({ replies: 2 });
    const rowOf = async (sourceId: string) =>
      (await listRows(database.db, delta.id, { limit: newer.length })).find(
        (row) => row.sourceId === sourceId,
      )!;
    // An edit is carried, not a warning: what the earlier import sent of it is kept to compare.
    for (const [row, before] of [
      [edited!, oldText],
      [editedReply, oldReplyText],
    ] as const) {
      expect(await rowOf(row[4]!)).toMatchObject({
        state: "existed",
        planIssues: [],
        edit: { message: before },
        editState: "pending",
        resultMessage: expect.stringMatching(/changed in the source since \(an edit\)/),
      });
    }

    // Rehearsed: the new replies go to their old root, the new reaction to its old message and
    // the edits to the messages as first sent, which the scratch application is given first.
    const rehearsal = await rehearseJob(handle(), sandbox, delta.id, { timeoutMs: 120_000 });
    expect(rehearsal).toMatchObject({
      state: "done",
      created: 5,
      failed: 0,
      threads: { replies: 2, repliesFailed: 0, reactionsFailed: 0, edits: 2, editsFailed: 0 },
    });
    expect(rehearsal.threads!.reactions).toBeGreaterThan(0);

    const before = (await client.messages.totalCount("group_channels", channel)).total;
    const { job } = await runJob(handle(), sandbox, delta.id, { timeoutMs: 120_000 });
    expect(job.status).toBe("completed");
    expect(await rowCounts(database.db, job.id)).toMatchObject({
      created: 5,
      existed: first.rows.length,
      failed: 0,
      threadsFailed: 0,
    });
    // The replies stage is done: the new replies sent, the new reactions added.
    const threads = (await jobProgress(database.db, job.id)).threads!;
    expect(threads).toMatchObject({ replies: 2, repliesDone: 2, edits: 2, editsDone: 2 });
    expect(threads.reactionsDone).toBe(threads.reactions);
    expect((await client.messages.totalCount("group_channels", channel)).total).toBe(before + 5);
    expect((await client.messages.totalCount("group_channels", urls[1]!)).total).toBe(12);

    const byText = new Map(
      (await channelMessages(client, channel)).map((message) => [message.message, message]),
    );
    const root = byText.get(first.rows.find((row) => row[4] === oldRoot)![2]!)!;
    for (let i = 0; i < 2; i++)
      expect(byText.get(`new reply ${i}`)?.parent_message_id).toBe(root.message_id);
    expect(byText.get(reacted![2]!)?.reactions).toEqual([
      expect.objectContaining({ key: "heart", user_ids: [senders[2]] }),
    ]);
    // The edits are on the platform: the message and the reply hold the newer text, the reply
    // still under its root.
    expect(byText.has(oldText)).toBe(false);
    expect(byText.get(`${oldText} (edited)`)?.parent_message_id).toBe(0);
    expect(byText.has(oldReplyText)).toBe(false);
    expect(byText.get(`${oldReplyText} (edited)`)?.parent_message_id).toBeGreaterThan(0);
    expect((await rowOf(edited![4]!)).resultMessage).toMatch(
      /updated on the platform to this version \(message of message \d+\)/,
    );
    // Verify of the newer export: every message as this export has it, the edits included.
    expect(await verifyJob(handle(), sandbox, job.id)).toMatchObject({
      state: "done",
      counts: { matched: newer.length, missing: 0, extra: 0, different: 0 },
    });

    // The same newer export once more: nothing is new, and nothing changed since.
    const again = await createPlannedJob(handle(), sandbox, "messages", file, threadsMapping);
    expect(again.plan).toMatchObject({ toCreate: 0, existing: newer.length });
    expect((again.plan as JobPlan).messages?.earlier).toMatchObject({ changed: 0, keptAsSent: 0 });
  }, 300_000);

  it("updates nothing that already matches: a worker that died before writing its update down", async () => {
    const { client, channel, first, newer, flatRows } = await migrateFirst("dlr");
    const edited = flatRows[0]!;
    edited[2] = `${edited[2]} (edited)`;
    const file = { columns: first.columns, rows: newer };
    const delta = await createPlannedJob(handle(), sandbox, "messages", file, threadsMapping);
    expect((delta.plan as JobPlan).messages?.earlier).toMatchObject({ changed: 1 });
    expect((await runJob(handle(), sandbox, delta.id, { timeoutMs: 120_000 })).job.status).toBe(
      "completed",
    );
    const updated = await textOnPlatform(client, channel, edited[2]!);
    expect(updated).toBeDefined();

    // The update made but its outcome never written (a kill -9 between the two): taken up
    // again, the message is read and found to match, and nothing is sent.
    await database.db.execute(sql`update import_rows set edit_state = 'pending'
      where job_id = ${delta.id} and edit_state = 'done'`);
    await database.db.execute(
      sql`update import_jobs set status = 'running', finished_at = null where id = ${delta.id}`,
    );
    const writes: string[] = [];
    const runner = startImportRunner({
      getDb: async () => database.db,
      createClient: async (hooks) =>
        clientFor(sandbox, {
          ...hooks,
          onResponse: (info) => {
            if (info.method !== "GET") writes.push(`${info.method} ${info.url}`);
            hooks.onResponse(info);
          },
        }),
      pollMs: 50,
      log: () => {},
    });
    try {
      await waitForJob(database.db, delta.id, (job) => job.status === "completed", {
        timeoutMs: 60_000,
        pollMs: 50,
      });
    } finally {
      await runner.stop();
    }
    expect(writes).toEqual([]);
    const row = (await listRows(database.db, delta.id, { limit: newer.length })).find(
      (candidate) => candidate.sourceId === edited[4],
    )!;
    expect(row).toMatchObject({ state: "existed", editState: "done" });
    expect(row.resultMessage).toMatch(/already had this version/);
    const again = await textOnPlatform(client, channel, edited[2]!);
    expect(again?.updated_at).toBe(updated!.updated_at);
  }, 300_000);

  it("fails the row, with the platform's reason, when an edited message cannot be updated", async () => {
    const { client, channel, first, newer, flatRows, replyRows } = await migrateFirst("dlf");
    // Both messages edited in the source, and deleted on the platform meanwhile: the flat one
    // (its id to find) and the reply (its id known since it was sent).
    const [edited] = flatRows;
    const reply = replyRows[0]!;
    for (const row of [edited!, reply]) {
      const message = await textOnPlatform(client, channel, row[2]!);
      await client.messages.delete("group_channels", channel, message!.message_id);
      row[2] = `${row[2]} (edited)`;
    }
    const file = { columns: first.columns, rows: newer };
    const delta = await createPlannedJob(handle(), sandbox, "messages", file, threadsMapping);
    expect((delta.plan as JobPlan).messages?.earlier).toMatchObject({ changed: 2 });
    const { job } = await runJob(handle(), sandbox, delta.id, { timeoutMs: 120_000 });
    expect(job.status).toBe("completed");
    expect(await rowCounts(database.db, job.id)).toMatchObject({
      existed: newer.length - 2,
      failed: 2,
    });
    const rows = await listRows(database.db, job.id, { limit: newer.length });
    const flatRow = rows.find((row) => row.sourceId === edited![4])!;
    const replyRow = rows.find((row) => row.sourceId === reply[4])!;
    expect(flatRow).toMatchObject({ state: "failed", editState: "failed" });
    expect(flatRow.resultMessage).toMatch(
      /^Not found on the platform after migration: .* so its update to this version was not made\.$/,
    );
    expect(replyRow).toMatchObject({ state: "failed", editState: "failed", resultCode: 400201 });
    expect(replyRow.resultMessage).toMatch(/^Refused: the update of message \d+ to this version: /);

    // Each is a line of the failures CSV with its reason, and Verify names both as missing.
    let csv = "";
    for await (const part of failuresCsv(database.db, job.id)) csv += part;
    const lines = csv.trim().split("\r\n");
    expect(lines).toHaveLength(3);
    expect(lines[1]).toContain(edited![2]!);
    expect(lines[1]).toContain("so its update to this version was not made");
    expect(lines[2]).toContain(reply[2]!);
    expect(lines[2]).toContain("Refused: the update of message");
    expect((await verifyJob(handle(), sandbox, job.id)).counts).toMatchObject({
      missing: 2,
      extra: 0,
      different: 0,
    });
    expect((await requireJob(database.db, job.id)).status).toBe("completed");
  }, 300_000);

  it("names an edit a cancelled import did not make, and a new job of the rows not done makes it", async () => {
    const { client, channel, first, newer, flatRows } = await migrateFirst("dlc");
    const edited = flatRows[0]!;
    const oldText = edited[2]!;
    edited[2] = `${oldText} (edited)`;
    const file = { columns: first.columns, rows: newer };
    const delta = await createPlannedJob(handle(), sandbox, "messages", file, threadsMapping);
    await controlJob(database.db, delta.id, "cancel");
    await waitForJob(database.db, delta.id, (job) => job.status === "cancelled");

    let csv = "";
    for await (const part of failuresCsv(database.db, delta.id)) csv += part;
    const lines = csv.trim().split("\r\n");
    expect(lines).toHaveLength(2);
    expect(lines[1]).toContain(edited[2]!);
    expect(lines[1]).toContain("not updated to this version");

    const again = await jobFromRowsNotDone(database.db, delta.id);
    const planned = await waitForPlan(handle(), sandbox, again.id);
    expect((planned.plan as JobPlan).messages?.earlier).toMatchObject({ imported: 1, changed: 1 });
    const { job } = await runJob(handle(), sandbox, again.id, { timeoutMs: 120_000 });
    expect(await rowCounts(database.db, job.id)).toMatchObject({ existed: 1, failed: 0 });
    expect(await textOnPlatform(client, channel, edited[2]!)).toBeDefined();
    expect(await textOnPlatform(client, channel, oldText)).toBeUndefined();
  }, 300_000);
  it("carries, in a new job of the rows not done, the reactions a cancel left unsent", async () => {
    const { client, channel } = await migrateFirst("dlr");
    const { db } = database;
    // A message with reactions, as if the import had been cancelled before its reactions were
    // added: the platform lacks them, and the row says they are still to carry.
    const [row] = rowsOf<{ job_id: string; row_index: number; platform_message_id: number }>(
      await db.execute(sql`select job_id, row_index, platform_message_id from import_rows
        where resource_key = ${channel} and reactions is not null and parent_source_id is null
        order by row_index limit 1`),
    );
    const messageId = row!.platform_message_id;
    const before = (await client.reactions.list(channel, messageId)).reactions;
    for (const [reaction, users] of Object.entries(before))
      for (const user_id of users)
        await client.reactions.remove(channel, messageId, { user_id, reaction });
    await db.execute(sql`update import_rows set thread_state = 'pending'
      where job_id = ${row!.job_id} and row_index = ${row!.row_index}`);
    await db.execute(sql`update import_jobs set status = 'cancelled' where id = ${row!.job_id}`);

    let csv = "";
    for await (const part of failuresCsv(db, row!.job_id)) csv += part;
    expect(csv).toContain("Sent, but its replies or reactions were not carried");

    const again = await jobFromRowsNotDone(db, row!.job_id);
    const planned = await waitForPlan(handle(), sandbox, again.id);
    expect((planned.plan as JobPlan).messages?.earlier).toMatchObject({
      imported: 1,
      newReactions: 1,
    });
    const { job } = await runJob(handle(), sandbox, again.id, { timeoutMs: 120_000 });
    expect(await rowCounts(db, job.id)).toMatchObject({ existed: 1, failed: 0, threadsFailed: 0 });
    expect((await client.reactions.list(channel, messageId)).reactions).toEqual(before);
  }, 300_000);
});

/** The messages of `channel` (at most 200), replies included, with their reactions. */
async function channelMessages(client: PlatformClient, channel: string) {
  const page = await client.messages.list("group_channels", channel, {
    messageTs: 0,
    include: true,
    prevLimit: 0,
    nextLimit: 200,
    includeReplyType: "all",
    includeReactions: true,
  });
  return page.messages;
}

/** The message of `channel` (replies included) whose text is `text`. */
async function textOnPlatform(client: PlatformClient, channel: string, text: string) {
  return (await channelMessages(client, channel)).find((message) => message.message === text);
}
