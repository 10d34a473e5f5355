import { randomBytes } from "node:crypto";
import { describe, expect, it } from "vitest";
import type { DatabaseHandle } from "@/lib/db/client";
import type { JobPlan } from "@/lib/imports/jobs/plan/plan";
import { listRows, rowCounts } from "@/lib/imports/jobs/store/jobs";
import { threadsFile, threadsMapping } from "@/tests/fixtures/imports";
import { jobProgress } from "@/lib/imports/jobs/report/report";
import { clientFor, createPlannedJob, rehearseJob, runJob } from "./imports-harness";
import { sharedSandbox } from "./support/http";
import { seedThreadTarget } from "./support/threads";
import { useTestDatabase } from "./support/test-database";

/**
 * Delta at cutover (issue 24, item 3): a newer export of the same community holds everything
 * the first did and a little more. Planned after the first was run, it sends only what is
 * new, adds the reactions that came since, and says what changed.
 */
describe("a newer export of the same messages", () => {
  const sandbox = sharedSandbox();
  const database = useTestDatabase();
  const handle = () => ({ db: database.db }) as DatabaseHandle;

  it("sends only what is new: new messages, new replies to old roots, new reactions; edits are named", async () => {
    const prefix = `dlt_${randomBytes(4).toString("hex")}`;
    const client = clientFor(sandbox);
    const { senders, urls } = await seedThreadTarget(client, prefix, 2);
    const first = threadsFile(
      urls,
      senders,
      { messages: 12, replies: 3, roots: 2, reactions: 4 },
      { prefix },
    );
    const planned = await createPlannedJob(handle(), sandbox, "messages", first, threadsMapping);
    expect((await runJob(handle(), sandbox, planned.id, { timeoutMs: 120_000 })).job.status).toBe(
      "completed",
    );

    // The newer export: the same rows, one edited and one with a reaction since, and more.
    const channel = urls[0]!;
    const newer = first.rows.map((row) => [...row]);
    const flatRows = newer.filter(
      (row) => row[0] === channel && row[5] === "" && row[6] === "" && !first.roots.has(row[4]!),
    );
    const [edited, reacted] = flatRows.filter(
      (row) => ![...first.roots.values()].includes(row[4]!),
    );
    const oldText = edited![2]!;
    edited![2] = `${oldText} (edited)`;
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
      changed: 1,
      newReactions: 1,
    });
    expect(plan.messages?.threads).toMatchObject({ replies: 2 });
    const editedRow = (await listRows(database.db, delta.id, { limit: newer.length })).find(
      (row) => row.sourceId === edited![4],
    )!;
    expect(editedRow.state).toBe("existed");
    expect(editedRow.planIssues.map((issue) => issue.message).join()).toMatch(
      /Changed in the source since the import .* sent it/,
    );

    // Rehearsed: the new replies go to their old root and the new reaction to its old message,
    // which the scratch application is given first.
    const rehearsal = await rehearseJob(handle(), sandbox, delta.id, { timeoutMs: 120_000 });
    expect(rehearsal).toMatchObject({
      state: "done",
      created: 5,
      failed: 0,
      threads: { replies: 2, repliesFailed: 0, reactionsFailed: 0 },
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
    expect(threads).toMatchObject({ replies: 2, repliesDone: 2 });
    expect(threads.reactionsDone).toBe(threads.reactions);
    expect((await client.messages.totalCount("group_channels", channel)).total).toBe(before + 5);
    expect((await client.messages.totalCount("group_channels", urls[1]!)).total).toBe(12);

    const page = await client.messages.list("group_channels", channel, {
      messageTs: 0,
      include: true,
      prevLimit: 0,
      nextLimit: 200,
      includeReplyType: "all",
      includeReactions: true,
    });
    const byText = new Map(page.messages.map((message) => [message.message, message]));
    const root = byText.get(first.rows.find((row) => row[4] === oldRoot)![2]!)!;
    for (let i = 0; i < 2; i++)
      expect(byText.get(`new reply ${i}`)?.parent_message_id).toBe(root.message_id);
    expect(byText.get(reacted![2]!)?.reactions).toEqual([
      expect.objectContaining({ key: "heart", user_ids: [senders[2]] }),
    ]);
    // The platform keeps what was sent first.
    expect(byText.has(oldText)).toBe(true);
    expect(byText.has(`${oldText} (edited)`)).toBe(false);

    // The same newer export once more: nothing is new.
    const again = await createPlannedJob(handle(), sandbox, "messages", file, threadsMapping);
    expect(again.plan).toMatchObject({ toCreate: 0, existing: newer.length });
  }, 300_000);
});
