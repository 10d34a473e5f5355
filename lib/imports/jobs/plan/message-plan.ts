import "server-only";
import { sql } from "drizzle-orm";
import type { Database } from "@/lib/db/client";
import { channelResources, type MessagePlan, type PlanProgress } from "@/lib/imports/types";
import { MIGRATION_MESSAGES_MAX } from "@/lib/schemas/messages";
import type { PlatformClient } from "@/lib/platform";
import { chunk, rowsOf } from "../shared/rows";
import {
  channelImportRows,
  channelsMissing,
  importedUsers as importedUserSources,
  usersOnPlatform,
} from "./lookups";
import { importedKeys, type ImportedKey, type ImportJob } from "../store/jobs";
import { markEarlierMessages } from "./earlier-messages";
import { planThreads } from "./thread-plan";

export type { MessagePlan };

type OrderCheck = { jobId: string; fileName: string; status: string; channels: number };

const SHOWN = 100;

/**
 * A message's channel is named in the file by its channel URL or by the source id a channel
 * import of this console derived the URL from; from here on every row holds the URL. Run
 * before duplicates are looked for, so two names of one channel count as one.
 */
export async function resolveMessageChannels(db: Database, job: ImportJob): Promise<void> {
  const names = await pendingChannelRefs(db, job.id);
  const asked = new Set(names);
  const held = await channelImportRows(db, names);
  const urls = new Set(held.map((row) => row.key));
  const renamed: Record<string, string> = {};
  for (const row of held) {
    if (row.sourceId && asked.has(row.sourceId) && !urls.has(row.sourceId))
      renamed[row.sourceId] = row.key;
  }
  if (Object.keys(renamed).length === 0) return;
  await db.execute(sql`
    update import_rows as r set resource_key = m.value
    from jsonb_each_text(${JSON.stringify(renamed)}::jsonb) as m
    where r.job_id = ${job.id} and r.state = 'pending' and r.resource_key = m.key`);
}

/**
 * The checks against what exists: each channel must be on the platform or in a channel
 * import (one that has not completed is a warning: run it first), and each sender a user on
 * the platform or in a users import. A message whose channel or sender is missing would make
 * the platform refuse its whole request (400201), so it is invalid and never sent.
 */
