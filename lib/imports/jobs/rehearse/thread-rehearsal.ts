import "server-only";
import { sql } from "drizzle-orm";
import type { Database } from "@/lib/db/client";
import type { MessageReaction } from "@/lib/imports/reactions";
import { isPlatformError, type PlatformClient } from "@/lib/platform";
import type { SendMessageBody } from "@/lib/platform/types";
import { platformRetries } from "@/lib/platform/retries";
import { withRetries } from "@/lib/retry";
import { IMPORT_DEDUP_KEY, MESSAGE_LIST_LIMIT_MAX } from "@/lib/schemas/messages";
import { updateToVersion } from "../replies/edits";
import { editsToMake, type EditToMake } from "../replies/thread-rows";
import type { Pacer } from "../run/pacer";
import { chunk, rowsOf } from "../shared/rows";

/**
 * The replies stage rehearsed in the scratch application (docs/imports-jobs.md, "Replies and
 * reactions"), a channel at a time once its messages are migrated there: its roots and
 * reacted messages found by listing the channel and matching their `import_dedup_id`, its
 * replies sent in their time order with their roots' ids, and its reactions added, as the run
 * does (`../replies/thread-stage.ts`). Nothing is written to the job's rows: what it sent is
 * counted, and what was refused listed with the platform's reason.
 */

type ChannelKind = "open_channels" | "group_channels";

/**
 * The stage's counts in a rehearsal: replies sent and refused, reactions added and refused, a
 * newer export's edits updated and refused.
 */
export type ThreadTally = {
  replies: number;
  repliesFailed: number;
  reactions: number;
  reactionsFailed: number;
  edits: number;
  editsFailed: number;
};

export type ThreadRehearsalOptions = {
  pacers: { read: Pacer; write: Pacer };
  /** Hears each refused reply or reaction: the row, the platform's code and the reason. */
  onFailure: (rowIndex: number, code: number | null, message: string) => void;
};

/** Rows of thread work read by one statement. */
const READ_ROWS = 1000;
/** A channel's edits, read at once: a newer export's edits are few. */
const EDITS_READ = 100_000;
const INVITE_BATCH = 100;

/**
 * The channel's reply senders and reacting users: in the scratch application, members of the
 * group channel, as the plan made sure they will be on the target (`../plan/thread-members.ts`).
 */
export async function threadParticipants(
  db: Database,
  jobId: string,
  channelUrl: string,
): Promise<string[]> {
  return rowsOf<{ id: string }>(
    await db.execute(sql`
      select r.body ->> 'user_id' as id from import_rows as r
      where r.job_id = ${jobId} and r.resource_key = ${channelUrl} and r.thread_state = 'pending'
        and r.state = 'pending' and r.parent_source_id is not null and r.body ? 'user_id'
      union
      select u.id from import_rows as r, jsonb_array_elements(r.reactions) as e,
        jsonb_array_elements_text(e -> 'user_ids') as u(id)
      where r.job_id = ${jobId} and r.resource_key = ${channelUrl} and r.thread_state = 'pending'
        and r.state in ('pending', 'existed') and r.reactions is not null`),
  ).map((row) => row.id);
}

/** Creates the scratch group channel with `members` (100 at creation, the rest invited). */
export async function createScratchGroupChannel(
  scratch: PlatformClient,
  channelUrl: string,
  members: readonly string[],
): Promise<void> {
  const [first = [], ...rest] = chunk(members, INVITE_BATCH);
  await withRetries(
    () =>
      scratch.groupChannels.create({
        channel_url: channelUrl,
        user_ids: first,
        // A normal group channel holds 100 members.
        is_super: members.length > INVITE_BATCH,
      }),
    platformRetries(),
  ).catch(() => {});
  for (const user_ids of rest)
    await withRetries(
      () => scratch.groupChannels.invite(channelUrl, { user_ids }),
      platformRetries(),
    ).catch(() => {});
}

/**
 * The messages already on the target that the job's thread work needs: roots its replies name
 * that an earlier import of this console created, and its own rows an earlier import sent
 * (`existed`) with new reactions or replies, or edited since. The scratch application has them
 * only if the rehearsal migrates them first (not counted: the run does not send them). An
 * edited message goes there as the target holds it, in the version the earlier import sent
 * (its `edit`), so that the update is rehearsed; an edited reply goes there as a message of
 * the channel, its thread being no part of the update.
 */
