import { onDatabaseClose, type Database } from "@/lib/db/client";
import { GroupCommit } from "@/lib/db/group-commit";
import { isEmbedded, preparedQuery } from "@/lib/db/raw";
import { sandboxMessageBatches } from "@/lib/db/schema";
import { messageSender, type MigratedMessage, type Migration } from "@/lib/schemas/messages";
import { channelNotFound, userNotFound, type ChannelType } from "./lookups";

/**
 * Stores migrated messages in an open or group channel. The channel and every sender are looked
 * up by the statement that stores the request, as one row of sandbox_message_batches, only when
 * all are found: a request is stored whole or not at all. Concurrent requests are gathered by
 * group commit into one statement, each answered with its own outcome after it committed. The
 * messages join the channel's history when migrations to it pause or when it is read
 * (fileMessages): storing a request costs one row instead of an index entry per message.
 */
export async function migrateMessages(
  db: Database,
  appId: string,
  channelUrl: string,
  migration: Migration,
): Promise<void> {
  const dedupIds = new Set<string>();
  const messages = migration.messages.filter((message) => {
    if (message.dedup_id === undefined) return true;
    if (dedupIds.has(message.dedup_id)) return false;
    dedupIds.add(message.dedup_id);
    return true;
  });
  const senders = new Set<string>();
  for (const message of messages) {
    const sender = messageSender(message);
    if (sender !== undefined) senders.add(sender);
  }
  const outcome = await migrationWriter(db).submit([
    appId,
    channelUrl,
    JSON.stringify([...senders]),
    messages.length === 0 ? null : JSON.stringify(messages.map(toMessageRecord)),
  ]);
  if (!outcome.channel_type) throw channelNotFound(channelUrl);
  if (outcome.missing) {
    const missing = new Set(outcome.missing);
    // The first unknown sender in the request's order, as a check message by message would find.
    throw userNotFound(
      messages.map(messageSender).find((userId) => userId !== undefined && missing.has(userId))!,
    );
  }
  fileWhenIdle(db, appId, channelUrl);
}

/** A request as the statement takes it: app, channel, senders (JSON), messages (JSON or null). */
type StoredRequest = [string, string, string, string | null];
type StoreOutcome = { channel_type: ChannelType | null; missing: string[] | null };

const migrationWriters = new WeakMap<Database, Array<GroupCommit<StoredRequest, StoreOutcome>>>();
let nextWriter = 0;

/**
 * On PostgreSQL two writers take turns, so that one group is stored while the next gathers and
 * both cores work (a group's statement runs on one PostgreSQL process): 1,976 and 2,316
 * requests/s against 1,738 and 1,832 with one writer, and no better with three (measured under
 * the bench's load). PGlite has one thread, and one writer.
 */
function migrationWriter(db: Database): GroupCommit<StoredRequest, StoreOutcome> {
  let writers = migrationWriters.get(db);
  if (!writers) {
    writers = Array.from(
      { length: isEmbedded(db) ? 1 : 2 },
      () =>
        new GroupCommit<StoredRequest, StoreOutcome>((requests) => storeRequests(db, requests), {
          maxItems: maxRequestsPerStatement,
        }),
    );
    migrationWriters.set(db, writers);
  }
  nextWriter = (nextWriter + 1) % writers.length;
  return writers[nextWriter]!;
}

/** Requests per statement at most; one prepared statement per group size up to it. */
const maxRequestsPerStatement = 16;
const storeRequestsSqls = Array.from({ length: maxRequestsPerStatement }, (_, index) =>
  storeRequestsSql(index + 1),
);

async function storeRequests(db: Database, requests: StoredRequest[]): Promise<StoreOutcome[]> {
  const outcomes = await preparedQuery<StoreOutcome & { n: number }>(
    db,
    `sandbox_migrate_messages_${requests.length}`,
    storeRequestsSqls[requests.length - 1]!,
    requests.flat(),
  );
  return requests.map((_, index) => outcomes.find((outcome) => outcome.n === index + 1)!);
}

/** How long a channel goes without a migration before its stored requests are filed anyway. */
const idleBeforeFiling = 1_000;
/** Requests per statement when filing in the background: a short hold on PGlite's one thread. */
const requestsPerBackgroundRound = 10;

/**
 * Files each channel's stored requests once migrations to it pause, so that the first read after
 * a long import does not wait for all of it; a request arriving meanwhile puts it off again, so
 * while an import sends, storing stays one row per request. One channel at a time and a few
 * requests per statement, so that requests keep being answered while a large import is filed.
 */
