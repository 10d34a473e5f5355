import "server-only";
import { sql } from "drizzle-orm";
import type { Database } from "@/lib/db/client";
import { quoteSome } from "@/lib/imports/references";
import type { MessageReaction } from "@/lib/imports/reactions";
import type { FollowUps } from "@/lib/imports/types";
import { isPlatformError, type PlatformClient } from "@/lib/platform";
import { platformRetries } from "@/lib/platform/retries";
import { withRetries } from "@/lib/retry";
import { forEachConcurrent } from "../shared/concurrency";
import { chunk, rowsOf } from "../shared/rows";

const CHANNEL_CONCURRENCY = 4;
const MEMBERS_PAGE = 100;
const WRITE_ROWS = 1000;

/** What the check found: replies refused and reactions left out, and the channels concerned. */
export type MembershipFindings = {
  repliesByNonMembers: number;
  reactionsByNonMembers: number;
  channels: string[];
};

/**
 * The platform sends a reply, and adds a reaction, only for a joined member of a group
 * channel (400108; the sandbox's `checkSender`), where the migration takes any sender. So a
 * reply whose sender will not be a member is invalid, and a reaction by a user who will not be
 * one is left out of its row with a warning naming them (the row's message is still sent),
 * both counted in the plan. Members as they will be: the channel's joined members on the
 * platform now, and those the channel imports of this console (not cancelled) create it with
 * or invite. Open channels have no members: anyone may send there.
 */
export async function checkThreadMembers(
  db: Database,
  client: PlatformClient,
  jobId: string,
  groupChannels: readonly string[],
  onRequest: () => void,
): Promise<MembershipFindings> {
  const findings: MembershipFindings = {
    repliesByNonMembers: 0,
    reactionsByNonMembers: 0,
    channels: [],
  };
  await forEachConcurrent([...groupChannels], CHANNEL_CONCURRENCY, async (channelUrl) => {
    const members = new Set([
      ...(await joinedOnPlatform(client, channelUrl, onRequest)),
      ...(await joinedByImports(db, channelUrl)),
    ]);
    const replies = await refuseRepliesOfNonMembers(db, jobId, channelUrl, members);
    const reactions = await leaveOutReactionsOfNonMembers(db, jobId, channelUrl, members);
    findings.repliesByNonMembers += replies;
    findings.reactionsByNonMembers += reactions;
    if (replies + reactions > 0) findings.channels.push(channelUrl);
  });
  findings.channels.sort();
  return findings;
}

/**
 * The channel's joined members on the platform; none when it is not there yet (a channel
 * import will create it). Deactivated members count: the plan reactivates the senders and
 * reactors who are deactivated before anything is sent (`reactivateSenders`), and they stay
 * members. Invited members do not: the platform lets only the joined send.
 */
async function joinedOnPlatform(
  client: PlatformClient,
  channelUrl: string,
  onRequest: () => void,
): Promise<string[]> {
  const members: string[] = [];
  let token = "";
  try {
    do {
      onRequest();
      const page = await withRetries(
        () =>
          client.groupChannels.members(channelUrl, {
            limit: MEMBERS_PAGE,
            token,
            memberStateFilter: "joined_only",
            memberActiveModeFilter: "all",
          }),
        platformRetries(),
      );
      members.push(...page.members.map((member) => member.user_id));
      token = page.next;
    } while (token);
  } catch (error) {
    if (!isPlatformError(error, 400201)) throw error;
  }
  return members;
}

/**
 * The members the channel imports of this console (not cancelled) give the channel: those it
 * is created with (`user_ids`, `users`) and those invited after (`invite`), less those the
 * creation marks invited (`invitation_status`): they are not joined. A row found existing
 * changes nothing of the channel, so only rows to create or created count.
 */
async function joinedByImports(db: Database, channelUrl: string): Promise<string[]> {
  const rows = rowsOf<{
    body: Record<string, unknown> | string | null;
    follow_ups: FollowUps | string | null;
  }>(
    await db.execute(sql`
      select r.body, r.follow_ups from import_rows as r join import_jobs as j on j.id = r.job_id
      where j.resource = 'group_channels' and j.status <> 'cancelled'
        and r.state in ('pending', 'created') and r.resource_key = ${channelUrl}`),
  );
  const members = new Set<string>();
  for (const row of rows) {
    const body = parsed<Record<string, unknown>>(row.body) ?? {};
    const followUps = parsed<FollowUps>(row.follow_ups);
    const invited = (body.invitation_status ?? {}) as Record<string, string>;
    const ids = [
      ...(Array.isArray(body.user_ids) ? body.user_ids : []),
      ...(Array.isArray(body.users)
        ? body.users.map((user) => (user as { user_id?: unknown })?.user_id)
        : []),
    ];
    for (const id of ids)
      if (typeof id === "string" && !invited[id]?.startsWith("invited")) members.add(id);
    for (const id of followUps?.invite ?? []) members.add(id);
  }
  return [...members];
}

