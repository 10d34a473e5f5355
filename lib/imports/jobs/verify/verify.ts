import "server-only";
import { randomUUID } from "node:crypto";
import { and, desc, eq, sql } from "drizzle-orm";
import type { Database } from "@/lib/db/client";
import { importVerificationFindings, importVerifications } from "@/lib/db/schema";
import { isPlatformError, type PlatformClient } from "@/lib/platform";
import { platformRetries } from "@/lib/platform/retries";
import { withRetries } from "@/lib/retry";
import { findApplication } from "@/lib/sandbox";
import type { MessageResource } from "@/lib/schemas/messages";
import { verificationCountsSchema } from "@/lib/schemas/import-jobs";
import type {
  FollowUps,
  ImportResource,
  VerificationCounts,
  VerificationScope,
} from "@/lib/imports/types";
import { StoppedEarly } from "../plan/plan";
import type { Pacer } from "../run/pacer";
import { forEachConcurrent } from "../shared/concurrency";
import { rowsOf } from "../shared/rows";
import { rowStateSql } from "../store/row-state";
import { ImportJobError, requireJob, type ImportJob } from "../store/jobs";
import {
  compareChannel,
  compareChannelMessages,
  compareMessage,
  compareUser,
  matchMessages,
  messageKey,
  type ActualChannel,
  type Comparison,
  type ExpectedMessage,
  type Finding,
} from "./compare";
import {
  expectedChannel,
  expectedMessage,
  expectedUser,
  mappedCell,
  type RootRow,
  type VerifiedRow,
} from "./expected";

export type Verification = typeof importVerifications.$inferSelect;

/** A Verify as read from the database, its counts (a JSON column) parsed. */
export function parsedVerification(row: Verification): Verification {
  return { ...row, counts: verificationCountsSchema.parse(row.counts) };
}

/** Messages compared per channel on a remote platform, unless asked otherwise. */
export const DEFAULT_SAMPLE = 20;
/** Users asked for per request (the platform's `user_ids` takes up to 100). */
const USERS_PER_PAGE = 100;
/** Channel rows verified per unit: each takes a read of the channel and of its members. */
const CHANNELS_PER_PAGE = 20;
/** Messages a list request returns at most. */
const LIST_LIMIT = 200;

const emptyCounts = (): VerificationCounts => ({ matched: 0, missing: 0, extra: 0, different: 0 });

/**
 * Asks for a Verify of the job: `run` reads the console's target after the job has run (or
 * paused, or been cancelled); `rehearsal` reads the scratch application its last rehearsal
 * kept. A worker does it in the background (`./verifier.ts`); read-only on the target.
 * `sample`: messages compared per channel (a remote platform); null compares every one.
 */
export async function requestVerification(
  db: Database,
  jobId: string,
  scope: VerificationScope,
  options: { sample: number | null },
): Promise<Verification> {
  const job = await requireJob(db, jobId);
  let appId: string | null = null;
  if (scope === "run") {
    if (job.startedAt === null)
      throw new ImportJobError("This import has not run: run it (or rehearse it) before Verify.");
    if (job.status === "running" || job.status === "cancelling")
      throw new ImportJobError(
        "This import is still sending: verify it once it has finished, or pause it first.",
      );
  } else {
    appId = job.rehearsal?.state === "done" ? (job.rehearsal.appId ?? null) : null;
    if (!appId || !(await findApplication(db, appId)))
      throw new ImportJobError(
        "There is no rehearsal to verify: its scratch application goes when the import is planned again or run. Rehearse it first.",
      );
  }
  const id = randomUUID();
  // One Verify of a job at a time: the insert happens only when none is running.
  const inserted = rowsOf<{ id: string }>(
    await db.execute(sql`
      insert into import_verifications (id, job_id, scope, app_id, sample)
      select ${id}, ${jobId}, ${scope}, ${appId}, ${options.sample}::integer
      where not exists (select 1 from import_verifications
        where job_id = ${jobId} and state = 'running')
      returning id`),
  );
  if (inserted.length === 0)
    throw new ImportJobError(
      "A Verify of this import is running already: wait for it, or cancel it.",
    );
  return (await findVerification(db, id))!;
}