class BackgroundFiling {
  private readonly timers = new Map<string, NodeJS.Timeout>();
  private readonly due: Array<[appId: string, channelUrl: string]> = [];
  private running = false;
  private closed = false;

  constructor(private readonly db: Database) {
    onDatabaseClose(db, () => {
      this.closed = true;
      for (const timer of this.timers.values()) clearTimeout(timer);
      this.timers.clear();
      this.due.length = 0;
    });
  }

  migrated(appId: string, channelUrl: string): void {
    const key = `${appId}\u0000${channelUrl}`;
    const waiting = this.timers.get(key);
    if (waiting) {
      waiting.refresh();
      return;
    }
    const timer = setTimeout(() => {
      this.timers.delete(key);
      this.due.push([appId, channelUrl]);
      void this.run();
    }, idleBeforeFiling);
    timer.unref();
    this.timers.set(key, timer);
  }

  private async run(): Promise<void> {
    if (this.running) return;
    this.running = true;
    try {
      for (let next = this.due.shift(); next && !this.closed; next = this.due.shift()) {
        const [appId, channelUrl] = next;
        await fileMessages(this.db, appId, channelUrl, requestsPerBackgroundRound).catch(
          (error: unknown) => {
            // Nothing is lost: the requests stay stored and are filed when the history is read.
            if (!this.closed)
              console.error(
                `[sandbox] filing the messages migrated to ${channelUrl} failed:`,
                error,
              );
          },
        );
      }
    } finally {
      this.running = false;
    }
  }
}

const backgroundFilings = new WeakMap<Database, BackgroundFiling>();

/**
 * At start: the channels holding stored requests that a stop or a crash left unfiled (the
 * timers lived in memory) are filed in the background, as if their last request had just come.
 */
export async function fileStoredMessagesLater(db: Database): Promise<void> {
  const channels = await db
    .selectDistinct({
      appId: sandboxMessageBatches.appId,
      channelUrl: sandboxMessageBatches.channelUrl,
    })
    .from(sandboxMessageBatches);
  for (const { appId, channelUrl } of channels) fileWhenIdle(db, appId, channelUrl);
}

function fileWhenIdle(db: Database, appId: string, channelUrl: string): void {
  let filing = backgroundFilings.get(db);
  if (!filing) {
    filing = new BackgroundFiling(db);
    backgroundFilings.set(db, filing);
  }
  filing.migrated(appId, channelUrl);
}

/**
 * Files the channel's stored migration requests into its history, oldest request first, so that
 * a read sees every request answered before it began. Each round moves up to
 * `batchesPerRound` requests in one statement (deleted and inserted together, so a crash loses
 * nothing and files nothing twice); a dedup_id already in the channel, or earlier in the same
 * round, is stored once (the first). A reader that finds a round taken by another waits on its
 * rows and goes on from where it ended.
 */
export async function fileMessages(
  db: Database,
  appId: string,
  channelUrl: string,
  batchesPerRound = 50,
): Promise<void> {
  const [{ through } = { through: null }] = await preparedQuery<{ through: string | null }>(
    db,
    "sandbox_pending_messages",
    pendingMessagesSql,
    [appId, channelUrl],
  );
  if (through === null) return;
  for (;;) {
    const [round] = await preparedQuery<{ remaining: boolean }>(
      db,
      "sandbox_file_messages",
      fileMessagesSql,
      [appId, channelUrl, through, batchesPerRound],
    );
    if (!round?.remaining) return;
  }
}

/**
 * One message as a record of its stored request: the columns of sandbox_messages, leaving out
 * those at their default (filing puts the default back), so a request is stored at about the
 * size it was sent.
 */
function toMessageRecord(message: MigratedMessage): Record<string, unknown> {
  const record: Record<string, unknown> = {
    message_type: message.message_type,
    timestamp: message.timestamp,
  };
  const sender = messageSender(message);
  if (sender !== undefined) record.user_id = sender;
  if (message.message_type === "FILE") {
    record.file = {
      url: message.url,
      name: message.file_name,
      type: message.file_type,
      size: message.file_size,
      data: message.custom_field,
      thumbnails: message.thumbnails,
      require_auth: message.require_auth,
    };
  } else {
    if (message.message !== "") record.message = message.message;
    if (message.data !== "") record.data = message.data;
  }
  if (message.custom_type !== "") record.custom_type = message.custom_type;
  if (message.mentioned_user_ids.length > 0) record.mentioned_user_ids = message.mentioned_user_ids;
  if (message.sorted_metaarray.length > 0) record.sorted_metaarray = message.sorted_metaarray;
  if (message.message_type === "ADMM" && message.is_silent) record.is_silent = true;
  if (message.dedup_id !== undefined) record.dedup_id = message.dedup_id;
  return record;
}

