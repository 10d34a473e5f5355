import { randomBytes } from "node:crypto";
import { eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { importJobs } from "@/lib/db/schema";
import type { DatabaseHandle } from "@/lib/db/client";
import type { JobPlan } from "@/lib/imports/jobs/plan/plan";
import { jobOutcomeCounts, migrationOverview } from "@/lib/imports/jobs/report/overview";
import { failuresCsv, jobProgress } from "@/lib/imports/jobs/report/report";
import { listRows, rowCounts } from "@/lib/imports/jobs/store/jobs";
import { requestPlan } from "@/lib/imports/jobs/plan/plan";
import {
  threadColumns,
  threadsFile,
  threadsMapping,
  type ThreadsFile,
} from "@/tests/fixtures/imports";
import {
  clientFor,
  createPlannedJob,
  rehearseJob,
  runJob,
  verifyJob,
  waitForPlan,
} from "./imports-harness";
import { sharedSandbox } from "./support/http";
import { expectThreadsOnPlatform, seedThreadTarget } from "./support/threads";
import { useTestDatabase } from "./support/test-database";

type Sandbox = ReturnType<typeof sharedSandbox>;

describe("replies and reactions of a messages import", () => {
  const sandbox: Sandbox = sharedSandbox();
  const database = useTestDatabase();
  const handle = () => ({ db: database.db }) as DatabaseHandle;
  const verify = (jobId: string, scope: "run" | "rehearsal") =>
    verifyJob(handle(), sandbox, jobId, scope);
  const rehearse = (jobId: string) => rehearseJob(handle(), sandbox, jobId);

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

    // The rehearsal sends the replies and reactions too, into its scratch application.
    expect(await rehearse(planned.id)).toMatchObject({
      state: "done",
      created: valid + 1,
      failed: 0,
      threads: { replies: 36, repliesFailed: 0, reactions: file.reactionCount, reactionsFailed: 0 },
    });

    // The job page and the migration overview show the stage, from the plan on.
    const stage = { replies: 36, reactions: file.reactionCount, edits: 0, editsDone: 0 };
    expect((await jobProgress(database.db, planned.id)).threads).toEqual({
      ...stage,
      repliesDone: 0,
      reactionsDone: 0,
    });

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
    // Verify finds every reply under its root and every reaction.
    const verified = await verify(job.id, "run");
    expect(verified, verified.error ?? "").toMatchObject({
      state: "done",
      counts: { missing: 0, extra: 0, different: 0 },
    });
    const finished = { ...stage, repliesDone: 36, reactionsDone: file.reactionCount };
    expect((await jobProgress(database.db, job.id)).threads).toEqual(finished);

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

    // Replies to a root the first import created: the rehearsal migrates that root first.
    const later = await createPlannedJob(
      handle(),
      sandbox,
      "messages",
      {
        columns: file.columns,
        rows: [
          [urls[0]!, senders[1]!, "later", "1700000200", `${prefix}-later`, `${prefix}-0-0`, ""],
        ],
      },
      threadsMapping,
    );
    expect((later.plan as JobPlan).messages?.threads).toMatchObject({
      replies: 1,
      rootsInEarlierImports: 1,
    });
    expect(await rehearse(later.id)).toMatchObject({
      created: 1,
      failed: 0,
      threads: { replies: 1, repliesFailed: 0 },
    });

    // The migration overview shows the stage beside the job (of its target: the test's own).
    await database.db.update(importJobs).set({ targetId: prefix }).where(eq(importJobs.id, job.id));
    const overview = await migrationOverview(database.db, prefix);
    const listed = overview.find((one) => one.stage === "messages")!.jobs;
    expect(listed.find((one) => one.id === job.id)?.threads).toEqual(finished);
  }, 600_000);

  // A source id is a message's id in its own channel: Slack's `ts` repeats across channels (a
  // generated export's first message of each day does). The plan once followed a reply's root
  // to a reply of another channel with that id (and sent it to the wrong root), and Verify
  // looked a root up in the whole job (and called a right root wrong).
  it("keeps each reply to its own channel's root when two channels' messages share source ids", async () => {
    const prefix = `ths_${randomBytes(4).toString("hex")}`;
    const { senders, urls } = await seedThreadTarget(clientFor(sandbox), prefix, 2);
    const [a, b] = urls as [string, string];
    const [ann, bob] = senders as [string, string];
    const row = (channel: string, from: string, ts: number, id: string, parent = "") => [
      channel,
      from,
      `${channel} ${id}${parent ? ` → ${parent}` : ""}`,
      String(ts),
      id,
      parent,
      "",
    ];
    const file = {
      columns: [...threadColumns],
      rows: [
        row(a, ann, 1_700_000_050, "50"),
        row(a, bob, 1_700_000_100, "100"),
        row(a, ann, 1_700_000_200, "200", "100"),
        row(a, bob, 1_700_000_300, "300", "50"),
        row(b, bob, 1_700_000_060, "50"),
        // In channel a, "100" is a root; here it is a reply.
        row(b, ann, 1_700_000_150, "100", "50"),
      ],
    };
    const planned = await createPlannedJob(handle(), sandbox, "messages", file, threadsMapping);
    expect((planned.plan as JobPlan).messages?.threads).toMatchObject({
      replies: 3,
      roots: 3,
      flattened: 0,
    });
    expect(await rehearse(planned.id)).toMatchObject({
      state: "done",
      failed: 0,
      threads: { replies: 3, repliesFailed: 0 },
    });
    const clean = { matched: 6, missing: 0, extra: 0, different: 0 };
    expect((await verify(planned.id, "rehearsal")).counts).toEqual(clean);

    expect((await runJob(handle(), sandbox, planned.id)).job.status).toBe("completed");
    expect((await verify(planned.id, "run")).counts).toEqual(clean);

    // A later file: a reply in b to b's "50", which only the import above holds, while this
    // file's "50" is a's. The plan once took a's for it and refused the reply ("in channel a").
    const later = await createPlannedJob(
      handle(),
      sandbox,
      "messages",
      {
        columns: [...threadColumns],
        rows: [file.rows[0]!, row(b, ann, 1_700_000_400, "400", "50")],
      },
      threadsMapping,
    );
    expect(later.plan).toMatchObject({ toCreate: 1, existing: 1, invalid: 0 });
    expect((later.plan as JobPlan).messages?.threads).toMatchObject({
      replies: 1,
      rootsInEarlierImports: 1,
      missingRoots: 0,
    });
    expect((await runJob(handle(), sandbox, later.id)).job.status).toBe("completed");
    expect((await verify(later.id, "run")).counts).toMatchObject({ missing: 0, different: 0 });
  });

  // The send and reactions APIs take only a group channel's joined members (400108), where the
  // migration takes anyone: the plan refuses such a reply and leaves such a reaction out.
  it("refuses a reply, and leaves out a reaction, by someone who will not be a member", async () => {
    const prefix = `thm_${randomBytes(4).toString("hex")}`;
    const client = clientFor(sandbox);
    const { senders, urls } = await seedThreadTarget(client, prefix, 1);
    const [room] = urls as [string];
    const user = async (id: string) =>
      client.users.create({ user_id: id, nickname: id, profile_url: "" });
    // On the platform, in no channel.
    const outsider = `${prefix}_out`;
    await user(outsider);
    // A member deactivated beforehand (who kept the channel): reactivated for the stage.
    const gone = `${prefix}_gone`;
    await user(gone);
    await client.groupChannels.invite(room, { user_ids: [gone] });
    await client.users.update(gone, { is_active: false, leave_all_when_deactivated: false });
    // Invited, not joined: the platform lets only the joined send.
    const invited = `${prefix}_inv`;
    await user(invited);
    await client.groupChannels.invite(room, {
      user_ids: [invited],
      invitation_status: { [invited]: "invited_by_non_friend" },
    });
    // A member of a channel that a channels import (planned, not run) creates.
    const newcomer = `${prefix}_new`;
    await user(newcomer);
    const imported = `${prefix}_imp`;
    const channels = await createPlannedJob(
      handle(),
      sandbox,
      "group_channels",
      { columns: ["channel_url", "user_ids"], rows: [[imported, `${senders[0]};${newcomer}`]] },
      { channel_url: "channel_url", user_ids: "user_ids" },
    );
    expect(channels.plan).toMatchObject({ toCreate: 1, invalid: 0 });

    const row = (channel: string, from: string, id: string, parent: string, reactions: string) => [
      channel,
      from,
      `text ${id}`,
      String(1_700_000_000 + Number(id.replace(/\D/g, "") || 0)),
      `${prefix}-${id}`,
      parent ? `${prefix}-${parent}` : "",
      reactions,
    ];
    const file: ThreadsFile = {
      columns: [...threadColumns],
      rows: [
        row(room, senders[0]!, "1", "", `heart:${senders[1]};${outsider}|smile:${invited}`),
        row(room, senders[1]!, "2", "1", ""),
        row(room, outsider, "3", "1", ""),
        row(room, invited, "4", "1", ""),
        row(room, gone, "5", "1", `heart:${gone}`),
        row(imported, senders[0]!, "6", "", `heart:${newcomer};${outsider}`),
        row(imported, newcomer, "7", "6", ""),
        row(imported, outsider, "8", "6", ""),
      ],
      roots: new Map(),
      reactions: new Map(),
      reactionCount: 0,
    };
    const planned = await createPlannedJob(handle(), sandbox, "messages", file, threadsMapping);
    const plan = planned.plan as JobPlan;
    expect(plan).toMatchObject({ toCreate: 5, invalid: 3 });
    expect(plan.messages?.threads).toMatchObject({
      replies: 3,
      roots: 2,
      reactedMessages: 3,
      reactions: 3,
      repliesByNonMembers: 3,
      reactionsByNonMembers: 3,
      nonMemberChannels: [imported, room].sort(),
    });
    const rows = await listRows(database.db, planned.id, { limit: 10 });
    const issues = rows.map((one) =>
      one.planIssues
        .map((issue) => `${issue.field} ${issue.severity}: ${issue.message}`)
        .join(" / "),
    );
    expect(rows.map((one) => one.state)).toEqual([
      "pending",
      "pending",
      "invalid",
      "invalid",
      "pending",
      "pending",
      "pending",
      "invalid",
    ]);
    expect(issues[0]).toContain(
      `reactions warning: Reacting users "${outsider}", "${invited}" are not members of the group channel "${room}"`,
    );
    expect(issues[0]).toContain("these 2 reactions are left out (heart by");
    expect(issues[2]).toContain(
      `user_id error: Sender "${outsider}" is not a member of the group channel "${room}"`,
    );
    expect(issues[3]).toContain(`Sender "${invited}" is not a member`);
    expect(issues[4]).not.toContain("member");
    expect(issues[5]).toContain(
      `Reacting user "${outsider}" is not a member of the group channel "${imported}"`,
    );
    expect(issues[6]).not.toContain("member");
    expect(rows[0]!.reactions).toEqual([{ key: "heart", user_ids: [senders[1]] }]);
    expect(rows[5]!.reactions).toEqual([{ key: "heart", user_ids: [newcomer] }]);

    // Planned again once the outsider has joined: their reply and reactions come back.
    await client.groupChannels.invite(room, { user_ids: [outsider] });
    await requestPlan(database.db, planned.id);
    const again = (await waitForPlan(handle(), sandbox, planned.id)).plan as JobPlan;
    expect(again.messages?.threads).toMatchObject({
      replies: 4,
      repliesByNonMembers: 2,
      reactionsByNonMembers: 2,
      reactions: 4,
    });
    const [first] = await listRows(database.db, planned.id, { limit: 1 });
    expect(first!.reactions).toEqual([{ key: "heart", user_ids: [senders[1], outsider] }]);

    // Rehearsed: what the plan kept is sent, and the platform takes all of it.
    expect(await rehearse(planned.id)).toMatchObject({
      state: "done",
      created: 6,
      failed: 0,
      threads: { replies: 4, repliesFailed: 0, reactions: 4, reactionsFailed: 0 },
    });
    // Verify expects the reactions the plan kept, not the cell's ("smile" by the invited).
    const verified = await verify(planned.id, "rehearsal");
    expect(verified, verified.error ?? "").toMatchObject({
      state: "done",
      counts: { missing: 0, extra: 0, different: 0 },
    });
  }, 300_000);

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