export async function messagesAlreadySent(
  db: Database,
  jobId: string,
): Promise<Array<{ channel: string; body: Record<string, unknown> }>> {
  return rowsOf<{ channel: string; body: Record<string, unknown> | string }>(
    await db.execute(sql`
      select distinct on (o.resource_key, o.source_id) o.resource_key as channel, o.body
      from import_rows as r
      join import_rows as o on o.resource_key = r.resource_key and o.source_id = r.parent_source_id
      join import_jobs as j on j.id = o.job_id
      where r.job_id = ${jobId} and r.state = 'pending' and r.thread_state = 'pending'
        and r.parent_source_id is not null
        and not exists (select 1 from import_rows as p where p.job_id = r.job_id
          and p.resource_key = r.resource_key
          and p.source_id = r.parent_source_id and p.parent_source_id is null
          and p.state = 'pending')
        and j.resource = 'messages' and o.job_id <> ${jobId} and o.parent_source_id is null
        and o.body ? 'timestamp'
        -- An existed root of this job is among the job's own rows below.
        and not exists (select 1 from import_rows as p where p.job_id = r.job_id
          and p.resource_key = r.resource_key
          and p.source_id = r.parent_source_id and p.parent_source_id is null
          and p.state = 'existed' and p.thread_state = 'pending')
      union all
      select r.resource_key, (r.body - 'created_at') || coalesce(r.edit, '{}'::jsonb)
        || case when r.body ? 'timestamp' then '{}'::jsonb
          else jsonb_build_object('timestamp', r.body -> 'created_at') end
      from import_rows as r
      where r.job_id = ${jobId} and r.state = 'existed'
        and ((r.thread_state = 'pending' and r.body ? 'timestamp') or r.edit_state = 'pending')
      order by 1`),
  ).map((row) => ({
    channel: row.channel,
    body:
      typeof row.body === "string" ? (JSON.parse(row.body) as Record<string, unknown>) : row.body,
  }));
}

type ThreadRow = {
  rowIndex: number;
  dedupId: string | null;
  at: number;
  body: Record<string, unknown>;
  reactions: MessageReaction[] | null;
  /** A reply's root's dedup id (in this file or an earlier import); null for no reply. */
  rootDedupId: string | null;
  isReply: boolean;
};

/** Rehearses the channel's replies and reactions; adds what happened to `tally`. */
export async function rehearseChannelThreads(
  db: Database,
  scratch: PlatformClient,
  jobId: string,
  channelUrl: string,
  kind: ChannelKind,
  tally: ThreadTally,
  options: ThreadRehearsalOptions,
): Promise<void> {
  const rows = await threadRows(db, jobId, channelUrl);
  const edits = await editsToMake(db, jobId, channelUrl, { limit: EDITS_READ, knownIds: false });
  if (rows.length === 0 && edits.length === 0) return;
  const wanted = new Set<string>();
  for (const row of rows) {
    if (!row.isReply && row.dedupId) wanted.add(row.dedupId);
    if (row.rootDedupId) wanted.add(row.rootDedupId);
  }
  for (const edit of edits) if (edit.dedupId) wanted.add(edit.dedupId);
  const ids = await findMessages(scratch, channelUrl, kind, wanted, options.pacers.read);

  const replies = rows
    .filter((row) => row.isReply)
    .sort((a, b) => a.at - b.at || a.rowIndex - b.rowIndex);
  const sent = new Map<number, number>();
  for (const reply of replies) {
    const root = reply.rootDedupId === null ? undefined : ids.get(reply.rootDedupId);
    if (root === undefined) {
      tally.repliesFailed++;
      options.onFailure(
        reply.rowIndex,
        null,
        `The reply's thread root was not found in the scratch application after migration: it would not be sent.`,
      );
      continue;
    }
    try {
      await options.pacers.write.acquire();
      const message = await withRetries(
        () =>
          scratch.messages.send(kind, channelUrl, {
            ...reply.body,
            parent_message_id: root,
          } as SendMessageBody),
        platformRetries(),
      );
      sent.set(reply.rowIndex, message.message_id);
      tally.replies++;
    } catch (error) {
      tally.repliesFailed++;
      options.onFailure(reply.rowIndex, codeOf(error), `The reply was refused: ${reasonOf(error)}`);
    }
  }

  await rehearseEdits(scratch, channelUrl, kind, edits, ids, tally, options);

  // The platform has no reactions in open channels; the plan left them out there.
  if (kind !== "group_channels") return;
  for (const row of rows) {
    if (!row.reactions) continue;
    const messageId = row.isReply ? sent.get(row.rowIndex) : ids.get(row.dedupId ?? "");
    // A reply refused above is counted already; a message not found cannot take reactions.
    if (messageId === undefined) {
      if (!row.isReply) {
        const count = row.reactions.reduce((sum, reaction) => sum + reaction.user_ids.length, 0);
        tally.reactionsFailed += count;
        options.onFailure(
          row.rowIndex,
          null,
          `Not found in the scratch application after migration: its ${count} reactions would not be added.`,
        );
      }
      continue;
    }
    const refused: string[] = [];
    let code: number | null = null;
    for (const { key, user_ids: users } of row.reactions) {
      for (const userId of users) {
        try {
          await options.pacers.write.acquire();
          await withRetries(
            () => scratch.reactions.add(channelUrl, messageId, { user_id: userId, reaction: key }),
            platformRetries(),
          );
          tally.reactions++;
        } catch (error) {
          tally.reactionsFailed++;
          code ??= codeOf(error);
          refused.push(`${key} by "${userId}": ${reasonOf(error)}`);
        }
      }
    }
    if (refused.length > 0)
      options.onFailure(
        row.rowIndex,
        code,
        `${refused.length} reaction${refused.length === 1 ? "" : "s"} refused: ${refused.slice(0, 3).join("; ")}${refused.length > 3 ? "; …" : ""}`,
      );
  }
}