/**
 * Stores `size` requests (parameters: app, channel, senders, messages for each) in one round
 * trip, and answers each request's channel type and unknown senders, in order. The messages
 * travel as text PostgreSQL stores without reading; the senders as a JSON array, each looked up
 * by one index probe (a join here may be planned as a scan of every user of the application:
 * PGlite never analyzes, and a generic plan may not either).
 */
function storeRequestsSql(size: number): string {
  return `with input (n, app_id, channel_url, senders, messages) as (
  values ${Array.from({ length: size }, (_, index) => {
    const p = index * 4;
    return `(${index + 1}, $${p + 1}::text, $${p + 2}::text, $${p + 3}::json, $${p + 4}::text)`;
  }).join(",\n    ")}
), checked as (
  select i.*,
    -- The channel's row is locked until commit: a deletion of the channel waits, then deletes
    -- what was stored; one that came first leaves no row, and the request is refused.
    coalesce(
      (select 'open'::text from sandbox_open_channels as o
        where o.app_id = i.app_id and o.channel_url = i.channel_url for key share),
      (select 'group'::text from sandbox_group_channels as g
        where g.app_id = i.app_id and g.channel_url = i.channel_url for key share)
    ) as channel_type,
    (select array_agg(s.user_id)
      from json_array_elements_text(i.senders) as s(user_id)
      left join lateral (
        select true as found from sandbox_users as u
        where u.app_id = i.app_id and u.user_id = s.user_id limit 1
      ) as f on true
      where f.found is null) as missing
  from input as i
), stored as (
  insert into sandbox_message_batches (app_id, channel_url, channel_type, messages)
  select app_id, channel_url, channel_type, messages from checked
  where channel_type is not null and missing is null and messages is not null
  order by n
)
select n, channel_type, missing from checked order by n`;
}

// The newest request stored so far: a read files everything up to it, nothing stored after.
const pendingMessagesSql = `select max(batch_id)::text as through from sandbox_message_batches
  where app_id = $1 and channel_url = $2`;

// One round: the oldest stored requests, deleted and filed in one statement. Rows keep the
// requests' order (message_id breaks ties between equal timestamps). The JSON columns are read
// as text and cast: json_to_recordset filling jsonb columns itself costs several times more per
// row (measured on PostgreSQL 15). A round that found nothing to take (another reader holds it,
// or the channel was emptied) says whether anything up to \`through\` is left.
const fileMessagesSql = `with taken as (
  delete from sandbox_message_batches
  where batch_id in (
    select batch_id from sandbox_message_batches
    where app_id = $1 and channel_url = $2 and batch_id <= $3::bigint
    order by batch_id limit $4::int
  )
  returning batch_id, channel_type, messages
), stored as (
  insert into sandbox_messages (app_id, channel_url, channel_type, user_id, message_type, message,
    custom_type, data, file, mentioned_user_ids, sorted_metaarray, is_silent, dedup_id, "timestamp")
  select $1, $2, t.channel_type, r.user_id, r.message_type, coalesce(r.message, ''),
    coalesce(r.custom_type, ''), coalesce(r.data, ''), r.file::jsonb,
    coalesce(r.mentioned_user_ids, '[]')::jsonb, coalesce(r.sorted_metaarray, '[]')::jsonb,
    coalesce(r.is_silent, false), r.dedup_id, r."timestamp"
  from taken t
  cross join lateral rows from (json_to_recordset(t.messages::json) as (user_id text,
    message_type text, message text, custom_type text, data text, file text,
    mentioned_user_ids text, sorted_metaarray text, is_silent boolean, dedup_id text,
    "timestamp" bigint)) with ordinality as r(user_id, message_type, message, custom_type, data,
    file, mentioned_user_ids, sorted_metaarray, is_silent, dedup_id, "timestamp", n)
  order by t.batch_id, r.n
  on conflict do nothing
)
select exists (select 1 from taken) or exists (
    select 1 from sandbox_message_batches
    where app_id = $1 and channel_url = $2 and batch_id <= $3::bigint
  ) as remaining`;
