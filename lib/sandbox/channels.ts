import { randomBytes } from "node:crypto";
import { and, asc, eq, gt, inArray, sql } from "drizzle-orm";
import type { Database } from "@/lib/db/client";
import {
  sandboxGroupChannels,
  sandboxOpenChannels,
  sandboxUsers,
  type GroupChannelMember,
} from "@/lib/db/schema";
import type {
  ChannelListQuery,
  ChannelUserSummary,
  GroupChannelCreate,
  GroupChannelMemberResource,
  GroupChannelResource,
  OpenChannelCreate,
  OpenChannelResource,
} from "@/lib/schemas/channels";
import {
  collectFormFields,
  formFieldsToInput,
  type FormFieldKinds,
} from "@/lib/schemas/form-fields";
import type { SandboxContext } from "./context";
import { ErrorCode, SandboxError } from "./errors";
import { storeImage } from "./files";
import { isMultipart, readJsonObject, refuseUnstorable } from "./request";

/** Every channel holds this; the platform's example value. */
const MAX_LENGTH_MESSAGE = 5000;

type UserRow = typeof sandboxUsers.$inferSelect;
type OpenChannelRow = typeof sandboxOpenChannels.$inferSelect;
type GroupChannelRow = typeof sandboxGroupChannels.$inferSelect;
type CoverImage = { bytes: Uint8Array; contentType: string };
export type ChannelType = "open" | "group";

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
): Promise<{ body: Record<string, unknown>; coverFile?: FormDataEntryValue }> {
  if (!isMultipart(c)) return { body: await readJsonObject(c) };
  let form: FormData;
  try {
    form = await c.req.formData();
  } catch (error) {
    if (error instanceof SandboxError) throw error;
    throw new SandboxError(ErrorCode.malformedBody, "The multipart body could not be read.");
  }
  const body = refuseUnstorable(formFieldsToInput(collectFormFields(form.entries()), formFields));
  return { body, coverFile: form.get("cover_file") ?? undefined };
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
    await claimChannelUrl(tx, appId, channelUrl);
    const coverUrl = cover ? await storeImage(c, cover, tx) : input.cover_url;
    const [inserted] = await tx
      .insert(sandboxOpenChannels)
      .values({
        appId,
        channelUrl,
        name: input.name,
        coverUrl,
        customType: input.custom_type,
        data: input.data,
        isEphemeral: input.is_ephemeral,
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
  const [row] = await db
    .select()
    .from(sandboxOpenChannels)
    .where(openChannelKey(appId, channelUrl))
    .limit(1);
  if (!row) throw channelNotFound(channelUrl);
  return toOpenChannelResource(row, await findUsers(db, appId, row.operatorIds));
}

export async function listOpenChannels(
  db: Database,
  appId: string,
  query: ChannelListQuery,
): Promise<{ channels: OpenChannelResource[]; next: string }> {
  const { page, next } = await pageOf("open", query, (after, limit) =>
    db
      .select()
      .from(sandboxOpenChannels)
      .where(and(eq(sandboxOpenChannels.appId, appId), gt(sandboxOpenChannels.seq, after)))
      .orderBy(asc(sandboxOpenChannels.seq))
      .limit(limit),
  );
  const users = await findUsers(
    db,
    appId,
    page.flatMap((row) => row.operatorIds),
  );
  return { channels: page.map((row) => toOpenChannelResource(row, users)), next };
}

export async function freezeOpenChannel(
  db: Database,
  appId: string,
  channelUrl: string,
  freeze: boolean,
): Promise<OpenChannelResource> {
  const [row] = await db
    .update(sandboxOpenChannels)
    .set({ freeze })
    .where(openChannelKey(appId, channelUrl))
    .returning();
  if (!row) throw channelNotFound(channelUrl);
  return toOpenChannelResource(row, await findUsers(db, appId, row.operatorIds));
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
  const distinctKey = input.is_distinct
    ? JSON.stringify([input.custom_type, members.map((member) => member.user_id).sort()])
    : null;
  const channelUrl = input.channel_url ?? generateChannelUrl("group");

  const row = await db.transaction(async (tx) => {
    if (distinctKey !== null) {
      // Serialises distinct creations of one member set, so two of them never make two channels.
      await advisoryLock(tx, `distinct:${appId}:${distinctKey}`);
      const [reused] = await tx
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
      if (reused) return reused;
    }
    await claimChannelUrl(tx, appId, channelUrl);
    const coverUrl = cover ? await storeImage(c, cover, tx) : input.cover_url;
    const [inserted] = await tx
      .insert(sandboxGroupChannels)
      .values({
        appId,
        channelUrl,
        name: input.name,
        coverUrl,
        customType: input.custom_type,
        data: input.data,
        isDistinct: input.is_distinct,
        isPublic: input.is_public,
        isSuper: input.is_super,
        isEphemeral: input.is_ephemeral,
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
  return toGroupChannelResource(row, await findUsers(db, appId, groupChannelUserIds(row)));
}

export async function getGroupChannel(
  db: Database,
  appId: string,
  channelUrl: string,
): Promise<GroupChannelResource> {
  const [row] = await db
    .select()
    .from(sandboxGroupChannels)
    .where(groupChannelKey(appId, channelUrl))
    .limit(1);
  if (!row) throw channelNotFound(channelUrl);
  return toGroupChannelResource(row, await findUsers(db, appId, groupChannelUserIds(row)));
}

export async function listGroupChannels(
  db: Database,
  appId: string,
  query: ChannelListQuery,
): Promise<{ channels: GroupChannelResource[]; next: string }> {
  const { page, next } = await pageOf("group", query, (after, limit) =>
    db
      .select()
      .from(sandboxGroupChannels)
      .where(and(eq(sandboxGroupChannels.appId, appId), gt(sandboxGroupChannels.seq, after)))
      .orderBy(asc(sandboxGroupChannels.seq))
      .limit(limit),
  );
  const users = await findUsers(db, appId, page.flatMap(groupChannelUserIds));
  return { channels: page.map((row) => toGroupChannelResource(row, users)), next };
}

export async function freezeGroupChannel(
  db: Database,
  appId: string,
  channelUrl: string,
  freeze: boolean,
): Promise<GroupChannelResource> {
  const [row] = await db
    .update(sandboxGroupChannels)
    .set({ freeze })
    .where(groupChannelKey(appId, channelUrl))
    .returning();
  if (!row) throw channelNotFound(channelUrl);
  return toGroupChannelResource(row, await findUsers(db, appId, groupChannelUserIds(row)));
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
    last_message: null,
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

/** Which kind of channel a URL names, for operations that take either (message migration). */
export async function findChannelType(
  db: Database,
  appId: string,
  channelUrl: string,
): Promise<ChannelType | undefined> {
  const [open] = await db
    .select({ channelUrl: sandboxOpenChannels.channelUrl })
    .from(sandboxOpenChannels)
    .where(openChannelKey(appId, channelUrl))
    .limit(1);
  if (open) return "open";
  const [group] = await db
    .select({ channelUrl: sandboxGroupChannels.channelUrl })
    .from(sandboxGroupChannels)
    .where(groupChannelKey(appId, channelUrl))
    .limit(1);
  return group ? "group" : undefined;
}

export function channelNotFound(channelUrl: string): SandboxError {
  return new SandboxError(ErrorCode.notFound, `No channel with channel_url "${channelUrl}".`);
}

export function userNotFound(userId: string): SandboxError {
  return new SandboxError(ErrorCode.notFound, `No user with user_id "${userId}".`);
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

type Transaction = Parameters<Parameters<Database["transaction"]>[0]>[0];

/**
 * One channel_url names one channel of an application, open or group. The two tables have
 * their own keys, so creations take a lock on the URL before checking both.
 */
async function claimChannelUrl(tx: Transaction, appId: string, channelUrl: string): Promise<void> {
  await advisoryLock(tx, `channel_url:${appId}:${channelUrl}`);
  if (await findChannelType(tx, appId, channelUrl)) throw channelUrlTaken(channelUrl);
}

/** Held until the transaction ends. */
async function advisoryLock(tx: Transaction, key: string): Promise<void> {
  await tx.execute(sql`select pg_advisory_xact_lock(hashtextextended(${key}, 0))`);
}

export async function findUsers(
  db: Database,
  appId: string,
  userIds: readonly string[],
): Promise<Map<string, UserRow>> {
  const ids = [...new Set(userIds)];
  if (ids.length === 0) return new Map();
  const rows = await db
    .select()
    .from(sandboxUsers)
    .where(and(eq(sandboxUsers.appId, appId), inArray(sandboxUsers.userId, ids)));
  return new Map(rows.map((row) => [row.userId, row]));
}

/** The users of `ids` that exist, in the order of `ids`. */
function existing(ids: readonly string[], users: Map<string, UserRow>): UserRow[] {
  return ids.flatMap((id) => users.get(id) ?? []);
}

function toUserSummary(user: UserRow): ChannelUserSummary {
  return { user_id: user.userId, nickname: user.nickname, profile_url: user.profileUrl };
}

/**
 * One page of a list in creation order. `next` holds the position after the page's last
 * channel, so channels created meanwhile never shift a page.
 */
async function pageOf<Row extends { seq: number }>(
  type: ChannelType,
  query: ChannelListQuery,
  select: (afterSeq: number, limit: number) => Promise<Row[]>,
): Promise<{ page: Row[]; next: string }> {
  const rows = await select(decodeNextToken(type, query.next), query.limit + 1);
  const page = rows.slice(0, query.limit);
  const last = page.at(-1);
  const next =
    rows.length > query.limit && last
      ? Buffer.from(`${type}_channels:${last.seq}`).toString("base64url")
      : "";
  return { page, next };
}

function decodeNextToken(type: ChannelType, token: string): number {
  if (token === "") return 0;
  const position = new RegExp(`^${type}_channels:(\\d{1,15})$`).exec(
    Buffer.from(token, "base64url").toString("utf8"),
  );
  if (!position?.[1])
    throw new SandboxError(ErrorCode.invalidValue, '"next" is not a token this list returned.');
  return Number(position[1]);
}

function openChannelKey(appId: string, channelUrl: string) {
  return and(eq(sandboxOpenChannels.appId, appId), eq(sandboxOpenChannels.channelUrl, channelUrl));
}

function groupChannelKey(appId: string, channelUrl: string) {
  return and(
    eq(sandboxGroupChannels.appId, appId),
    eq(sandboxGroupChannels.channelUrl, channelUrl),
  );
}
