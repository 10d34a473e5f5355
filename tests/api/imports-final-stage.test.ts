import { randomBytes } from "node:crypto";
import { describe, expect, it } from "vitest";
import { finalStage, requestFinalStage } from "@/lib/imports/jobs/finish/steps";
import { rowRequests } from "@/lib/imports/jobs/report/report";
import {
  messagesMapping,
  usersFile,
  usersMapping,
  type ImportFile,
} from "@/tests/fixtures/imports";
import {
  channelHistory,
  clientFor,
  createPlannedJob,
  finishMigration,
  runJob,
  useJobDatabase,
} from "./imports-harness";
import { call, sharedSandbox } from "./support/http";

/**
 * The migration's last stage (DESIGN "Stage order"): a users row marked inactive is created
 * active and deactivated only after the messages; a sender deactivated on the platform before
 * the job is reactivated for its messages and deactivated again; with `createUnknownSenders`
 * an unknown sender is created for its messages and deactivated last.
 */
describe("the migration's last stage", () => {
  const sandbox = sharedSandbox();
  const jobs = useJobDatabase();

  const message = (channel: string, from: string, at: number, id: string) => [
    channel,
    "text",
    from,
    `message ${id}`,
    String(1_700_000_000 + at),
    id,
    "",
  ];

  it("deactivates the file's inactive users and a sender deactivated beforehand only after every message is in", async () => {
    const { db } = jobs.handle;
    const prefix = `fin_${randomBytes(4).toString("hex")}`;
    const client = clientFor(sandbox);
    // Before the job: someone who left, already deactivated on the platform (a deleted user).
    const gone = `${prefix}_gone`;
    await client.users.create({ user_id: gone, nickname: "Gone", profile_url: "" });

    // Users: rows 0 and 2 inactive.
    const users = await createPlannedJob(
      jobs.handle,
      sandbox,
      "users",
      usersFile(4, prefix, { inactiveEvery: 2 }),
      usersMapping,
    );
    expect(users.plan).toMatchObject({ toCreate: 4, followUps: { deactivate: 2 } });
    // Show request names the deferred deactivation, which keeps the user's channels.
    expect((await rowRequests(db, users.id, { rowIndex: 0 }))!.requests.at(-1)).toEqual({
      method: "PUT",
      path: `/v3/users/${prefix}_0`,
      body: { is_active: false, leave_all_when_deactivated: false },
    });
    await runJob(jobs.handle, sandbox, users.id);
    // Created active: their deactivation waits for the last stage.
    for (const at of [0, 1, 2, 3])
      expect((await client.users.get(`${prefix}_${at}`)).is_active, `${prefix}_${at}`).toBe(true);

    const senders = [`${prefix}_0`, `${prefix}_1`, `${prefix}_2`, gone];
    const channel = `${prefix}_room`;
    await client.groupChannels.create({ channel_url: channel, user_ids: senders });
    await client.users.update(gone, { is_active: false, leave_all_when_deactivated: false });

    const file: ImportFile = {
      columns: ["channel", "type", "from", "text", "ts", "id", "url"],
      rows: Array.from({ length: 40 }, (_, at) =>
        message(channel, senders[at % senders.length]!, at, `${prefix}-${at}`),
      ),
    };
    const messages = await createPlannedJob(
      jobs.handle,
      sandbox,
      "messages",
      file,
      messagesMapping,
    );
    expect(messages.plan).toMatchObject({
      toCreate: 40,
      invalid: 0,
      messages: { missingSenders: [], reactivateSenders: [gone], createSenders: [] },
    });
    // The overview counts the last stage before anything is sent, and does not offer it yet.
    expect(await finalStage(db, null)).toMatchObject({
      state: "waiting",
      deactivate: { toDo: 3, done: 0, failed: 0 },
      reactivated: 1,
    });
    await expect(requestFinalStage(db, null)).rejects.toThrow(
      /cannot be finished yet: the import “messages.csv” is planned/,
    );

    await runJob(jobs.handle, sandbox, messages.id);
    expect(await channelHistory(sandbox, "group_channels", channel)).toHaveLength(40);
    // Reactivated for its messages, and still active until the last stage.
    expect((await client.users.get(gone)).is_active).toBe(true);
    expect(await finalStage(db, null)).toMatchObject({ state: "ready", deactivate: { toDo: 3 } });

    const finished = await finishMigration(jobs.handle, sandbox);
    expect(finished).toMatchObject({
      state: "done",
      deactivate: { toDo: 0, done: 3, failed: 0 },
      failures: [],
    });
    for (const id of [`${prefix}_0`, `${prefix}_2`, gone])
      expect((await client.users.get(id)).is_active, id).toBe(false);
    for (const id of [`${prefix}_1`, `${prefix}_3`])
      expect((await client.users.get(id)).is_active, id).toBe(true);
    // They keep their memberships: the history keeps its members.
    const room = await call<{ members: Array<{ user_id: string }> }>(
      sandbox,
      "GET",
      `/v3/group_channels/${channel}?show_member=true`,
    );
    expect(room.body.members.map((member) => member.user_id).sort()).toEqual([...senders].sort());
    // Asking again adds nothing and sends nothing.
    expect(await requestFinalStage(db, null)).toMatchObject({
      state: "done",
      deactivate: { done: 3 },
    });
  });

  it("creates unknown senders for their messages when asked, and deactivates them last", async () => {
    const { db } = jobs.handle;
    const prefix = `unk_${randomBytes(4).toString("hex")}`;
    const client = clientFor(sandbox);
    const known = `${prefix}_known`;
    const ghost = `${prefix}_ghost`;
    await client.users.create({ user_id: known, nickname: "Known", profile_url: "" });
    const channel = `${prefix}_room`;
    await client.openChannels.create({ channel_url: channel });
    const file: ImportFile = {
      columns: ["channel", "type", "from", "text", "ts", "id", "url"],
      rows: Array.from({ length: 6 }, (_, at) =>
        message(channel, at % 2 === 0 ? known : ghost, at, `${prefix}-${at}`),
      ),
    };
    // Without the option, the unknown sender's messages are left out.
    const without = await createPlannedJob(jobs.handle, sandbox, "messages", file, messagesMapping);
    expect(without.plan).toMatchObject({
      toCreate: 3,
      invalid: 3,
      messages: { missingSenders: [ghost], createSenders: [] },
    });
    const { controlJob } = await import("@/lib/imports/jobs/run/control");
    await controlJob(db, without.id, "cancel");

    const planned = await createPlannedJob(
      jobs.handle,
      sandbox,
      "messages",
      file,
      messagesMapping,
      {
        jobOptions: { createUnknownSenders: true },
      },
    );
    expect(planned.plan).toMatchObject({
      toCreate: 6,
      invalid: 0,
      warnings: 3,
      messages: { missingSenders: [], createSenders: [ghost] },
    });
    await runJob(jobs.handle, sandbox, planned.id);
    expect(await channelHistory(sandbox, "open_channels", channel)).toHaveLength(6);
    expect(await client.users.get(ghost)).toMatchObject({
      nickname: ghost,
      profile_url: "",
      is_active: true,
    });
    expect(await finishMigration(jobs.handle, sandbox)).toMatchObject({
      state: "done",
      createdSenders: 1,
    });
    expect((await client.users.get(ghost)).is_active).toBe(false);
    expect((await client.users.get(known)).is_active).toBe(true);
  });
});