/** Stops the running Verify of the job; what it found so far is kept. */
export async function cancelVerification(db: Database, jobId: string): Promise<void> {
  await requireJob(db, jobId);
  const stopped = await db
    .update(importVerifications)
    .set({ state: "cancelled", finishedAt: new Date(), claimedBy: null, claimedUntil: null })
    .where(and(eq(importVerifications.jobId, jobId), eq(importVerifications.state, "running")))
    .returning({ id: importVerifications.id });
  if (stopped.length === 0) throw new ImportJobError("No Verify of this import is running.");
}

export async function findVerification(
  db: Database,
  id: string,
): Promise<Verification | undefined> {
  const [row] = await db.select().from(importVerifications).where(eq(importVerifications.id, id));
  return row && parsedVerification(row);
}

/** The job's newest Verify of each scope. */
export async function latestVerifications(
  db: Database,
  jobId: string,
): Promise<Partial<Record<VerificationScope, Verification>>> {
  const rows = await db
    .select()
    .from(importVerifications)
    .where(eq(importVerifications.jobId, jobId))
    .orderBy(desc(importVerifications.createdAt))
    .limit(50);
  const latest: Partial<Record<VerificationScope, Verification>> = {};
  for (const row of rows) latest[row.scope] ??= parsedVerification(row);
  return latest;
}

export type VerifyOptions = {
  /** Reads wait for it: the platform's read limit, learned from its answers. */
  pacer: Pacer;
  /** The worker holding the claim; its saves stop counting once the claim is another's. */
  workerId: string | null;
  shouldStop?: () => boolean;
};

/**
 * Works a requested Verify to its end, a unit at a time from where it stands; each unit's
 * findings, counts and cursor are saved in one transaction. Throws `StoppedEarly` when it is
 * cancelled, its claim is lost, or `shouldStop` says so: what is saved stays, and the rest is
 * done by whoever takes it up. Only reads the target.
 */
export async function runVerification(
  db: Database,
  client: PlatformClient,
  verificationId: string,
  options: VerifyOptions,
): Promise<void> {
  let verification = await findVerification(db, verificationId);
  if (verification?.state !== "running") return;
  const job = await requireJob(db, verification.jobId);
  const read = <T>(call: () => Promise<T>) =>
    withRetries(async () => {
      await options.pacer.acquire();
      return call();
    }, platformRetries());

  const units = unitsOf(db, job, verification.scope);
  if (verification.done === 0 && verification.cursor === null) {
    const total = await units.count();
    await db
      .update(importVerifications)
      .set({ total })
      .where(eq(importVerifications.id, verificationId));
    verification = { ...verification, total };
  }
  let cursor = verification.cursor;
  for (;;) {
    if (options.shouldStop?.()) throw new StoppedEarly();
    const unit = await units.next(cursor);
    if (!unit) break;
    const outcome = await unit.compare(client, read, verification.sample);
    await saveUnit(db, verificationId, options.workerId, {
      cursor: unit.cursor,
      done: unit.size,
      outcome,
    });
    cursor = unit.cursor;
  }
  await db
    .update(importVerifications)
    .set({ state: "done", finishedAt: new Date(), claimedBy: null, claimedUntil: null })
    .where(
      and(eq(importVerifications.id, verificationId), eq(importVerifications.state, "running")),
    );
}

/** Records a failure the worker could not get past (the target refused a read, say). */
export async function failVerification(
  db: Database,
  verificationId: string,
  error: unknown,
): Promise<void> {
  const message = error instanceof Error ? error.message : String(error);
  await db
    .update(importVerifications)
    .set({
      state: "failed",
      error: `Verify stopped: ${message}`,
      finishedAt: new Date(),
      claimedBy: null,
      claimedUntil: null,
    })
    .where(
      and(eq(importVerifications.id, verificationId), eq(importVerifications.state, "running")),
    );
}