function parsed<T>(value: T | string | null): T | null {
  return typeof value === "string" ? (JSON.parse(value) as T) : value;
}

/** Replies of the channel whose sender will not be a member: invalid, beside the sender's cell. */
async function refuseRepliesOfNonMembers(
  db: Database,
  jobId: string,
  channelUrl: string,
  members: ReadonlySet<string>,
): Promise<number> {
  const result = await db.execute(sql`
    update import_rows as r set state = 'invalid',
      plan_issues = r.plan_issues || jsonb_build_array(jsonb_build_object(
        'field', 'user_id', 'severity', 'error', 'code', 400108,
        'message', 'Sender "' || (r.body ->> 'user_id') || '" is not a member of the group channel "' || r.resource_key || '", on the platform or in a channel import of this console: the platform sends a reply only from a member. Add them to the channel''s members first.'))
    where r.job_id = ${jobId} and r.resource_key = ${channelUrl} and r.state = 'pending'
      and r.parent_source_id is not null and r.body ? 'user_id'
      and not (${JSON.stringify([...members])}::jsonb ? (r.body ->> 'user_id'))
    returning r.row_index`);
  return rowsOf(result).length;
}

/**
 * Reactions of the channel's messages by users who will not be members: taken out of the
 * row's `reactions` (the upload's kept in `reactions_as_uploaded`, from which the next plan
 * starts), with a warning naming them. Returns how many reactions were left out.
 */
async function leaveOutReactionsOfNonMembers(
  db: Database,
  jobId: string,
  channelUrl: string,
  members: ReadonlySet<string>,
): Promise<number> {
  const memberList = JSON.stringify([...members]);
  const rows = rowsOf<{ row_index: number; reactions: MessageReaction[] | string }>(
    await db.execute(sql`
      select r.row_index, r.reactions from import_rows as r
      where r.job_id = ${jobId} and r.resource_key = ${channelUrl}
        -- An existed row (sent by an earlier import) may have new reactions to add.
        and (r.state = 'pending' or (r.state = 'existed' and r.thread_state = 'pending'))
        and r.reactions is not null
        and exists (select 1 from jsonb_array_elements(r.reactions) as e,
          jsonb_array_elements_text(e -> 'user_ids') as u(id)
          where not (${memberList}::jsonb ? u.id))`),
  );
  let leftOut = 0;
  const updates = rows.map((row) => {
    const reactions = parsed<MessageReaction[]>(row.reactions) ?? [];
    const kept: MessageReaction[] = [];
    const outsiders = new Set<string>();
    const dropped: string[] = [];
    for (const { key, user_ids: users } of reactions) {
      const stays = users.filter((id) => members.has(id));
      for (const id of users.filter((id) => !members.has(id))) {
        outsiders.add(id);
        dropped.push(`${key} by "${id}"`);
      }
      if (stays.length > 0) kept.push({ key, user_ids: stays });
    }
    leftOut += dropped.length;
    const who = [...outsiders];
    return {
      row_index: Number(row.row_index),
      reactions: kept.length > 0 ? kept : null,
      issue: {
        field: "reactions",
        severity: "warning",
        message: `${who.length === 1 ? "Reacting user" : "Reacting users"} ${quoteSome(who)} ${who.length === 1 ? "is not a member" : "are not members"} of the group channel "${channelUrl}", on the platform or in a channel import of this console, and the platform takes reactions only from members: ${dropped.length === 1 ? "this reaction is" : `these ${dropped.length} reactions are`} left out (${dropped.slice(0, 3).join(", ")}${dropped.length > 3 ? ", …" : ""}). The message is sent.`,
      },
    };
  });
  for (const batch of chunk(updates, WRITE_ROWS)) {
    await db.execute(sql`
      update import_rows as r set
        reactions_as_uploaded = coalesce(r.reactions_as_uploaded, r.reactions),
        reactions = v.reactions,
        plan_issues = r.plan_issues || jsonb_build_array(v.issue)
      from jsonb_to_recordset(${JSON.stringify(batch)}::jsonb) as v(row_index integer, reactions jsonb, issue jsonb)
      where r.job_id = ${jobId} and r.row_index = v.row_index`);
  }
  return leftOut;
}