export async function planMessages(
  db: Database,
  client: PlatformClient,
  job: ImportJob,
  report: (progress: PlanProgress, force?: boolean) => Promise<void>,
): Promise<{ requests: number; missing: number; orderChecks: OrderCheck[]; summary: MessagePlan }> {
  let requests = 0;
  const orderChecks = new Map<string, OrderCheck>();
  const noteOrder = ({ jobId, fileName, status }: ImportedKey) => {
    const check = orderChecks.get(jobId) ?? { jobId, fileName, status, channels: 0 };
    check.channels++;
    orderChecks.set(jobId, check);
  };

  // Channels.
  const channelUrls = await pendingChannelRefs(db, job.id);
  const unfinishedChannels: string[] = [];
  const toLookUp: string[] = [];
  const channelImports = new Map(
    (await importedKeys(db, channelResources, channelUrls)).map((row) => [row.key, row]),
  );
  for (const url of channelUrls) {
    const source = channelImports.get(url);
    if (source && source.status !== "completed") {
      unfinishedChannels.push(url);
      noteOrder(source);
    } else if (!source || source.state !== "created") {
      toLookUp.push(url);
    }
  }
  let lookedUp = 0;
  await report({ step: "lookups", done: 0, total: toLookUp.length }, true);
  // Names for the plan's table of the largest channels: the import's, or the platform's.
  const names = new Map<string, string>();
  for (const [url, row] of channelImports) if (row.name) names.set(url, row.name);
  const absent = await channelsMissing(client, toLookUp, {
    onRequest: () => requests++,
    onFound: (url, name) => names.set(url, name),
    onChecked: () => report({ step: "lookups", done: ++lookedUp, total: toLookUp.length }),
  });
  const missingChannels = toLookUp.filter((url) => absent.has(url));

  // Senders, and the users who reacted: both must be users (a reaction by no user is refused).
  const senders = rowsOf<{ id: string }>(
    await db.execute(sql`
      select body ->> 'user_id' as id from import_rows
      where job_id = ${job.id} and state = 'pending' and body ? 'user_id'
      union
      select u.id from import_rows as r, jsonb_array_elements(r.reactions) as e,
        jsonb_array_elements_text(e -> 'user_ids') as u(id)
      where r.job_id = ${job.id} and r.state = 'pending' and r.reactions is not null`),
  ).map((row) => row.id);
  const importedUsers = await importedUserSources(db, senders);
  const unfinishedSenders = senders.filter((id) => {
    const source = importedUsers.get(id);
    return source !== undefined && source.status !== "completed";
  });
  const sendersToLookUp = senders.filter((id) => !unfinishedSenders.includes(id));
  let usersLookedUp = 0;
  await report({ step: "members", done: 0, total: sendersToLookUp.length }, true);
  // A deactivated user is still a sender: the history of people who left is history.
  const onPlatform = await usersOnPlatform(client, sendersToLookUp, {
    activeMode: "all",
    onBatch: async (ids) => {
      requests++;
      usersLookedUp += ids;
      await report({ step: "members", done: usersLookedUp, total: sendersToLookUp.length });
    },
  });
  const unknownSenders = sendersToLookUp.filter((id) => !onPlatform.has(id));
  // Asked for: the unknown senders are created (and deactivated last) instead of left out.
  const createSenders = job.options.createUnknownSenders ? unknownSenders : [];
  const missingSenders = job.options.createUnknownSenders ? [] : unknownSenders;
  // Senders deactivated on the platform send their history reactivated, and are deactivated
  // again in the last stage: the platform does not say whether it migrates their messages.
  const activeSenders = await usersOnPlatform(
    client,
    sendersToLookUp.filter((id) => onPlatform.has(id)),
    { activeMode: "activated", onBatch: async () => void requests++ },
  );
  const reactivateSenders = sendersToLookUp.filter(
    (id) => onPlatform.has(id) && !activeSenders.has(id),
  );
  const senderJobs = new Set<string>();
  for (const id of unfinishedSenders) {
    const { jobId, fileName, status } = importedUsers.get(id)!;
    if (!senderJobs.has(jobId)) {
      senderJobs.add(jobId);
      orderChecks.set(jobId, { jobId, fileName, status, channels: 0 });
    }
  }

  await markRows(db, job.id, "resource_key", missingChannels, {
    field: "channel_url",
    severity: "error",
    code: 400201,
    prefix: "Channel",
    after:
      "is neither on the platform nor in a channel import of this console: import the channel first.",
  });
  await markRows(db, job.id, "sender", missingSenders, {
    field: "user_id",
    severity: "error",
    code: 400201,
    prefix: "Sender",
    after:
      "is neither a user on the platform nor in a users import: the platform would refuse the message.",
  });
  await markReactors(db, job.id, missingSenders, {
    severity: "error",
    code: 400201,
    after:
      "is neither a user on the platform nor in a users import: the platform would refuse the reaction. Import the user first, or fix the reactions.",
  });
  await markReactors(db, job.id, unfinishedSenders, {
    severity: "warning",
    after: "comes from a users import that has not completed: run that import first.",
  });
  await markRows(db, job.id, "sender", createSenders, {
    field: "user_id",
    severity: "warning",
    prefix: "Sender",
    after:
      "is neither a user on the platform nor in a users import: created before the messages (nickname = the id) and deactivated in the last stage.",
  });
  const earlier = await markEarlierMessages(db, job);
  const threads = await planThreads(db, client, job, () => requests++);
  await markRows(db, job.id, "resource_key", unfinishedChannels, {
    field: "channel_url",
    severity: "warning",
    prefix: "Channel",
    after: "comes from a channel import that has not completed: run that import first.",
  });
  await markRows(db, job.id, "sender", unfinishedSenders, {
    field: "user_id",
    severity: "warning",
    prefix: "Sender",
    after: "comes from a users import that has not completed: run that import first.",
  });

  return {
    requests,
    missing: missingSenders.length,
    orderChecks: [...orderChecks.values()],
    summary: {
      ...(await summarize(db, job.id, missingChannels, missingSenders, names)),
      threads,
      earlier,
      reactivateSenders,
      createSenders,
    },
  };
}

