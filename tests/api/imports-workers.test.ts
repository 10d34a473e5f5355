import { randomBytes } from "node:crypto";
import { eq } from "drizzle-orm";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openDatabase, type DatabaseHandle } from "@/lib/db/client";
import { importRows } from "@/lib/db/schema";
import { controlJob } from "@/lib/imports/jobs/run/control";
import { startImportRunner } from "@/lib/imports/jobs/worker/runner";
import type { ResponseInfo } from "@/lib/platform/client";
import { listRows, requireJob, rowCounts } from "@/lib/imports/jobs/store/jobs";
import {
  messagesFile,
  messagesMapping,
  threadsMapping,
  usersFile,
  usersMapping,
} from "@/tests/fixtures/imports";
import { sharedSandbox } from "./support/http";
import { expectThreadsOnPlatform, threadTargetAndFile } from "./support/threads";
import { clientFor, createPlannedJob } from "./imports-harness";

const databaseUrl = process.env.TEST_DATABASE_URL;

/**
 * Two workers, each with its own connection pool (as two processes would have), share one
 * job on PostgreSQL: SKIP LOCKED claims mean no row is sent twice. Needs TEST_DATABASE_URL.
 */
describe.skipIf(!databaseUrl)("two workers on one PostgreSQL job", () => {
  const sandbox = sharedSandbox();
  const schemaName = `t_${randomBytes(6).toString("hex")}`;
  let first: DatabaseHandle;
  let second: DatabaseHandle;

  beforeAll(async () => {
    first = await openDatabase({ url: databaseUrl, schemaName });
    second = await openDatabase({ url: databaseUrl, schemaName });
  });
  afterAll(async () => {
    await Promise.all([first?.close(), second?.close()]);
    const client = new pg.Client({ connectionString: databaseUrl });
    await client.connect();
    await client.query(`drop schema if exists ${schemaName} cascade`).finally(() => client.end());
  });

  /** Runs the job to completion with one runner on each pool; `seen` sees every answer. */
  async function runOnBoth(
    jobId: string,
    concurrency: number,
    seen: (worker: number, info: ResponseInfo) => void,
  ) {
    await controlJob(first.db, jobId, "run");
    const runners = [first, second].map((handle, i) =>
      startImportRunner({
        getDb: async () => handle.db,
        createClient: async (hooks) =>
          clientFor(sandbox, {
            ...hooks,
            onResponse: (info) => {
              seen(i, info);
              hooks.onResponse(info);
            },
          }),
        workerId: `worker-${i}`,
        concurrency,
        pollMs: 50,
        log: () => {},
      }),
    );
    try {
      const deadline = Date.now() + 60_000;
      while ((await requireJob(first.db, jobId)).status !== "completed") {
        if (Date.now() > deadline) throw new Error("the job did not complete");
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
    } finally {
      await Promise.all(runners.map((runner) => runner.stop()));
    }
  }

  it("sends every row exactly once between them", async () => {
    const planned = await createPlannedJob(
      first,
      sandbox,
      "users",
      usersFile(1500, `pg_${randomBytes(4).toString("hex")}`),
      usersMapping,
    );
    const posts = [0, 0];
    await runOnBoth(planned.id, 8, (worker, info) => {
      if (info.method === "POST") posts[worker]!++;
    });
    expect(await rowCounts(first.db, planned.id)).toMatchObject({
      created: 1500,
      existed: 0,
      failed: 0,
    });
    // Both worked, and between them sent each row once.
    expect(posts[0]).toBeGreaterThan(100);
    expect(posts[1]).toBeGreaterThan(100);
    expect(posts[0]! + posts[1]!).toBe(1500);
    const rows = await first.db.select().from(importRows).where(eq(importRows.jobId, planned.id));
    // One request per row: no retry, no 400202 met.
    expect(rows.every((row) => row.attempts === 1 && row.resultMessage === null)).toBe(true);
    const written = await clientFor(sandbox).users.list({
      userIds: [rows[0]!.resourceKey!],
      limit: 1,
    });
    expect(written.users).toHaveLength(1);
  });
  it("holds each channel of a messages job in one worker at a time", async () => {
    const prefix = `pgm_${randomBytes(4).toString("hex")}`;
    const client = clientFor(sandbox);
    const senders = [`${prefix}_a`, `${prefix}_b`];
    for (const id of senders)
      await client.users.create({ user_id: id, nickname: id, profile_url: "" });
    const channels = Array.from({ length: 12 }, (_, n) => `${prefix}_c${n}`);
    for (const url of channels)
      await client.groupChannels.create({ channel_url: url, user_ids: senders });
    // 300 messages a channel: three requests each, so a channel is held across requests.
    const file = messagesFile(channels, senders, 300, { prefix });
    const planned = await createPlannedJob(first, sandbox, "messages", file, messagesMapping);
    /** Each migration request: its channel, worker, and when it was in flight. */
    const requests: Array<{ channel: string; worker: number; from: number; to: number }> = [];
    await runOnBoth(planned.id, 4, (worker, info) => {
      const channel = /\/v3\/migration\/([^/?]+)/.exec(info.url)?.[1];
      const to = performance.now();
      if (channel) requests.push({ channel, worker, from: to - info.latencyMs, to });
    });
    expect(await rowCounts(first.db, planned.id)).toMatchObject({
      created: file.rows.length,
      failed: 0,
    });
    // Both worked; no message was sent twice, and no channel had two requests in flight.
    expect(new Set(requests.map((request) => request.worker)).size).toBe(2);
    expect(requests).toHaveLength(channels.length * 3);
    for (const channel of channels) {
      const sent = requests
        .filter((request) => request.channel === channel)
        .sort((a, b) => a.from - b.from);
      for (let n = 1; n < sent.length; n++)
        expect(sent[n]!.from).toBeGreaterThanOrEqual(sent[n - 1]!.to - 1);
    }
    // Created as the report reads them: every message its channel's sending passed.
    const rows = await listRows(first.db, planned.id, { limit: file.rows.length + 1 });
    expect(rows).toHaveLength(file.rows.length);
    expect(rows.every((row) => row.state === "created" && row.resultMessage === null)).toBe(true);
    const listed = await client.messages.list("group_channels", channels[0]!, {
      messageTs: 0,
      nextLimit: 200,
      prevLimit: 0,
    });
    expect(listed.messages).toHaveLength(200);
    const times = listed.messages.map((message) => message.created_at);
    expect(times).toEqual([...times].sort((a, b) => a - b));
  });

  it("shares the replies stage of a threads job: each reply and reaction sent once between them", async () => {
    const client = clientFor(sandbox);
    const { urls, file } = await threadTargetAndFile(client, "pgt", 8, {
      messages: 30,
      replies: 10,
      roots: 3,
      reactions: 12,
    });
    const planned = await createPlannedJob(first, sandbox, "messages", file, threadsMapping);
    const sends = [0, 0];
    const reactions = [0, 0];
    await runOnBoth(planned.id, 2, (worker, info) => {
      if (info.method !== "POST") return;
      if (/\/messages\/\d+\/reactions$/.test(new URL(info.url).pathname)) reactions[worker]!++;
      else if (/\/group_channels\/[^/]+\/messages$/.test(new URL(info.url).pathname))
        sends[worker]!++;
    });
    expect(await rowCounts(first.db, planned.id)).toMatchObject({
      created: file.rows.length,
      failed: 0,
      threadsFailed: 0,
    });
    // Both took channels of the stage, and between them sent each reply and reaction once.
    expect(sends[0]! + reactions[0]!).toBeGreaterThan(0);
    expect(sends[1]! + reactions[1]!).toBeGreaterThan(0);
    expect(sends[0]! + sends[1]!).toBe(urls.length * 10);
    expect(reactions[0]! + reactions[1]!).toBe(file.reactionCount);
    expect(await expectThreadsOnPlatform(client, file, urls)).toEqual({
      replies: urls.length * 10,
      reactions: file.reactionCount,
    });
  });

  it("shares a newer export's edits: each edited message updated once between them", async () => {
    const client = clientFor(sandbox);
    const { prefix, urls, file } = await threadTargetAndFile(client, "pge", 8, {
      messages: 6,
      replies: 0,
      roots: 1,
      reactions: 0,
    });
    const firstJob = await createPlannedJob(first, sandbox, "messages", file, threadsMapping);
    await runOnBoth(firstJob.id, 2, () => {});

    // The newer export: the first message of every channel edited since.
    const edited = new Set(urls.map((_, c) => `${prefix}-${c}-0`));
    const newer = {
      columns: file.columns,
      rows: file.rows.map((row) =>
        edited.has(row[4]!) ? [...row.slice(0, 2), `${row[2]} (edited)`, ...row.slice(3)] : row,
      ),
    };
    const delta = await createPlannedJob(first, sandbox, "messages", newer, threadsMapping);
    const updates: string[] = [];
    await runOnBoth(delta.id, 2, (_, info) => {
      if (info.method === "PUT") updates.push(new URL(info.url).pathname);
    });
    expect(await rowCounts(first.db, delta.id)).toMatchObject({
      existed: file.rows.length,
      failed: 0,
    });
    // Each channel's edit sent once, by whichever worker held the channel.
    expect(updates).toHaveLength(urls.length);
    expect(new Set(updates).size).toBe(urls.length);
    for (const url of urls) {
      const page = await client.messages.list("group_channels", url, {
        messageTs: 0,
        prevLimit: 0,
        nextLimit: 10,
      });
      expect(page.messages[0]?.message).toBe(`message 0 of ${url} (edited)`);
    }
  });
});
