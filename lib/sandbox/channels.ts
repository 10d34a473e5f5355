import { randomBytes } from "node:crypto";
import { and, asc, eq, gt, inArray, or, sql, type SQL, type SQLWrapper } from "drizzle-orm";
import type { Database } from "@/lib/db/client";
import {
  sandboxGroupChannels,
  sandboxMessageBatches,
  sandboxMessages,
  sandboxOpenChannels,
  type GroupChannelMember,
} from "@/lib/db/schema";
import {
  groupChannelOptionIssues,
  groupMemberCapacity,
  OPERATORS_MAX,
  type GroupChannelUpdate,
  type OpenChannelUpdate,
  type GroupChannelListQuery,
  type OpenChannelListQuery,
  type ChannelListQuery,
  type ChannelUserSummary,
  type GroupChannelCreate,
  type GroupChannelInvite,
  type GroupChannelMembersQuery,
  type GroupChannelMemberResource,
  type GroupChannelResource,
  type OpenChannelCreate,
  type OpenChannelResource,
} from "@/lib/schemas/channels";
import type { MessageResource } from "@/lib/schemas/messages";
import type { FormFieldKinds } from "@/lib/schemas/form-fields";
import { groupChannelMemberSchema, userIdsSchema } from "@/lib/schemas/sandbox-storage";
import type { SandboxContext } from "./context";
import { ErrorCode, SandboxError } from "./errors";
import { storeImage } from "./files";
import { pageBySeq } from "./paging";
import {
  channelKey,
  channelNotFound,
  channelUrlInUse,
  findUsers,
  groupChannelKey,
  openChannelKey,
  userNotFound,
  type ChannelType,
  type Transaction,
  type UserRow,
} from "./lookups";
import { lastMessages } from "./message-reads";
import { formInput, formValue, isMultipart, readForm, readJsonObject } from "./request";

/** Every channel holds this; the platform's example value. */
const MAX_LENGTH_MESSAGE = 5000;

type OpenChannelRow = typeof sandboxOpenChannels.$inferSelect;
type GroupChannelRow = typeof sandboxGroupChannels.$inferSelect;

/** A stored channel's JSON columns (operators; a group channel's members), parsed where it is answered. */
function parsedOpenChannel(row: OpenChannelRow): OpenChannelRow {
  return { ...row, operatorIds: userIdsSchema.parse(row.operatorIds) };
}

function parsedGroupChannel(row: GroupChannelRow): GroupChannelRow {
  return {
    ...row,
    members: groupChannelMemberSchema.array().parse(row.members),
    operatorIds: userIdsSchema.parse(row.operatorIds),
  };
}
type CoverImage = { bytes: Uint8Array; contentType: string };

// ---------------------------------------------------------------------------
// Requests
// ---------------------------------------------------------------------------

/**
 * Reads a channel creation body, JSON or multipart. Multipart text fields become the JSON
 * shape (see `formFieldsToInput`) so one schema validates both; `cover_file` is returned
 * apart, unchecked, for `readImage`.
 */
export async function readChannelCreateBody(
  c: SandboxContext,
  formFields: FormFieldKinds,
): Promise<{ body: Record<string, unknown>; coverFile?: unknown }> {
  if (!isMultipart(c)) return { body: await readJsonObject(c) };
  const form = await readForm(c);
  return { body: formInput(form, formFields), coverFile: formValue(form, "cover_file") };
}

// ---------------------------------------------------------------------------
// Open channels
// ---------------------------------------------------------------------------

/**
 * Creates an open channel. Operators must be registered users (400201 otherwise): the
 * resource lists their nicknames, and migration registers users before channels.
 */
export async function createOpenChannel(
  c: SandboxContext,
  input: OpenChannelCreate,
  cover?: CoverImage,
): Promise<OpenChannelResource> {
  const db = c.get("db");
  const appId = c.get("app").id;
  const users = await findUsers(db, appId, input.operator_ids);
  const unknown = input.operator_ids.find((id) => !users.has(id));
  if (unknown !== undefined) throw userNotFound(unknown);
  const channelUrl = input.channel_url ?? generateChannelUrl("open");

  const row = await db.transaction(async (tx) => {
    const [inserted] = await tx
      .insert(sandboxOpenChannels)
      .values({
        ...(await sharedChannelColumns(c, tx, channelUrl, input, cover)),
        isDynamicPartitioned: input.is_dynamic_partitioned,
        operatorIds: input.operator_ids,
        createdAt: Math.floor(Date.now() / 1000),
      })
      .onConflictDoNothing()
      .returning();
    if (!inserted) throw channelUrlTaken(channelUrl);
    return inserted;
  });
  return toOpenChannelResource(row, users);
}