/**
 * A newer export's edits, made in the scratch application as the run makes them on the target
 * (`../replies/edits.ts`): each message found by its dedup id, read, and updated where it
 * differs.
 */
async function rehearseEdits(
  scratch: PlatformClient,
  channelUrl: string,
  kind: ChannelKind,
  edits: readonly EditToMake[],
  ids: ReadonlyMap<string, number>,
  tally: ThreadTally,
  options: ThreadRehearsalOptions,
): Promise<void> {
  for (const edit of edits) {
    const messageId = ids.get(edit.dedupId ?? "");
    if (messageId === undefined) {
      tally.editsFailed++;
      options.onFailure(
        edit.rowIndex,
        null,
        `Not found in the scratch application after migration: its update to this version would not be made.`,
      );
      continue;
    }
    try {
      await withRetries(
        () =>
          updateToVersion(
            { client: scratch, pacers: options.pacers },
            channelUrl,
            kind,
            messageId,
            edit.wanted,
          ),
        platformRetries(),
      );
      tally.edits++;
    } catch (error) {
      tally.editsFailed++;
      options.onFailure(
        edit.rowIndex,
        codeOf(error),
        `The update to this version was refused: ${reasonOf(error)}`,
      );
    }
  }
}

/** The channel's rows with thread work, as the plan left them, a page at a time. */
async function threadRows(db: Database, jobId: string, channelUrl: string): Promise<ThreadRow[]> {
  const rows: ThreadRow[] = [];
  for (let after = -1; ;) {
    const page = rowsOf<{
      row_index: number;
      dedup_id: string | null;
      at: string | number;
      body: Record<string, unknown> | string;
      reactions: MessageReaction[] | string | null;
      is_reply: boolean;
      root_dedup_id: string | null;
    }>(
      await db.execute(sql`
        select r.row_index, r.body ->> 'dedup_id' as dedup_id,
          coalesce(r.body ->> 'timestamp', r.body ->> 'created_at')::bigint as at,
          case when r.parent_source_id is not null then r.body end as body,
          r.reactions, r.parent_source_id is not null as is_reply,
          case when r.parent_source_id is not null then coalesce(
            (select p.body ->> 'dedup_id' from import_rows as p
              where p.job_id = r.job_id and p.resource_key = r.resource_key
                and p.source_id = r.parent_source_id and p.parent_source_id is null
                and p.state in ('pending', 'existed') limit 1),
            (select o.body ->> 'dedup_id' from import_rows as o join import_jobs as j on j.id = o.job_id
              where j.resource = 'messages' and o.job_id <> r.job_id
                and o.resource_key = r.resource_key and o.source_id = r.parent_source_id
                and o.parent_source_id is null and o.body ? 'timestamp' limit 1)) end as root_dedup_id
        from import_rows as r
        where r.job_id = ${jobId} and r.resource_key = ${channelUrl} and r.thread_state = 'pending'
          and r.state in ('pending', 'existed') and r.row_index > ${after}
        order by r.row_index
        limit ${READ_ROWS}`),
    );
    for (const row of page) {
      rows.push({
        rowIndex: Number(row.row_index),
        dedupId: row.dedup_id,
        at: Number(row.at),
        body: (typeof row.body === "string" ? JSON.parse(row.body) : row.body) ?? {},
        reactions:
          typeof row.reactions === "string"
            ? (JSON.parse(row.reactions) as MessageReaction[])
            : row.reactions,
        rootDedupId: row.root_dedup_id,
        isReply: row.is_reply,
      });
    }
    if (page.length < READ_ROWS) return rows;
    after = rows.at(-1)!.rowIndex;
  }
}

/** The scratch channel listed from its start until every wanted dedup id is found, or its end. */
async function findMessages(
  scratch: PlatformClient,
  channelUrl: string,
  kind: ChannelKind,
  wanted: ReadonlySet<string>,
  pacer: Pacer,
): Promise<Map<string, number>> {
  const found = new Map<string, number>();
  if (wanted.size === 0) return found;
  let from: { messageTs: number } | { messageId: number } = { messageTs: 0 };
  for (;;) {
    await pacer.acquire();
    const page = await withRetries(
      () =>
        scratch.messages.list(kind, channelUrl, {
          ...from,
          include: "messageTs" in from,
          prevLimit: 0,
          nextLimit: MESSAGE_LIST_LIMIT_MAX,
          withSortedMetaArray: true,
        }),
      platformRetries(),
    );
    for (const message of page.messages) {
      const dedupId = message.sorted_metaarray?.find((item) => item.key === IMPORT_DEDUP_KEY)
        ?.value[0];
      if (dedupId !== undefined && wanted.has(dedupId)) found.set(dedupId, message.message_id);
    }
    const last = page.messages.at(-1);
    if (found.size === wanted.size || !last || page.messages.length < MESSAGE_LIST_LIMIT_MAX)
      return found;
    from = { messageId: last.message_id };
  }
}

function codeOf(error: unknown): number | null {
  return isPlatformError(error) ? error.code : null;
}

function reasonOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