async function saveUnit(
  db: Database,
  verificationId: string,
  workerId: string | null,
  unit: { cursor: string; done: number; outcome: Comparison },
) {
  const delta = emptyCounts();
  delta.matched = unit.outcome.matched;
  for (const finding of unit.outcome.findings) delta[finding.kind]++;
  await db.transaction(async (tx) => {
    const kept = await tx.execute(sql`
      update import_verifications set cursor = ${unit.cursor}, done = done + ${unit.done},
        counts = jsonb_build_object(
          'matched', (counts ->> 'matched')::int + ${delta.matched}::int,
          'missing', (counts ->> 'missing')::int + ${delta.missing}::int,
          'extra', (counts ->> 'extra')::int + ${delta.extra}::int,
          'different', (counts ->> 'different')::int + ${delta.different}::int)
      where id = ${verificationId} and state = 'running'
        ${workerId === null ? sql`` : sql`and claimed_by = ${workerId}`}
      returning id`);
    if (rowsOf(kept).length === 0) throw new StoppedEarly();
    if (unit.outcome.findings.length > 0) {
      await tx
        .insert(importVerificationFindings)
        .values(unit.outcome.findings.map((finding) => ({ verificationId, ...finding })));
    }
  });
}

type Read = <T>(call: () => Promise<T>) => Promise<T>;

type Unit = {
  /** Where the Verify stands once this unit is saved. */
  cursor: string;
  /** Units it counts for in `done`. */
  size: number;
  compare: (client: PlatformClient, read: Read, sample: number | null) => Promise<Comparison>;
};

/** The units of a job: pages of users, pages of channel rows, or one channel's messages. */
function unitsOf(db: Database, job: ImportJob, scope: VerificationScope) {
  if (job.resource === "messages") {
    return {
      count: async () => (await messageChannels(db, job.id, null, null)).length,
      next: async (cursor: string | null): Promise<Unit | undefined> => {
        const [channelUrl] = await messageChannels(db, job.id, cursor, 1);
        if (channelUrl === undefined) return undefined;
        return {
          cursor: channelUrl,
          size: 1,
          compare: (client, read, sample) =>
            verifyChannelMessages(db, job, scope, channelUrl, client, read, sample),
        };
      },
    };
  }
  const pageSize = job.resource === "users" ? USERS_PER_PAGE : CHANNELS_PER_PAGE;
  return {
    count: async () => {
      const [row] = rowsOf<{ n: number }>(
        await db.execute(sql`select count(*)::int as n from import_rows
          where job_id = ${job.id} and state in ${sql.raw(storedStatesOf(scope))}`),
      );
      return Number(row?.n ?? 0);
    },
    next: async (cursor: string | null): Promise<Unit | undefined> => {
      const rows = await verifiedRows(db, job.id, scope, {
        after: cursor === null ? -1 : Number(cursor),
        limit: pageSize,
      });
      if (rows.length === 0) return undefined;
      return {
        cursor: String(rows.at(-1)!.rowIndex),
        size: rows.length,
        compare: (client, read) =>
          job.resource === "users"
            ? verifyUsers(rows, client, read)
            : verifyChannels(rows, job.resource, client, read),
      };
    },
  };
}

/** Rows a Verify of `scope` compares: stored states that may stand for them (see `verifiedRows`). */
function storedStatesOf(scope: VerificationScope): string {
  return scope === "run" ? "('pending', 'created', 'existed')" : "('pending')";
}

/**
 * The run's rows as they stand that are on the target: created, existed, or failed only in
 * the update a newer export's edit asked for (the message is there, in its earlier version).
 */
function onTargetSql(state: string): string {
  return `(${state} in ('created', 'existed') or r.edit_state = 'failed')`;
}

/**
 * The rows a Verify compares, in row order, each with its state as it stands. The run's: what the
 * job put on the target (created) or found there (existed, a message whose update failed
 * included: Verify then names what differs). A rehearsal's: every row it sent to its scratch
 * application, which are the rows still pending (a rehearsal changes no row), read as created.
 */
