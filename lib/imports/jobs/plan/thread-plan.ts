import "server-only";
import { sql } from "drizzle-orm";
import type { Database } from "@/lib/db/client";
import { channelResources, type ThreadPlan } from "@/lib/imports/types";
import type { PlatformClient } from "@/lib/platform";
import { chunk, rowsOf } from "../shared/rows";
import { rowStateSql } from "../store/row-state";
import { importedKeys, type ImportJob } from "../store/jobs";
import { channelKindOnPlatform } from "./lookups";
import { checkThreadMembers } from "./thread-members";

/** Replies pointing at a reply are moved up one level per pass: deeper than this is a loop. */
const MAX_DEPTH = 50;
const SHOWN = 100;

type ChannelKind = "open_channels" | "group_channels";

/**
 * The row under `r` may have thread work: to send, or sent by an earlier import (`existed`)
 * with new reactions or replies (`./earlier-messages.ts`).
 */
const toWork = sql.raw(
  `(r.state = 'pending' or (r.state = 'existed' and r.thread_state = 'pending'))`,
);

/**
 * The plan of what the replies stage sends after a channel's messages are migrated
 * (`../replies/`): each reply's root found (the top one for a reply to a reply), in this file
 * or among the same channel's messages an earlier import of this console created, and in the
 * reply's own channel; reactions left out where the platform has none (open channels). A
 * reply whose root is missing, refused or elsewhere is invalid: the platform would refuse it,
 * as it would a reply or a reaction by someone who will not be a member of the group channel
 * (`./thread-members.ts`).
 * Runs after the channel and user checks, so a root they refuse takes its replies with it.
 */