export async function getOpenChannel(
  db: Database,
  appId: string,
  channelUrl: string,
): Promise<OpenChannelResource> {
  return getChannel(db, openChannelStore, appId, channelUrl);
}

export async function listOpenChannels(
  db: Database,
  appId: string,
  query: OpenChannelListQuery,
): Promise<{ channels: OpenChannelResource[]; next: string }> {
  const table = sandboxOpenChannels;
  return listChannels(db, openChannelStore, appId, query, [
    query.url_contains === undefined ? undefined : contains(table.channelUrl, query.url_contains),
  ]);
}

export async function freezeOpenChannel(
  db: Database,
  appId: string,
  channelUrl: string,
  freeze: boolean,
): Promise<OpenChannelResource> {
  return freezeChannel(db, openChannelStore, appId, channelUrl, freeze);
}

/**
 * `PUT /v3/open_channels/{channel_url}`: the properties given change. `operator_ids` are
 * registered beside the operators there are (at most 100 in all), and must be users (400201),
 * as at creation.
 */
export async function updateOpenChannel(
  c: SandboxContext,
  channelUrl: string,
  input: OpenChannelUpdate,
  cover?: CoverImage,
): Promise<OpenChannelResource> {
  return updateChannel(c, openChannelStore, channelUrl, input, cover, () => ({}));
}

async function openChannelResources(
  db: Database,
  appId: string,
  stored: OpenChannelRow[],
): Promise<OpenChannelResource[]> {
  const rows = stored.map(parsedOpenChannel);
  const users = await findUsers(
    db,
    appId,
    rows.flatMap((row) => row.operatorIds),
  );
  return rows.map((row) => toOpenChannelResource(row, users));
}

function toOpenChannelResource(
  row: OpenChannelRow,
  users: Map<string, UserRow>,
): OpenChannelResource {
  return {
    name: row.name,
    channel_url: row.channelUrl,
    custom_type: row.customType,
    is_ephemeral: row.isEphemeral,
    participant_count: 0,
    max_length_message: MAX_LENGTH_MESSAGE,
    created_at: row.createdAt,
    cover_url: row.coverUrl,
    data: row.data,
    operators: existing(row.operatorIds, users).map(toUserSummary),
    freeze: row.freeze,
  };
}

// ---------------------------------------------------------------------------
// Group channels
// ---------------------------------------------------------------------------

/**
 * Creates a group channel, or returns the distinct channel it would duplicate. The member
 * caps (100, supergroups 2000) hold because one request names at most 100 users.
 * Members, operators and the inviter must be registered users: with `strict` an unknown id
 * is refused (400111), without it the id is left out (and `created_by` is null).
 */
