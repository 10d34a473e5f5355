import { randomBytes } from "node:crypto";
import { describe, expect, it } from "vitest";
import type { DatabaseHandle } from "@/lib/db/client";
import type { JobPlan } from "@/lib/imports/jobs/plan/plan";
import { jobOutcomeCounts } from "@/lib/imports/jobs/report/overview";
import { failuresCsv, jobProgress } from "@/lib/imports/jobs/report/report";
import { listRows, rowCounts } from "@/lib/imports/jobs/store/jobs";
import { threadsFile, threadsMapping } from "@/tests/fixtures/imports";
import { clientFor, createPlannedJob, runJob } from "./imports-harness";
import { sharedSandbox } from "./support/http";
import { expectThreadsOnPlatform, seedThreadTarget } from "./support/threads";
import { useTestDatabase } from "./support/test-database";

type Sandbox = ReturnType<typeof sharedSandbox>;

describe("replies and reactions of a messages import", () => {
  const sandbox: Sandbox = sharedSandbox();
  const database = useTestDatabase();
  const handle = () => ({ db: database.db }) as DatabaseHandle;

  it("plans, sends each reply to its root and adds each reaction once, and a rerun adds nothing", async () => {
    const prefix = `thr_${randomBytes(4).toString("hex")}`;
    const client = clientFor(sandbox);
    const { senders, urls } = await seedThreadTarget(client, prefix, 3);
    const open = `${prefix}_open`;
    await client.openChannels.create({ channel_url: open });
    const file = threadsFile(
      urls,
      senders,
      { messages: 40, replies: 12, roots: 4, reactions: 30 },
      { prefix },
    );
    const valid = file.rows.length;
    const bad = (channel: string, id: string, parent: string, reactions: string) => [
      channel,
      senders[0]!,
      `bad ${id}`,
      "1700000100",
      `${prefix}-bad-${id}`,
      parent,
      reactions,
    ];
    file.rows.push(
      bad(urls[0]!, "noroot", `${prefix}-nowhere`, ""),
      bad(urls[1]!, "otherchannel", `${prefix}-0-0`, ""),
      bad(urls[0]!, "ghost", "", `thumbsup:${prefix}_ghost`),
      bad(urls[0]!, "longkey", "", `${"k".repeat(129)}:${senders[0]}`),
      bad(urls[0]!, "malformed", "", "thumbsup"),
      // Sent, without its reaction: open channels have none.
      bad(open, "open", "", `heart:${senders[1]}`),
    );

    const planned = await createPlannedJob(handle(), sandbox, "messages", file, threadsMapping);
    expect(planned.status).toBe("planned");
    const plan = planned.plan as JobPlan;
    expect(plan).toMatchObject({ toCreate: valid + 1, invalid: 5 });
    expect(plan.messages?.threads).toMatchObject({
      replies: 36,
      roots: 12,
      reactions: file.reactionCount,
      flattened: 3,
      missingRoots: 1,
      openChannelsWithReactions: [open],
    });
    // Replies go through the send API, not the migration: 28 migrated messages per channel.
    expect(plan.messages?.requests).toBe(4);
    const issues = (await listRows(database.db, planned.id, { limit: valid + 10 }))
      .filter((row) => row.rowIndex >= valid)
      .map((row) =>
        [...row.issues, ...row.planIssues]
          .map((issue) => `${issue.field}: ${issue.message}`)
          .join(" / "),
      );
    expect(issues[0]).toMatch(/parent_id: Thread root .* is neither a message of this file/);
    expect(issues[1]).toMatch(/parent_id: Thread root .* is in channel .*_c0", not .*_c1"/);
    expect(issues[2]).toMatch(/reactions: Reacting user ".*_ghost" is neither a user/);
    expect(issues[3]).toMatch(
      /reactions: The reaction key "k+…" is 129 characters long; the platform takes at most 128/,
    );
    expect(issues[4]).toMatch(/reactions: "thumbsup" names no users/);
    expect(issues[5]).toMatch(/reactions: ".*_open" is an open channel/);

    // A loaded machine (2 shared cores) sends a reaction in about 0.5 s.
    const { job } = await runJob(handle(), sandbox, planned.id, {
      concurrency: 4,
      timeoutMs: 240_000,
    });
    expect(job.status).toBe("completed");
    const counts = await rowCounts(database.db, job.id);
    const failed = await listRows(database.db, job.id, { states: ["failed"], limit: 3 });
    expect(counts, failed.map((row) => row.resultMessage).join("\n")).toMatchObject({
      created: valid + 1,
      invalid: 5,
      failed: 0,
      pending: 0,
    });
    const stored = await expectThreadsOnPlatform(client, file, urls);
    expect(stored).toEqual({ replies: 36, reactions: file.reactionCount });

    // The same file again: every message, reply and reaction is there already.
    const again = await createPlannedJob(handle(), sandbox, "messages", file, threadsMapping);
    const second = await runJob(handle(), sandbox, again.id, {
      concurrency: 4,
      timeoutMs: 240_000,
    });
    expect(second.job.status).toBe("completed");
    // An earlier import sent them all: nothing is sent again (../plan/earlier-messages.ts).
    expect(again.plan).toMatchObject({ toCreate: 0, existing: valid + 1 });
    expect(await rowCounts(database.db, again.id)).toMatchObject({
      created: 0,
      existed: valid + 1,
      failed: 0,
    });
    expect(await expectThreadsOnPlatform(client, file, urls)).toEqual(stored);
    for (const url of urls) {
      const { total } = await client.messages.totalCount("group_channels", url);
      expect(total).toBe(40);
    }
  }, 600_000);

  // "Nothing vanishes silently": a reaction the platform refuses leaves its message sent, and
  // the message is counted, reported and in the failures CSV.
  it("counts, reports and lists a message whose reaction the platform refused", async () => {
    const prefix = `thf_${randomBytes(4).toString("hex")}`;
    const client = clientFor(sandbox);
    const { senders, urls } = await seedThreadTarget(client, prefix, 1);
    const reactor = `${prefix}_gone`;
    await client.users.create({ user_id: reactor, nickname: reactor, profile_url: "" });
    await client.groupChannels.invite(urls[0]!, { user_ids: [reactor] });
    const file = threadsFile(
      urls,
      senders,
      { messages: 6, replies: 2, roots: 1, reactions: 2 },
      { prefix },
    );
    const row = [
      urls[0]!,
      senders[0]!,
      "reacted",
      "1700000100",
      `${prefix}-r`,
      "",
      `heart:${reactor}`,
    ];
    file.rows.push(row);

    const planned = await createPlannedJob(handle(), sandbox, "messages", file, threadsMapping);
    expect(planned.plan).toMatchObject({ toCreate: file.rows.length, invalid: 0 });
    // Gone between the plan and the run: the platform refuses the reaction for good.
    await client.users.delete(reactor);
    const { job } = await runJob(handle(), sandbox, planned.id, { timeoutMs: 120_000 });
    expect(job.status).toBe("completed");

    expect(await rowCounts(database.db, job.id)).toMatchObject({
      created: file.rows.length,
      failed: 0,
      threadsFailed: 1,
    });
    expect((await jobProgress(database.db, job.id)).rowsNotDone).toBe(1);
    expect((await jobOutcomeCounts(database.db, [job])).get(job.id)).toMatchObject({
      created: file.rows.length,
      threadsFailed: 1,
    });
    let csv = "";
    for await (const chunk of failuresCsv(database.db, job.id)) csv += chunk;
    const lines = csv.trim().split("\r\n");
    expect(lines).toHaveLength(2);
    expect(lines[1]).toContain(`${prefix}-r`);
    expect(lines[1]).toContain(`1 reaction refused: heart by ""${reactor}"": No user`);
  }, 300_000);
});