export async function planThreads(
  db: Database,
  client: PlatformClient,
  job: ImportJob,
  onRequest: () => void,
): Promise<ThreadPlan> {
  const jobId = job.id;
  const flattened = await attachToTopRoots(db, jobId);
  const kinds = await threadChannelKinds(db, client, jobId, onRequest);
  const openChannels = await reactionsInOpenChannels(db, jobId, kinds);

  // A root in this file and the reply's channel that is not sent (refused, or a duplicate):
  // source ids are unique per channel only (Slack's `ts`), so roots are matched in the channel.
  await db.execute(sql`
    update import_rows as r set state = 'invalid',
      plan_issues = r.plan_issues || jsonb_build_array(jsonb_build_object(
        'field', 'parent_id', 'severity', 'error', 'code', 400111,
        'message', 'Thread root "' || r.parent_source_id || '" (row ' || (p.row_index + ${job.firstRow}::int)::text || ') is not sent (' || p.state || '), so the platform would refuse this reply.'))
    from import_rows as p
    where r.job_id = ${jobId} and r.state = 'pending' and r.parent_source_id is not null
      and p.job_id = r.job_id and p.source_id = r.parent_source_id and p.parent_source_id is null
      and p.resource_key is not distinct from r.resource_key
      and p.state not in ('pending', 'existed')
      -- A root given twice (the second refused as a duplicate) is sent once: not missing.
      and not exists (select 1 from import_rows as q where q.job_id = r.job_id
        and q.source_id = r.parent_source_id and q.parent_source_id is null
        and q.resource_key = r.resource_key and q.state in ('pending', 'existed'))`);

  // Roots not in this file's channel: an earlier messages import of this console to the same
  // channel must have created them; the stage finds their ids on the platform as it finds
  // this file's.
  const unresolved = rowsOf<{ channel: string; parent: string }>(
    await db.execute(sql`
      select distinct r.resource_key as channel, r.parent_source_id as parent from import_rows as r
      where r.job_id = ${jobId} and r.state = 'pending' and r.parent_source_id is not null
        and not exists (select 1 from import_rows as p
          where p.job_id = r.job_id and p.source_id = r.parent_source_id
            and p.parent_source_id is null and p.resource_key is not distinct from r.resource_key)`),
  );
  const earlier = new Set<string>();
  for (const batch of chunk(unresolved, 1000)) {
    const found = rowsOf<{ channel: string; parent: string }>(
      await db.execute(sql`
        select distinct o.resource_key as channel, o.source_id as parent
        from jsonb_to_recordset(${JSON.stringify(batch)}::jsonb) as v(channel text, parent text)
        join import_rows as o on o.resource_key = v.channel and o.source_id = v.parent
        join import_jobs as j on j.id = o.job_id
        where j.resource = 'messages' and o.job_id <> ${jobId} and o.parent_source_id is null
          and o.body ? 'timestamp' and ${sql.raw(rowStateSql("o"))} = 'created'`),
    );
    for (const row of found) earlier.add(`${row.channel}\u0000${row.parent}`);
  }
  // The rest have no root to go to: named in another channel of this file (a reply stays in
  // its root's channel), or nowhere.
  const rootless = unresolved.filter((row) => !earlier.has(`${row.channel}\u0000${row.parent}`));
  const nowhere = new Set<string>();
  for (const batch of chunk(rootless, 1000)) {
    const flagged = rowsOf<{ channel: string; parent: string; elsewhere: boolean }>(
      await db.execute(sql`
        update import_rows as r set state = 'invalid',
          plan_issues = r.plan_issues || jsonb_build_array(jsonb_build_object(
            'field', 'parent_id', 'severity', 'error',
            'code', case when o.row_index is null then 400201 else 400111 end,
            'message', case when o.row_index is null
              then 'Thread root "' || r.parent_source_id || '" is neither a message of this file nor one an earlier messages import of this console created in "' || r.resource_key || '": the reply has no root to go to.'
              else 'Thread root "' || r.parent_source_id || '" (row ' || (o.row_index + ${job.firstRow}::int)::text || ') is in channel "' || coalesce(o.resource_key, '') || '", not "' || coalesce(r.resource_key, '') || '": a reply stays in its root''s channel.' end))
        from jsonb_to_recordset(${JSON.stringify(batch)}::jsonb) as v(channel text, parent text)
        left join lateral (select p.row_index, p.resource_key from import_rows as p
          where p.job_id = ${jobId} and p.source_id = v.parent and p.parent_source_id is null
          order by p.row_index limit 1) as o on true
        where r.job_id = ${jobId} and r.state = 'pending' and r.resource_key = v.channel
          and r.parent_source_id = v.parent
        returning v.channel, v.parent, o.row_index is not null as elsewhere`),
    );
    for (const row of flagged) if (!row.elsewhere) nowhere.add(`${row.channel}\u0000${row.parent}`);
  }

  // Replies and reactions go through the send and reactions APIs: members only.
  const groupChannels = [...kinds].filter(([, kind]) => kind === "group_channels");
  const members = await checkThreadMembers(
    db,
    client,
    jobId,
    groupChannels.map(([url]) => url),
    onRequest,
  );

  // What the stage has to do: replies to send, roots' ids to find, reactions to add.
  const rootsSql = sql`(r.resource_key, r.source_id) in (select c.resource_key, c.parent_source_id
    from import_rows as c where c.job_id = ${jobId} and c.state = 'pending' and c.parent_source_id is not null)`;
  await db.execute(sql`
    update import_rows as r set thread_state = 'pending'
    where r.job_id = ${jobId} and r.state = 'pending'
      and (r.parent_source_id is not null or ${rootsSql}
        or r.reactions is not null)`);

  const [counts] = rowsOf<{
    replies: number;
    roots: number;
    reacted: number;
    reactions: number;
    channels: number;
  }>(
    await db.execute(sql`
      select count(*) filter (where parent_source_id is not null and state = 'pending')::int as replies,
        count(*) filter (where parent_source_id is null and ${rootsSql})::int as roots,
        count(*) filter (where reactions is not null)::int as reacted,
        coalesce(sum((select count(*) from jsonb_array_elements(r.reactions) as e,
          jsonb_array_elements(e -> 'user_ids') as u)), 0)::int as reactions,
        count(distinct resource_key)::int as channels
      from import_rows as r where r.job_id = ${jobId} and r.thread_state = 'pending'`),
  );
  return {
    replies: counts?.replies ?? 0,
    roots: counts?.roots ?? 0,
    rootsInEarlierImports: earlier.size,
    reactedMessages: counts?.reacted ?? 0,
    reactions: counts?.reactions ?? 0,
    channels: counts?.channels ?? 0,
    flattened,
    missingRoots: nowhere.size,
    openChannelsWithReactions: openChannels.slice(0, SHOWN),
    repliesByNonMembers: members.repliesByNonMembers,
    reactionsByNonMembers: members.reactionsByNonMembers,
    nonMemberChannels: members.channels.slice(0, SHOWN),
  };
}

/**
 * A reply to a reply goes to its thread's top root (the platform's threads are one level
 * deep), with a warning; one pass per level. A chain that never reaches a root is a loop. The
 * reply it names is in its own channel: a source id is a message's id in its channel (Slack's
 * `ts`), and another channel may hold a message with the same one.
 */