export async function createGroupChannel(
  c: SandboxContext,
  input: GroupChannelCreate,
  cover?: CoverImage,
): Promise<GroupChannelResource> {
  const db = c.get("db");
  const appId = c.get("app").id;
  const inviterIds = input.inviter_id === undefined ? [] : [input.inviter_id];
  const named = [...input.member_ids, ...input.operator_ids, ...inviterIds];
  const users = await findUsers(db, appId, named);
  const unknown = named.find((id) => !users.has(id));
  if (input.strict && unknown !== undefined) {
    throw new SandboxError(
      ErrorCode.invalidValue,
      `"strict" is true and user "${unknown}" does not exist.`,
    );
  }

  const members: GroupChannelMember[] = existing(input.member_ids, users).map((user) => ({
    user_id: user.userId,
    state: input.invitation_status[user.userId]?.startsWith("invited") ? "invited" : "joined",
    hidden_status: input.hidden_status[user.userId] ?? "unhidden",
  }));
  const distinctKey = input.is_distinct ? distinctKeyOf(input.custom_type, members) : null;
  const channelUrl = input.channel_url ?? generateChannelUrl("group");

  let reused = false;
  const row = await db.transaction(async (tx) => {
    if (distinctKey !== null) {
      // Serialises distinct creations of one member set, so two of them never make two channels.
      await advisoryLock(tx, `distinct:${appId}:${distinctKey}`);
      const [existingChannel] = await tx
        .select()
        .from(sandboxGroupChannels)
        .where(
          and(
            eq(sandboxGroupChannels.appId, appId),
            eq(sandboxGroupChannels.distinctKey, distinctKey),
          ),
        )
        .orderBy(asc(sandboxGroupChannels.seq))
        .limit(1);
      if (existingChannel) {
        reused = true;
        return existingChannel;
      }
    }
    const [inserted] = await tx
      .insert(sandboxGroupChannels)
      .values({
        ...(await sharedChannelColumns(c, tx, channelUrl, input, cover)),
        isDistinct: input.is_distinct,
        isPublic: input.is_public,
        isSuper: input.is_super,
        accessCode: input.access_code || null,
        blockSdkUserChannelJoin: input.block_sdk_user_channel_join,
        createdBy:
          input.inviter_id !== undefined && users.has(input.inviter_id) ? input.inviter_id : null,
        members,
        operatorIds: existing(input.operator_ids, users).map((user) => user.userId),
        distinctKey,
        createdAt: Date.now(),
      })
      .onConflictDoNothing()
      .returning();
    if (!inserted) throw channelUrlTaken(channelUrl);
    return inserted;
  });
  // A channel just made has no messages yet; a distinct channel answered instead may.
  if (reused) return (await groupChannelResources(db, appId, [row]))[0]!;
  return toGroupChannelResource(row, await findUsers(db, appId, groupChannelUserIds(row)), null);
}

export async function getGroupChannel(
  db: Database,
  appId: string,
  channelUrl: string,
): Promise<GroupChannelResource> {
  return getChannel(db, groupChannelStore, appId, channelUrl);
}

/**
 * One page of group channels. As on the real platform, channels without messages are left
 * out unless `show_empty`, and `members` only with `show_member`.
 */
export async function listGroupChannels(
  db: Database,
  appId: string,
  query: GroupChannelListQuery,
): Promise<{ channels: GroupChannelResource[]; next: string }> {
  const table = sandboxGroupChannels;
  const memberIn = (userId: string) =>
    sql`${table.members} @> ${JSON.stringify([{ user_id: userId }])}::jsonb`;
  const exactly = query.members_exactly_in ?? [];
  const including = query.members_include_in ?? [];
  const { channels, next } = await listChannels(db, groupChannelStore, appId, query, [
    query.name === undefined ? undefined : eq(table.name, query.name),
    query.name_startswith === undefined
      ? undefined
      : sql`starts_with(${table.name}, ${query.name_startswith})`,
    exactly.length === 0
      ? undefined
      : and(
          ...exactly.map(memberIn),
          sql`jsonb_array_length(${table.members}) = ${exactly.length}`,
        ),
    including.length === 0
      ? undefined
      : (query.query_type === "OR" ? or : and)(...including.map(memberIn)),
    query.show_empty
      ? undefined
      : or(
          sql`exists (select 1 from ${sandboxMessages} where ${sandboxMessages.appId} = ${table.appId} and ${sandboxMessages.channelUrl} = ${table.channelUrl})`,
          // Messages migrated but not yet filed (lib/sandbox/messages.ts); every request holds one.
          sql`exists (select 1 from ${sandboxMessageBatches} where ${sandboxMessageBatches.appId} = ${table.appId} and ${sandboxMessageBatches.channelUrl} = ${table.channelUrl})`,
        ),
  ]);
  return {
    channels: query.show_member ? channels : channels.map(({ members: _, ...channel }) => channel),
    next,
  };
}

export async function freezeGroupChannel(
  db: Database,
  appId: string,
  channelUrl: string,
  freeze: boolean,
): Promise<GroupChannelResource> {
  return freezeChannel(db, groupChannelStore, appId, channelUrl, freeze);
}

