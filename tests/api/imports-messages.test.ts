import { randomBytes } from "node:crypto";
import { describe, expect, it } from "vitest";
import { listRows, rowCounts } from "@/lib/imports/jobs/store/jobs";
import type { JobPlan } from "@/lib/imports/jobs/plan/plan";
import {
  messagesFile,
  messagesMapping,
  usersFile,
  usersMapping,
  type ImportFile,
} from "@/tests/fixtures/imports";
import { sharedSandbox } from "./support/http";
import { startRehearsal } from "@/lib/imports/jobs/rehearse/rehearsal";
import type { Rehearsal } from "@/lib/imports/types";
import {
  channelHistory,
  clientFor,
  createPlannedJob,
  finishMigration,
  runJob,
  startTestPlanner,
  useJobDatabase,
  waitForJob,
} from "./imports-harness";

describe("a messages import against the sandbox", () => {
  const sandbox = sharedSandbox();
  const jobs = useJobDatabase();

  it("stores exactly the valid messages of each channel in time order, once, even when run twice", async () => {
    const prefix = `msg_${randomBytes(4).toString("hex")}`;
    const client = clientFor(sandbox);
    const senders = [`${prefix}_ann`, `${prefix}_bob`, `${prefix}_cy`];
    for (const id of senders)
      await client.users.create({ user_id: id, nickname: id, profile_url: "" });
    const group = `${prefix}_group`;
    const open = `${prefix}_open`;
    await client.groupChannels.create({
      channel_url: group,
      name: "Sales floor",
      user_ids: senders,
    });
    await client.openChannels.create({ channel_url: open });
    // A channel imported here, named by the messages through its old system's id.
    const roomSource = `${prefix}-room`;
    const channels = await createPlannedJob(
      jobs.handle,
      sandbox,
      "group_channels",
      { columns: ["id", "members"], rows: [[roomSource, senders.join(";")]] },
      { id: "source_id", members: "user_ids" },
    );
    await runJob(jobs.handle, sandbox, channels.id);
    const [roomRow] = await listRows(jobs.handle.db, channels.id, { limit: 1 });
    const room = roomRow!.resourceKey!;

    const file: ImportFile = messagesFile([group, open, roomSource], senders, 230, { prefix });
    const valid = file.rows.length;
    file.rows.push([group, "file", senders[0]!, "", "1700000500", `${prefix}-nourl`, ""]); // FILE without url
    file.rows.push([group, "text", `${prefix}_ghost`, "who?", "1700000501", `${prefix}-ghost`, ""]); // not a user
    file.rows.push([
      `${prefix}_nowhere`,
      "text",
      senders[0]!,
      "lost",
      "1700000502",
      `${prefix}-lost`,
      "",
    ]); // no such channel
    file.rows.push([group, "text", senders[1]!, "again", "1700000503", `${prefix}-0-4`, ""]); // same source id, same channel
    file.rows.push([group, "poll", senders[1]!, "?", "1700000504", `${prefix}-poll`, ""]); // unknown type
    file.rows.push([group, "text", senders[1]!, "when?", "last tuesday", `${prefix}-when`, ""]); // unreadable time

    const planned = await createPlannedJob(jobs.handle, sandbox, "messages", file, messagesMapping);
    expect(planned.status).toBe("planned");
    const plan = planned.plan as JobPlan;
    expect(plan).toMatchObject({ toCreate: valid, invalid: 6 });
    expect(plan.messages).toMatchObject({
      channels: 3,
      requests: 9, // 230 messages per channel: 3 requests each
      firstTimestamp: 1_700_000_000_000,
      lastTimestamp: 1_700_000_229_000,
      missingChannels: [`${prefix}_nowhere`],
      missingSenders: [`${prefix}_ghost`],
    });
    // The largest channels are shown with their names: the platform's, or their import's.
    expect(plan.messages!.largestChannels.find((c) => c.channelUrl === group)?.name).toBe(
      "Sales floor",
    );
    expect(plan.messages!.largestChannels.map((channel) => channel.channelUrl).sort()).toEqual(
      [group, open, room].sort(),
    );

    // The rehearsal sends the same requests to a scratch application first.
    await startRehearsal(jobs.handle.db, planned.id);
    const planner = startTestPlanner(jobs.handle, sandbox);
    const rehearsed = await waitForJob(
      jobs.handle.db,
      planned.id,
      (job) => (job.rehearsal as Rehearsal | null)?.state !== "running",
    ).finally(() => planner.stop());
    expect(rehearsed.rehearsal).toMatchObject({ state: "done", created: valid, failed: 0 });

    const { job } = await runJob(jobs.handle, sandbox, planned.id, { concurrency: 4 });
    expect(job.status).toBe("completed");
    expect(await rowCounts(jobs.handle.db, job.id)).toMatchObject({
      created: valid,
      invalid: 6,
      failed: 0,
      pending: 0,
    });

    for (const [kind, url] of [
      ["group_channels", group],
      ["open_channels", open],
      ["group_channels", room],
    ] as const) {
      const history = await channelHistory(sandbox, kind, url);
      expect(history).toHaveLength(230);
      expect(history.map((message) => message.created_at)).toEqual(
        Array.from({ length: 230 }, (_, n) => (1_700_000_000 + n) * 1000),
      );
      expect(
        history
          .filter((message) => message.type === "FILE")
          .every((message) => message.file?.url.startsWith("https://files.example/")),
      ).toBe(true);
      expect(
        history
          .filter((message) => message.type === "ADMM")
          .every((message) => message.user === undefined),
      ).toBe(true);
    }

    // The same file again adds nothing.
    const again = await createPlannedJob(jobs.handle, sandbox, "messages", file, messagesMapping);
    const second = await runJob(jobs.handle, sandbox, again.id, { concurrency: 4 });
    expect(second.job.status).toBe("completed");
    expect(await channelHistory(sandbox, "group_channels", group)).toHaveLength(230);
    expect(await channelHistory(sandbox, "group_channels", room)).toHaveLength(230);
  });
});