async function summarize(
  db: Database,
  jobId: string,
  missingChannels: string[],
  missingSenders: string[],
  names: ReadonlyMap<string, string>,
): Promise<MessagePlan> {
  // A reply's time is its `created_at`: it goes through the send API, not the migration.
  const sentAt = sql`coalesce(body ->> 'timestamp', body ->> 'created_at')::bigint`;
  const perChannel = rowsOf<{
    channel: string;
    messages: number;
    migrated: number;
    first: string;
    last: string;
  }>(
    await db.execute(sql`
      select resource_key as channel, count(*)::int as messages,
        (count(*) filter (where body ? 'timestamp'))::int as migrated,
        min(${sentAt})::text as first, max(${sentAt})::text as last
      from import_rows where job_id = ${jobId} and state = 'pending'
      group by resource_key order by count(*) desc, resource_key`),
  );
  const [types] = rowsOf<{ mesg: number; file: number; admm: number }>(
    await db.execute(sql`
      select count(*) filter (where body ->> 'message_type' = 'MESG')::int as mesg,
        count(*) filter (where body ->> 'message_type' = 'FILE')::int as file,
        count(*) filter (where body ->> 'message_type' = 'ADMM')::int as admm
      from import_rows where job_id = ${jobId} and state = 'pending'`),
  );
  let requests = 0;
  let first: number | null = null;
  let last: number | null = null;
  for (const channel of perChannel) {
    requests += Math.ceil(channel.migrated / MIGRATION_MESSAGES_MAX);
    first = first === null ? Number(channel.first) : Math.min(first, Number(channel.first));
    last = last === null ? Number(channel.last) : Math.max(last, Number(channel.last));
  }
  return {
    channels: perChannel.length,
    requests,
    firstTimestamp: first,
    lastTimestamp: last,
    byType: { MESG: types?.mesg ?? 0, FILE: types?.file ?? 0, ADMM: types?.admm ?? 0 },
    missingChannels: missingChannels.slice(0, SHOWN),
    missingSenders: missingSenders.slice(0, SHOWN),
    largestChannels: perChannel.slice(0, SHOWN).map((channel) => ({
      channelUrl: channel.channel,
      name: names.get(channel.channel) ?? null,
      messages: channel.messages,
      requests: Math.ceil(channel.migrated / MIGRATION_MESSAGES_MAX),
      first: Number(channel.first),
      last: Number(channel.last),
    })),
  };
}

/** The channels (URL or source id) the job's pending messages name, each once. */
async function pendingChannelRefs(db: Database, jobId: string): Promise<string[]> {
  const result = await db.execute(sql`
    select distinct resource_key as ref from import_rows
    where job_id = ${jobId} and state = 'pending' and resource_key is not null`);
  return rowsOf<{ ref: string }>(result).map((row) => row.ref);
}

/** Adds one issue to the pending rows with a reaction by one of `users`, naming the user. */
async function markReactors(
  db: Database,
  jobId: string,
  users: string[],
  issue: { severity: "error" | "warning"; code?: number; after: string },
) {
  for (const batch of chunk(users, 1000)) {
    await db.execute(sql`
      update import_rows as r set
        plan_issues = r.plan_issues || jsonb_build_array(jsonb_strip_nulls(jsonb_build_object(
          'field', 'reactions', 'severity', ${issue.severity}::text, 'code', ${issue.code ?? null}::int,
          'message', 'Reacting user "' || m.id || '" ' || ${issue.after}::text))),
        state = ${issue.severity === "error" ? sql`'invalid'` : sql`r.state`}
      from (select r2.row_index, min(u.id) as id
        from import_rows as r2, jsonb_array_elements(r2.reactions) as e,
          jsonb_array_elements_text(e -> 'user_ids') as u(id)
        where r2.job_id = ${jobId} and r2.state = 'pending' and r2.reactions is not null
          and u.id in (select jsonb_array_elements_text(${JSON.stringify(batch)}::jsonb))
        group by r2.row_index) as m
      where r.job_id = ${jobId} and r.row_index = m.row_index and r.state = 'pending'`);
  }
}

/**
 * Adds one issue to the pending rows whose channel (`resource_key`) or sender is among
 * `values`, naming the value; an error makes them invalid.
 */
async function markRows(
  db: Database,
  jobId: string,
  by: "resource_key" | "sender",
  values: string[],
  issue: {
    field: string;
    severity: "error" | "warning";
    code?: number;
    prefix: string;
    after: string;
  },
) {
  if (values.length === 0) return;
  const column =
    by === "resource_key" ? sql.raw("r.resource_key") : sql.raw("(r.body ->> 'user_id')");
  for (const batch of chunk(values, 1000)) {
    await db.execute(sql`
      update import_rows as r set
        plan_issues = r.plan_issues || jsonb_build_array(jsonb_strip_nulls(jsonb_build_object(
          'field', ${issue.field}::text, 'severity', ${issue.severity}::text, 'code', ${issue.code ?? null}::int,
          'message', ${issue.prefix}::text || ' "' || ${column} || '" ' || ${issue.after}::text))),
        state = ${issue.severity === "error" ? sql`'invalid'` : sql`r.state`}
      where r.job_id = ${jobId} and r.state = 'pending'
        and ${column} in (select jsonb_array_elements_text(${JSON.stringify(batch)}::jsonb))`);
  }
}