/**
 * `PUT /v3/group_channels/{channel_url}`: the properties given change, by the rules of
 * creation applied to the channel as it would be (a supergroup is never distinct, only a public
 * channel has an access code: 400111), and a supergroup becomes a normal channel only while it
 * has at most 100 members. `operator_ids` are registered beside the operators there are.
 */
export async function updateGroupChannel(
  c: SandboxContext,
  channelUrl: string,
  input: GroupChannelUpdate,
  cover?: CoverImage,
): Promise<GroupChannelResource> {
  return updateChannel(c, groupChannelStore, channelUrl, input, cover, (channel) => {
    const options = {
      is_super: input.is_super ?? channel.isSuper,
      is_distinct: input.is_distinct ?? channel.isDistinct,
      is_public: input.is_public ?? channel.isPublic,
      access_code: input.access_code === undefined ? channel.accessCode : input.access_code,
    };
    const [conflict] = groupChannelOptionIssues(options);
    if (conflict) throw new SandboxError(ErrorCode.invalidValue, conflict.message);
    const capacity = groupMemberCapacity(options);
    if (channel.members.length > capacity) {
      throw new SandboxError(
        ErrorCode.invalidValue,
        `"is_super": the channel has ${channel.members.length} members, more than the ${capacity} a channel that is no supergroup may have.`,
      );
    }
    const customType = input.custom_type ?? channel.customType;
    return {
      isSuper: options.is_super,
      isDistinct: options.is_distinct,
      isPublic: options.is_public,
      accessCode: options.access_code || null,
      distinctKey: options.is_distinct ? distinctKeyOf(customType, channel.members) : null,
    };
  });
}

/** Channels as answered, each with its members' profiles and its `last_message` as they are now. */
async function groupChannelResources(
  db: Database,
  appId: string,
  stored: GroupChannelRow[],
): Promise<GroupChannelResource[]> {
  const rows = stored.map(parsedGroupChannel);
  const [users, latest] = await Promise.all([
    findUsers(db, appId, rows.flatMap(groupChannelUserIds)),
    lastMessages(
      db,
      appId,
      rows.map((row) => row.channelUrl),
    ),
  ]);
  return rows.map((row) => toGroupChannelResource(row, users, latest.get(row.channelUrl) ?? null));
}

/**
 * Adds members to a group channel, up to its cap (100, supergroups 2000). The channel row is
 * locked while members are added, so concurrent invitations cannot together pass the cap; a
 * request that would pass it adds no one (400111). Users already members stay as they are.
 */
export async function inviteGroupChannelMembers(
  db: Database,
  appId: string,
  channelUrl: string,
  input: GroupChannelInvite,
): Promise<GroupChannelResource> {
  const row = await db.transaction(async (tx) => {
    const [channel] = await tx
      .select()
      .from(sandboxGroupChannels)
      .where(groupChannelKey(appId, channelUrl))
      .for("update");
    if (!channel) throw channelNotFound(channelUrl);
    const users = await findUsers(tx, appId, input.member_ids);
    const unknown = input.member_ids.find((id) => !users.has(id));
    if (unknown !== undefined) throw userNotFound(unknown);
    const present = new Set(channel.members.map((member) => member.user_id));
    const added: GroupChannelMember[] = input.member_ids
      .filter((id) => !present.has(id))
      .map((id) => ({
        user_id: id,
        state: input.invitation_status[id]?.startsWith("invited") ? "invited" : "joined",
        hidden_status: input.hidden_status[id] ?? "unhidden",
      }));
    const capacity = groupMemberCapacity({ is_super: channel.isSuper });
    if (channel.members.length + added.length > capacity) {
      throw new SandboxError(
        ErrorCode.invalidValue,
        `The channel would have ${channel.members.length + added.length} members: at most ${capacity}.`,
      );
    }
    if (added.length === 0) return channel;
    const members = [...channel.members, ...added];
    const [updated] = await tx
      .update(sandboxGroupChannels)
      .set({
        members,
        distinctKey: channel.isDistinct ? distinctKeyOf(channel.customType, members) : null,
      })
      .where(groupChannelKey(appId, channelUrl))
      .returning();
    return updated ?? channel;
  });
  return (await groupChannelResources(db, appId, [row]))[0]!;
}