async function verifiedRows(
  db: Database,
  jobId: string,
  scope: VerificationScope,
  where: { after?: number; limit?: number; channelUrl?: string },
): Promise<Array<VerifiedRow & { key: string | null; sourceId: string | null }>> {
  const state = scope === "run" ? rowStateSql("r") : "'created'";
  const rows = rowsOf<{
    row_index: number;
    state: string;
    values: string[];
    body: Record<string, unknown> | null;
    follow_ups: FollowUps | null;
    resource_key: string | null;
    source_id: string | null;
    last_stage_done: boolean;
    planned_reactions: Array<{ key: string; user_ids: string[] }> | null;
  }>(
    await db.execute(sql`
      select r.row_index, ${sql.raw(state)} as state, r.values, r.body, r.follow_ups,
        r.resource_key, r.source_id,
        ${sql.raw(scope === "run" ? lastStageDoneSql : "false")} as last_stage_done,
        case when r.reactions_as_uploaded is not null then coalesce(r.reactions, '[]'::jsonb) end
          as planned_reactions
      from import_rows as r
      where r.job_id = ${jobId}
        and (r.state in ${sql.raw(storedStatesOf(scope))}
          ${scope === "run" ? sql`or r.edit_state = 'failed'` : sql``})
        ${where.after === undefined ? sql`` : sql`and r.row_index > ${where.after}`}
        ${where.channelUrl === undefined ? sql`` : sql`and r.resource_key = ${where.channelUrl}`}
        and ${sql.raw(scope === "run" ? onTargetSql(state) : "r.body is not null")}
      order by r.row_index
      ${where.limit === undefined ? sql`` : sql`limit ${where.limit}`}`),
  );
  return rows.map((row) => ({
    rowIndex: Number(row.row_index),
    state: row.state,
    values: row.values,
    body: row.body,
    followUps: row.follow_ups,
    key: row.resource_key,
    sourceId: row.source_id,
    lastStageDone: row.last_stage_done,
    ...(row.planned_reactions ? { plannedReactions: row.planned_reactions } : {}),
  }));
}

/**
 * Whether the migration's last stage has deactivated or frozen what the row asked for: until
 * then the row's user is active and its channel open (lib/imports/jobs/finish). A rehearsal
 * never runs the last stage.
 */
const lastStageDoneSql = `exists (select 1 from import_final_steps as s
  where s.job_id = r.job_id and s.row_index = r.row_index and s.state = 'done')`;

async function verifyUsers(
  rows: VerifiedRow[],
  client: PlatformClient,
  read: Read,
): Promise<Comparison> {
  const expected = rows.map(expectedUser);
  const page = await read(() =>
    client.users.list({
      userIds: expected.map((user) => user.userId),
      limit: USERS_PER_PAGE,
      activeMode: "all",
    }),
  );
  const found = new Map(page.users.map((user) => [user.user_id, user]));
  const findings: Finding[] = [];
  let matched = 0;
  for (const user of expected) {
    const differences = compareUser(user, found.get(user.userId));
    if (differences.length === 0) matched++;
    findings.push(...differences);
  }
  return { matched, findings };
}

async function verifyChannels(
  rows: Array<VerifiedRow & { key: string | null }>,
  resource: ImportResource,
  client: PlatformClient,
  read: Read,
): Promise<Comparison> {
  const group = resource === "group_channels";
  const outcomes = new Map<number, Finding[]>();
  await forEachConcurrent(rows, 4, async (row) => {
    const channelUrl = row.key ?? "";
    const expected = expectedChannel(row, group, channelUrl);
    const actual = await readChannel(client, read, channelUrl, group, !expected.existenceOnly);
    outcomes.set(row.rowIndex, compareChannel(expected, actual));
  });
  const findings = rows.flatMap((row) => outcomes.get(row.rowIndex) ?? []);
  const matched = rows.filter((row) => outcomes.get(row.rowIndex)?.length === 0).length;
  return { matched, findings };
}