describe("the history of people who left", () => {
  const sandbox = sharedSandbox();
  const jobs = useJobDatabase();

  it("keeps the messages of senders a users import created deactivated: planned, rehearsed and sent", async () => {
    const prefix = `gone_${randomBytes(4).toString("hex")}`;
    const client = clientFor(sandbox);
    // Four people, two of whom left (rows 0 and 2 are inactive): the users import, and its
    // migration's last stage, deactivate them before these messages come.
    const users = await createPlannedJob(
      jobs.handle,
      sandbox,
      "users",
      usersFile(4, prefix, { inactiveEvery: 2 }),
      usersMapping,
    );
    await runJob(jobs.handle, sandbox, users.id);
    await finishMigration(jobs.handle, sandbox);
    const gone = [`${prefix}_0`, `${prefix}_2`];
    const active = await client.users.list({ userIds: gone, limit: 10 });
    expect(active.users).toEqual([]);

    const senders = Array.from({ length: 4 }, (_, n) => `${prefix}_${n}`);
    const group = `${prefix}_group`;
    await client.groupChannels.create({ channel_url: group, user_ids: senders });
    // 40 messages, half of them written by the two who left.
    const file: ImportFile = {
      columns: ["channel", "type", "from", "text", "ts", "id"],
      rows: Array.from({ length: 40 }, (_, n) => [
        group,
        "text",
        senders[n % 4]!,
        `message ${n}`,
        String(1_700_000_000 + n),
        `${prefix}-${n}`,
      ]),
    };
    const mapping = {
      channel: "channel_url",
      type: "message_type",
      from: "user_id",
      text: "message",
      ts: "timestamp",
      id: "source_id",
    };
    const planned = await createPlannedJob(jobs.handle, sandbox, "messages", file, mapping);
    expect(planned.plan).toMatchObject({ toCreate: 40, invalid: 0 });
    // Deactivated on the platform: reactivated for their messages, deactivated again last.
    const { messages: messagePlan } = planned.plan as JobPlan;
    expect(messagePlan?.missingSenders).toEqual([]);
    expect(messagePlan?.reactivateSenders?.toSorted()).toEqual(gone);

    await startRehearsal(jobs.handle.db, planned.id);
    const planner = startTestPlanner(jobs.handle, sandbox);
    const rehearsed = await waitForJob(
      jobs.handle.db,
      planned.id,
      (job) => (job.rehearsal as Rehearsal | null)?.state !== "running",
    ).finally(() => planner.stop());
    expect(rehearsed.rehearsal).toMatchObject({ state: "done", created: 40, failed: 0 });

    const { job } = await runJob(jobs.handle, sandbox, planned.id);
    expect(job.status).toBe("completed");
    expect(await rowCounts(jobs.handle.db, job.id)).toMatchObject({ created: 40, invalid: 0 });
    const history = await channelHistory(sandbox, "group_channels", group);
    expect(history).toHaveLength(40);
    expect(history.filter((message) => gone.includes(message.user!.user_id))).toHaveLength(20);
    await finishMigration(jobs.handle, sandbox);
    expect((await client.users.list({ userIds: gone, limit: 10 })).users).toEqual([]);
  });
});