/**
 * One page of a group channel's members, by nickname (operators first with
 * `operator_then_member_alphabetical`). The token holds the sort key of the page's last
 * member, so members added meanwhile never shift the pages not read yet.
 */
export async function listGroupChannelMembers(
  db: Database,
  appId: string,
  channelUrl: string,
  query: GroupChannelMembersQuery,
): Promise<{ members: GroupChannelMemberResource[]; next: string }> {
  const [stored] = await db
    .select()
    .from(sandboxGroupChannels)
    .where(groupChannelKey(appId, channelUrl))
    .limit(1);
  if (!stored) throw channelNotFound(channelUrl);
  const row = parsedGroupChannel(stored);
  const users = await findUsers(
    db,
    appId,
    row.members.map((member) => member.user_id),
  );
  const operatorIds = new Set(row.operatorIds);
  const operatorsFirst = query.order === "operator_then_member_alphabetical";
  const sortKey = (member: GroupChannelMemberResource): MemberSortKey => [
    operatorsFirst && member.role === "operator" ? 0 : 1,
    member.nickname,
    member.user_id,
  ];
  const after = decodeMembersToken(query.token ?? query.next ?? "");
  const members = row.members
    .flatMap((member) => {
      const user = users.get(member.user_id);
      if (!user) return [];
      const role = operatorIds.has(user.userId) ? ("operator" as const) : ("" as const);
      return [{ ...toMemberProfile(user, member.state), role }];
    })
    .filter(
      (member) =>
        (query.operator_filter === "all" ||
          (query.operator_filter === "operator") === (member.role === "operator")) &&
        (query.member_state_filter === "all" ||
          (query.member_state_filter === "joined_only") === (member.state === "joined")) &&
        (query.member_active_mode_filter === "all" ||
          (query.member_active_mode_filter === "activated") === member.is_active) &&
        (query.nickname_startswith === undefined ||
          member.nickname.startsWith(query.nickname_startswith)) &&
        (after === undefined || compareKeys(sortKey(member), after) > 0),
    )
    .sort((a, b) => compareKeys(sortKey(a), sortKey(b)));
  const page = members.slice(0, query.limit);
  const last = page.at(-1);
  return {
    members: page,
    next:
      members.length > query.limit && last
        ? Buffer.from(`members:${JSON.stringify(sortKey(last))}`).toString("base64url")
        : "",
  };
}

type MemberSortKey = [number, string, string];

function compareKeys(a: MemberSortKey, b: MemberSortKey): number {
  for (let i = 0; i < a.length; i++) {
    if (a[i]! < b[i]!) return -1;
    if (a[i]! > b[i]!) return 1;
  }
  return 0;
}

function decodeMembersToken(token: string): MemberSortKey | undefined {
  if (token === "") return undefined;
  const text = Buffer.from(token, "base64url").toString("utf8");
  try {
    const key: unknown = text.startsWith("members:") ? JSON.parse(text.slice(8)) : undefined;
    if (
      Array.isArray(key) &&
      key.length === 3 &&
      typeof key[0] === "number" &&
      typeof key[1] === "string" &&
      typeof key[2] === "string"
    )
      return key as MemberSortKey;
  } catch {
    // Not a token of this list; refused below.
  }
  throw new SandboxError(ErrorCode.invalidValue, '"token" is not a token this list returned.');
}

function distinctKeyOf(customType: string, members: GroupChannelMember[]): string {
  return JSON.stringify([customType, members.map((member) => member.user_id).sort()]);
}

/** Takes a user out of the members of every group channel (a deactivation, by default). */
export async function leaveAllGroupChannels(
  db: Database | Transaction,
  appId: string,
  userId: string,
): Promise<void> {
  await db
    .update(sandboxGroupChannels)
    .set({
      members: sql`(select coalesce(jsonb_agg(member order by position), '[]'::jsonb)
        from jsonb_array_elements(${sandboxGroupChannels.members}) with ordinality as t(member, position)
        where member ->> 'user_id' <> ${userId})`,
    })
    .where(
      and(
        eq(sandboxGroupChannels.appId, appId),
        sql`${sandboxGroupChannels.members} @> ${JSON.stringify([{ user_id: userId }])}::jsonb`,
      ),
    );
}