async function readChannel(
  client: PlatformClient,
  read: Read,
  channelUrl: string,
  group: boolean,
  withMembers: boolean,
): Promise<ActualChannel | undefined> {
  try {
    const channel = await read<Record<string, unknown>>(() =>
      group ? client.groupChannels.get(channelUrl) : client.openChannels.get(channelUrl),
    );
    const actual: ActualChannel = { fields: channel };
    if (group && withMembers) {
      const members: string[] = [];
      let token = "";
      do {
        const page = await read(() =>
          client.groupChannels.members(channelUrl, { limit: 100, token }),
        );
        members.push(...page.members.map((member) => member.user_id));
        token = page.next;
      } while (token);
      actual.members = members;
    }
    return actual;
  } catch (error) {
    if (isPlatformError(error, 400201)) return undefined;
    throw error;
  }
}

/** The job's channels with messages it put on the target, after `after`, in URL order. */
async function messageChannels(
  db: Database,
  jobId: string,
  after: string | null,
  limit: number | null,
): Promise<string[]> {
  return rowsOf<{ url: string }>(
    await db.execute(sql`
      select distinct resource_key as url from import_rows
      where job_id = ${jobId}
        and (state in ('pending', 'created', 'existed') or edit_state = 'failed')
        and resource_key is not null and body ? 'timestamp'
        ${after === null ? sql`` : sql`and resource_key > ${after}`}
      order by resource_key
      ${limit === null ? sql`` : sql`limit ${limit}`}`),
  ).map((row) => row.url);
}

/** What every read of messages asks for: replies too, with their roots, reactions and marks. */
const messageDetails = {
  includeReplyType: "all",
  includeReactions: true,
  includeParentMessageInfo: true,
  withSortedMetaArray: true,
} as const;

async function verifyChannelMessages(
  db: Database,
  job: ImportJob,
  scope: VerificationScope,
  channelUrl: string,
  client: PlatformClient,
  read: Read,
  sample: number | null,
): Promise<Comparison> {
  const rows = await verifiedRows(db, job.id, scope, { channelUrl });
  const roots = await rootRows(db, job, channelUrl, rows);
  const expected = rows
    .map((row) => expectedMessage(job, row, roots))
    .sort((a, b) => a.timestamp - b.timestamp || a.rowIndex - b.rowIndex);
  const kind = await channelKind(client, read, channelUrl);
  if (kind === null) {
    return {
      matched: 0,
      findings: expected.map((row) => ({
        kind: "missing",
        rowIndex: row.rowIndex,
        key: messageKey(channelUrl, row.timestamp, row.dedupId),
        field: null,
        reason: `Channel "${channelUrl}" is not on the target, so neither is this message.`,
      })),
    };
  }
  if (sample === null) {
    const listed = await listChannel(client, read, kind, channelUrl);
    return compareChannelMessages(channelUrl, expected, listed);
  }
  return sampleChannel(client, read, kind, channelUrl, expected, sample);
}

/** Every message of the channel, replies included, in time order, a page of 200 at a time. */
async function listChannel(
  client: PlatformClient,
  read: Read,
  kind: "group_channels" | "open_channels",
  channelUrl: string,
): Promise<MessageResource[]> {
  const messages: MessageResource[] = [];
  let after: number | null = null;
  for (;;) {
    const page = await read(() =>
      client.messages.list(kind, channelUrl, {
        ...(after === null
          ? { messageTs: 1, include: true }
          : { messageId: after, include: false }),
        prevLimit: 0,
        nextLimit: LIST_LIMIT,
        ...messageDetails,
      }),
    );
    messages.push(...page.messages);
    if (page.messages.length < LIST_LIMIT) return messages;
    after = page.messages.at(-1)!.message_id;
  }
}

/**
 * A remote platform: the channel's count against the import's, then `sample` messages spread
 * over the channel's time, each read where it should be (one request each) and compared.
 */