async function attachToTopRoots(db: Database, jobId: string): Promise<number> {
  const warned = sql.raw(`'[{"field":"parent_id","severity":"warning"}]'::jsonb`);
  let moved = 0;
  for (let depth = 0; depth < MAX_DEPTH; depth++) {
    const result = await db.execute(sql`
      update import_rows as r set parent_source_id = p.parent_source_id,
        plan_issues = case when r.plan_issues @> ${warned} then r.plan_issues
          else r.plan_issues || jsonb_build_array(jsonb_build_object(
            'field', 'parent_id', 'severity', 'warning',
            'message', 'Replies to a reply ("' || r.parent_source_id || '"): the platform''s threads are one level deep, so it is attached to that thread''s root.')) end
      from import_rows as p
      where r.job_id = ${jobId} and r.state = 'pending' and r.parent_source_id is not null
        and p.job_id = r.job_id and p.resource_key = r.resource_key
        and p.source_id = r.parent_source_id
        and p.parent_source_id is not null and p.source_id <> p.parent_source_id
      returning r.row_index`);
    const rows = rowsOf<{ row_index: number }>(result).length;
    if (rows === 0) return moved;
    if (depth === 0) moved = rows;
  }
  await db.execute(sql`
    update import_rows as r set state = 'invalid',
      plan_issues = r.plan_issues || jsonb_build_array(jsonb_build_object(
        'field', 'parent_id', 'severity', 'error', 'code', 400111,
        'message', 'Thread root "' || r.parent_source_id || '" leads back to this message through replies: a thread needs a root that replies to nothing.'))
    from import_rows as p
    where r.job_id = ${jobId} and r.state = 'pending' and r.parent_source_id is not null
      and p.job_id = r.job_id and p.resource_key = r.resource_key
      and p.source_id = r.parent_source_id and p.parent_source_id is not null`);
  return moved;
}

/**
 * Whether each channel with thread work (replies or reactions) is open or group: from its
 * channel import here, or asked of the platform. One the plan found nowhere is left out (its
 * rows are invalid already).
 */
async function threadChannelKinds(
  db: Database,
  client: PlatformClient,
  jobId: string,
  onRequest: () => void,
): Promise<Map<string, ChannelKind>> {
  const channels = rowsOf<{ url: string }>(
    await db.execute(sql`select distinct resource_key as url from import_rows as r
      where job_id = ${jobId} and ${toWork} and resource_key is not null
        and (reactions is not null or parent_source_id is not null)`),
  ).map((row) => row.url);
  const kinds = new Map<string, ChannelKind>();
  if (channels.length === 0) return kinds;
  const imported = new Map(
    (await importedKeys(db, channelResources, channels)).map((row) => [row.key, row.resource]),
  );
  for (const url of channels) {
    const kind =
      (imported.get(url) as ChannelKind | undefined) ??
      (await channelKindOnPlatform(client, url, onRequest));
    if (kind) kinds.set(url, kind);
  }
  return kinds;
}

/**
 * The platform has no reactions in open channels: a message there is sent, and its reactions
 * are left out with a warning. They are kept on the row as uploaded (`reactions_as_uploaded`),
 * so a plan made again says the same, and out of `reactions`, so the stage, its progress and
 * Verify count only the reactions that are sent. Returns the open channels that had some.
 */
async function reactionsInOpenChannels(
  db: Database,
  jobId: string,
  kinds: ReadonlyMap<string, ChannelKind>,
): Promise<string[]> {
  const open = rowsOf<{ url: string }>(
    await db.execute(sql`select distinct resource_key as url from import_rows as r
      where job_id = ${jobId} and ${toWork} and reactions is not null and resource_key is not null`),
  )
    .map((row) => row.url)
    .filter((url) => kinds.get(url) === "open_channels");
  if (open.length === 0) return [];
  await db.execute(sql`
    update import_rows as r set
      reactions_as_uploaded = coalesce(r.reactions_as_uploaded, r.reactions), reactions = null,
      plan_issues = r.plan_issues || jsonb_build_array(jsonb_build_object(
        'field', 'reactions', 'severity', 'warning',
        'message', '"' || r.resource_key || '" is an open channel, where the platform has no reactions: the message is sent without them.'))
    where r.job_id = ${jobId} and ${toWork} and r.reactions is not null
      and r.resource_key in (select jsonb_array_elements_text(${JSON.stringify(open)}::jsonb))`);
  return open;
}