function groupChannelUserIds(row: GroupChannelRow): string[] {
  return [
    ...row.members.map((member) => member.user_id),
    ...row.operatorIds,
    ...(row.createdBy ? [row.createdBy] : []),
  ];
}

/**
 * Nicknames, profile images and activity are read from the users at answer time, as the
 * platform does. A user deleted since the channel was made is no longer listed.
 */
function toGroupChannelResource(
  row: GroupChannelRow,
  users: Map<string, UserRow>,
  lastMessage: MessageResource | null,
): GroupChannelResource {
  const operatorIds = new Set(row.operatorIds);
  const stateOf = new Map(row.members.map((member) => [member.user_id, member.state]));
  const members = row.members.flatMap((member) => {
    const user = users.get(member.user_id);
    if (!user) return [];
    return [
      {
        ...toMemberProfile(user, member.state),
        role: operatorIds.has(user.userId) ? "operator" : "",
      } as const,
    ];
  });
  const creator = row.createdBy === null ? undefined : users.get(row.createdBy);
  const createdAt = Math.floor(row.createdAt / 1000);
  return {
    name: row.name,
    channel_url: row.channelUrl,
    cover_url: row.coverUrl,
    custom_type: row.customType,
    unread_message_count: 0,
    data: row.data,
    is_distinct: row.isDistinct,
    is_public: row.isPublic,
    is_super: row.isSuper,
    is_ephemeral: row.isEphemeral,
    is_access_code_required: row.accessCode !== null,
    member_count: members.length,
    joined_member_count: members.filter((member) => member.state === "joined").length,
    unread_mention_count: 0,
    created_by: creator
      ? { ...toUserSummary(creator), require_auth_for_profile_image: false }
      : null,
    members,
    // An operator who is not a member has no member state.
    operators: existing(row.operatorIds, users).map((user) =>
      toMemberProfile(user, stateOf.get(user.userId) ?? ""),
    ),
    last_message: lastMessage,
    message_survival_seconds: -1,
    max_length_message: MAX_LENGTH_MESSAGE,
    created_at: createdAt,
    freeze: row.freeze,
    channel: {
      name: row.name,
      channel_url: row.channelUrl,
      cover_url: row.coverUrl,
      custom_type: row.customType,
      data: row.data,
      member_count: members.length,
      max_length_message: MAX_LENGTH_MESSAGE,
      created_at: createdAt,
    },
  };
}

function toMemberProfile(user: UserRow, state: GroupChannelMemberResource["state"]) {
  return {
    ...toUserSummary(user),
    is_active: user.isActive,
    is_online: false,
    last_seen_at: -1,
    state,
    metadata: user.metadata,
  };
}

// ---------------------------------------------------------------------------
// Both kinds
// ---------------------------------------------------------------------------

/** Deletes a channel of either kind and its messages; 400201 when there is none. */
export async function deleteChannel(
  db: Database,
  appId: string,
  type: ChannelType,
  channelUrl: string,
): Promise<void> {
  await db.transaction(async (tx) => {
    const deleted =
      type === "open"
        ? await tx
            .delete(sandboxOpenChannels)
            .where(openChannelKey(appId, channelUrl))
            .returning({ url: sandboxOpenChannels.channelUrl })
        : await tx
            .delete(sandboxGroupChannels)
            .where(groupChannelKey(appId, channelUrl))
            .returning({ url: sandboxGroupChannels.channelUrl });
    if (deleted.length === 0) throw channelNotFound(channelUrl);
    // Stored requests first: a filing under way holds them until it commits, and the messages
    // it filed are then seen, and deleted, by the next statement (none is left behind for a
    // channel created again under the same URL).
    await tx
      .delete(sandboxMessageBatches)
      .where(
        and(
          eq(sandboxMessageBatches.appId, appId),
          eq(sandboxMessageBatches.channelUrl, channelUrl),
        ),
      );
    await tx
      .delete(sandboxMessages)
      .where(and(eq(sandboxMessages.appId, appId), eq(sandboxMessages.channelUrl, channelUrl)));
  });
}