async function sampleChannel(
  client: PlatformClient,
  read: Read,
  kind: "group_channels" | "open_channels",
  channelUrl: string,
  expected: ExpectedMessage[],
  sample: number,
): Promise<Comparison> {
  const findings: Finding[] = [];
  let matched = 0;
  const { total } = await read(() => client.messages.totalCount(kind, channelUrl));
  if (total < expected.length) {
    findings.push({
      kind: "missing",
      rowIndex: null,
      key: channelUrl,
      field: null,
      reason: `Channel "${channelUrl}" holds ${total} messages; the import put ${expected.length} in it, so at least ${expected.length - total} are missing.`,
    });
  }
  const picked = pickSample(expected, sample);
  for (const row of picked) {
    const page = await read(() =>
      client.messages.list(kind, channelUrl, {
        messageTs: row.timestamp,
        include: true,
        prevLimit: 0,
        nextLimit: LIST_LIMIT,
        ...messageDetails,
      }),
    );
    const atTime = page.messages.filter((message) => message.created_at === row.timestamp);
    const { pairs } = matchMessages([row], atTime);
    const found = pairs[0]?.[1];
    if (!found) {
      findings.push({
        kind: "missing",
        rowIndex: row.rowIndex,
        key: messageKey(channelUrl, row.timestamp, row.dedupId),
        field: null,
        reason: `The message of ${new Date(row.timestamp).toISOString()}${row.sender ? ` by "${row.sender}"` : ""} is not in channel "${channelUrl}".`,
      });
      continue;
    }
    const byId = new Map(page.messages.map((message) => [message.message_id, message]));
    const differences = compareMessage(channelUrl, row, found, (id) => byId.get(id));
    if (differences.length === 0) matched++;
    findings.push(...differences);
  }
  return { matched, findings };
}

/** `size` rows spread evenly over the channel's order (all of them when there are fewer). */
export function pickSample<T>(rows: readonly T[], size: number): T[] {
  if (rows.length <= size) return [...rows];
  const picked: T[] = [];
  for (let i = 0; i < size; i++) picked.push(rows[Math.floor((i * rows.length) / size)]!);
  return picked;
}

async function channelKind(
  client: PlatformClient,
  read: Read,
  channelUrl: string,
): Promise<"group_channels" | "open_channels" | null> {
  for (const kind of ["group_channels", "open_channels"] as const) {
    try {
      await read<unknown>(() =>
        kind === "group_channels"
          ? client.groupChannels.get(channelUrl)
          : client.openChannels.get(channelUrl),
      );
      return kind;
    } catch (error) {
      if (!isPlatformError(error, 400201)) throw error;
    }
  }
  return null;
}

/**
 * The roots the channel's replies name (through the mapping's `parent_id`), by source id, in
 * the channel only: a source id is the message's id in its own channel (Slack's `ts`), and
 * another channel may hold a message with the same one.
 */
async function rootRows(
  db: Database,
  job: ImportJob,
  channelUrl: string,
  rows: VerifiedRow[],
): Promise<Map<string, RootRow>> {
  const named = [
    ...new Set(rows.map((row) => mappedCell(job, row.values, "parent_id")).filter(Boolean)),
  ] as string[];
  if (named.length === 0) return new Map();
  const found = rowsOf<{
    source_id: string;
    dedup_id: string | null;
    ts: string;
    sender: string | null;
  }>(
    await db.execute(sql`
      select source_id, body ->> 'dedup_id' as dedup_id, body ->> 'timestamp' as ts,
        body ->> 'user_id' as sender
      from import_rows where job_id = ${job.id} and resource_key = ${channelUrl}
        and body ? 'timestamp' and source_id in (select jsonb_array_elements_text(${JSON.stringify(named)}::jsonb))`),
  );
  return new Map(
    found.map((row) => [
      row.source_id,
      {
        dedupId: row.dedup_id ?? undefined,
        timestamp: Number(row.ts),
        sender: row.sender ?? undefined,
      },
    ]),
  );
}