/** The filters both channel lists take. */
// ---------------------------------------------------------------------------
// Both types: read, listed and frozen alike
// ---------------------------------------------------------------------------

type ChannelTable = typeof sandboxOpenChannels | typeof sandboxGroupChannels;

/** What sets one channel type apart where both are read, listed and frozen alike. */
type ChannelStore<Table extends ChannelTable, Resource> = {
  table: Table;
  /** The list's name in its page tokens. */
  list: "open_channels" | "group_channels";
  resources: (db: Database, appId: string, rows: Table["$inferSelect"][]) => Promise<Resource[]>;
};

const openChannelStore: ChannelStore<typeof sandboxOpenChannels, OpenChannelResource> = {
  table: sandboxOpenChannels,
  list: "open_channels",
  resources: openChannelResources,
};

const groupChannelStore: ChannelStore<typeof sandboxGroupChannels, GroupChannelResource> = {
  table: sandboxGroupChannels,
  list: "group_channels",
  resources: groupChannelResources,
};

async function getChannel<Table extends ChannelTable, Resource>(
  db: Database,
  { table, resources }: ChannelStore<Table, Resource>,
  appId: string,
  channelUrl: string,
): Promise<Resource> {
  const rows = await db
    .select()
    .from(table as ChannelTable)
    .where(channelKey(table, appId, channelUrl))
    .limit(1);
  return theOne(await resources(db, appId, rows as Table["$inferSelect"][]), channelUrl);
}

/** One page of the app's channels that pass the filters both lists take and `filters`. */
async function listChannels<Table extends ChannelTable, Resource>(
  db: Database,
  { table, list, resources }: ChannelStore<Table, Resource>,
  appId: string,
  query: ChannelListQuery,
  filters: Array<SQL | undefined>,
): Promise<{ channels: Resource[]; next: string }> {
  const { page, next } = await pageBySeq(list, query, (after, limit) =>
    db
      .select()
      .from(table as ChannelTable)
      .where(
        and(
          eq(table.appId, appId),
          query.channel_urls?.length ? inArray(table.channelUrl, query.channel_urls) : undefined,
          query.custom_types?.length ? inArray(table.customType, query.custom_types) : undefined,
          query.name_contains === undefined ? undefined : contains(table.name, query.name_contains),
          ...filters,
          gt(table.seq, after),
        ),
      )
      .orderBy(asc(table.seq))
      .limit(limit),
  );
  return { channels: await resources(db, appId, page as Table["$inferSelect"][]), next };
}

async function freezeChannel<Table extends ChannelTable, Resource>(
  db: Database,
  { table, resources }: ChannelStore<Table, Resource>,
  appId: string,
  channelUrl: string,
  freeze: boolean,
): Promise<Resource> {
  const rows = await db
    .update(table as ChannelTable)
    .set({ freeze })
    .where(channelKey(table, appId, channelUrl))
    .returning();
  return theOne(await resources(db, appId, rows as Table["$inferSelect"][]), channelUrl);
}

/**
 * Changes the properties an update gives, on the channel locked for the change: the columns
 * both kinds have, operators registered beside those there are (each a user, 400201; at most
 * 100, 400111), and what `changes` makes of the channel as it is (its own rules refuse there).
 */
async function updateChannel<Table extends ChannelTable, Resource>(
  c: SandboxContext,
  { table, resources }: ChannelStore<Table, Resource>,
  channelUrl: string,
  input: OpenChannelUpdate,
  cover: CoverImage | undefined,
  changes: (channel: Table["$inferSelect"]) => Partial<Table["$inferInsert"]>,
): Promise<Resource> {
  const db = c.get("db");
  const appId = c.get("app").id;
  await requireUsers(db, appId, input.operator_ids ?? []);
  const rows = await db.transaction(async (tx) => {
    const [channel] = (await tx
      .select()
      .from(table as ChannelTable)
      .where(channelKey(table, appId, channelUrl))
      .for("update")) as Table["$inferSelect"][];
    if (!channel) throw channelNotFound(channelUrl);
    return tx
      .update(table as ChannelTable)
      .set({
        ...changes(channel),
        ...(await sharedChannelChanges(c, tx, input, cover)),
        operatorIds: registeredOperators(channel.operatorIds, input.operator_ids),
      })
      .where(channelKey(table, appId, channelUrl))
      .returning();
  });
  return theOne(await resources(db, appId, rows as Table["$inferSelect"][]), channelUrl);
}

function contains(column: SQLWrapper, text: string): SQL {
  return sql`strpos(${column}, ${text}) > 0`;
}

/** The resource of a get or freeze, which found one row or none. */
function theOne<Resource>(resources: Resource[], channelUrl: string): Resource {
  const [resource] = resources;
  if (!resource) throw channelNotFound(channelUrl);
  return resource;
}

function channelUrlTaken(channelUrl: string): SandboxError {
  return new SandboxError(
    ErrorCode.alreadyExists,
    `A channel with channel_url "${channelUrl}" already exists.`,
  );
}

/**
 * 160 random bits after the platform's own prefix: a collision is not a practical concern,
 * and would be refused with 400202 like any taken URL rather than overwrite anything.
 */
function generateChannelUrl(type: ChannelType): string {
  return `sendbird_${type}_channel_${randomBytes(20).toString("hex")}`;
}

/** Refuses (400201) the first id that names no user. */
async function requireUsers(db: Database, appId: string, userIds: string[]): Promise<void> {
  const users = await findUsers(db, appId, userIds);
  const unknown = userIds.find((id) => !users.has(id));
  if (unknown !== undefined) throw userNotFound(unknown);
}

/** The operators after an update registers `added` beside them: each once, at most 100. */
function registeredOperators(current: string[], added: string[] = []): string[] {
  const operators = [...new Set([...current, ...added])];
  if (operators.length > OPERATORS_MAX) {
    throw new SandboxError(
      ErrorCode.invalidValue,
      `"operator_ids": the channel would have ${operators.length} operators: at most ${OPERATORS_MAX}.`,
    );
  }
  return operators;
}

/** The columns an update of either kind changes, with an uploaded cover stored in its transaction. */
async function sharedChannelChanges(
  c: SandboxContext,
  tx: Transaction,
  input: OpenChannelUpdate,
  cover?: CoverImage,
) {
  const coverUrl = cover ? await storeImage(c, cover, tx) : input.cover_url;
  return {
    ...(input.name !== undefined && { name: input.name }),
    ...(coverUrl !== undefined && { coverUrl }),
    ...(input.custom_type !== undefined && { customType: input.custom_type }),
    ...(input.data !== undefined && { data: input.data }),
  };
}

/**
 * The columns both channel types are created with, once the URL is claimed and the cover
 * stored (or the given cover URL kept) in the transaction that inserts the channel.
 */
async function sharedChannelColumns(
  c: SandboxContext,
  tx: Transaction,
  channelUrl: string,
  input: OpenChannelCreate | GroupChannelCreate,
  cover?: CoverImage,
) {
  const appId = c.get("app").id;
  await claimChannelUrl(tx, appId, channelUrl);
  return {
    appId,
    channelUrl,
    name: input.name,
    coverUrl: cover ? await storeImage(c, cover, tx) : input.cover_url,
    customType: input.custom_type,
    data: input.data,
    isEphemeral: input.is_ephemeral,
  };
}

/**
 * One channel_url names one channel of an application, open or group. The two tables have
 * their own keys, so creations take a lock on the URL before checking both.
 */
async function claimChannelUrl(tx: Transaction, appId: string, channelUrl: string): Promise<void> {
  await advisoryLock(tx, `channel_url:${appId}:${channelUrl}`);
  if (await channelUrlInUse(tx, appId, channelUrl)) throw channelUrlTaken(channelUrl);
}

/** Held until the transaction ends. */
async function advisoryLock(tx: Transaction, key: string): Promise<void> {
  await tx.execute(sql`select pg_advisory_xact_lock(hashtextextended(${key}, 0))`);
}

/** The users of `ids` that exist, in the order of `ids`. */
function existing(ids: readonly string[], users: Map<string, UserRow>): UserRow[] {
  return ids.flatMap((id) => users.get(id) ?? []);
}

function toUserSummary(user: UserRow): ChannelUserSummary {
  return { user_id: user.userId, nickname: user.nickname, profile_url: user.profileUrl };
}
