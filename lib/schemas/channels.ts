import { z } from "zod";
import type { FormFieldKinds } from "./form-fields";
import { messageResourceSchema } from "./message-resource";
import { queryBoolean, storableString, textInteger } from "./text-values";

// Limits of the platform interface (sections 4.4, 4.5 and 8).
export const CHANNEL_URL_MIN = 4;
export const CHANNEL_URL_MAX = 100;
export const CHANNEL_NAME_MAX = 191;
export const COVER_URL_MAX = 2048;
export const CUSTOM_TYPE_MAX = 128;
export const OPERATORS_MAX = 100;
export const USERS_PER_REQUEST_MAX = 100;
export const GROUP_MEMBERS_MAX = 100;
export const SUPERGROUP_MEMBERS_MAX = 2000;
export const CHANNEL_LIST_LIMIT_MAX = 100;
export const CHANNEL_LIST_LIMIT_DEFAULT = 10;

export const DEFAULT_OPEN_CHANNEL_NAME = "open channel";
export const DEFAULT_GROUP_CHANNEL_NAME = "group channel";

export const INVITATION_STATUSES = [
  "joined",
  "invited_by_friend",
  "invited_by_non_friend",
] as const;
export const HIDDEN_STATUSES = [
  "unhidden",
  "hidden_allow_auto_unhide",
  "hidden_prevent_auto_unhide",
] as const;

export type InvitationStatus = (typeof INVITATION_STATUSES)[number];
export type HiddenStatus = (typeof HIDDEN_STATUSES)[number];

/**
 * Letters, digits, `_` and `-`, 4 to 100 characters. The contract files a bad length under
 * "invalid value" (400111), not "too long" (400110), so length is a refinement, not `.max()`.
 */
export const channelUrlSchema = z
  .string()
  .refine((value) => value.length >= CHANNEL_URL_MIN && value.length <= CHANNEL_URL_MAX, {
    message: `"channel_url" must be ${CHANNEL_URL_MIN} to ${CHANNEL_URL_MAX} characters long.`,
    abort: true,
  })
  .regex(/^[A-Za-z0-9_-]+$/, {
    message: '"channel_url" may contain only letters, digits, underscore and hyphen.',
  });

export const channelNameSchema = storableString("name").max(CHANNEL_NAME_MAX);
export const coverUrlSchema = storableString("cover_url").max(COVER_URL_MAX);
export const customTypeSchema = storableString("custom_type").max(CUSTOM_TYPE_MAX);
/** Ids that must name users; whether they exist is the platform's business, not the schema's. */
export const userIdListSchema = z.array(storableString("user_ids"));

/** Which members a normal, public or super group channel may hold at most. */
export function groupMemberCapacity(channel: { is_super: boolean }): number {
  return channel.is_super ? SUPERGROUP_MEMBERS_MAX : GROUP_MEMBERS_MAX;
}

function oneOf(field: string, values: readonly string[]): string {
  return `"${field}" values must be one of ${values.join(", ")}.`;
}

function distinct(ids: readonly string[]): string[] {
  return [...new Set(ids)];
}

// ---------------------------------------------------------------------------
// Open channels (section 4.4)
// ---------------------------------------------------------------------------

export const openChannelCreateSchema = z
  .object({
    name: channelNameSchema.default(DEFAULT_OPEN_CHANNEL_NAME),
    channel_url: channelUrlSchema.optional(),
    cover_url: coverUrlSchema.default(""),
    custom_type: customTypeSchema.default(""),
    data: storableString("data").default(""),
    is_ephemeral: z.boolean().default(false),
    // True for every application created after 15 December 2020, as the sandbox's are.
    is_dynamic_partitioned: z.boolean().default(true),
    operator_ids: userIdListSchema.max(OPERATORS_MAX).default([]),
    /** Deprecated spelling of operator_ids; both are honoured and merged. */
    operators: userIdListSchema.max(OPERATORS_MAX).default([]),
  })
  .superRefine((body, ctx) => {
    if (distinct([...body.operator_ids, ...body.operators]).length > OPERATORS_MAX) {
      ctx.addIssue({
        code: "custom",
        path: ["operator_ids"],
        message: `"operator_ids" and "operators" together name more than ${OPERATORS_MAX} operators.`,
      });
    }
  })
  .transform(({ operators, ...body }) => ({
    ...body,
    operator_ids: distinct([...body.operator_ids, ...operators]),
  }));

export type OpenChannelCreate = z.output<typeof openChannelCreateSchema>;

/** How multipart fields of an open channel creation are read (`cover_file` is the file). */
export const openChannelFormFields: FormFieldKinds = {
  is_ephemeral: "boolean",
  is_dynamic_partitioned: "boolean",
  operator_ids: "array",
  operators: "array",
};

// ---------------------------------------------------------------------------
// Group channels (section 4.5)
// ---------------------------------------------------------------------------

const invitationStatusMap = z
  .record(
    z.string(),
    z.enum(INVITATION_STATUSES, { message: oneOf("invitation_status", INVITATION_STATUSES) }),
  )
  .default({});
const hiddenStatusMap = z
  .record(z.string(), z.enum(HIDDEN_STATUSES, { message: oneOf("hidden_status", HIDDEN_STATUSES) }))
  .default({});

/** Members named by `users`, `user_ids` or both: at most 100 of each in one request. */
const memberListShape = {
  users: z
    .array(z.object({ user_id: z.string() }))
    .max(USERS_PER_REQUEST_MAX)
    .optional(),
  user_ids: userIdListSchema.max(USERS_PER_REQUEST_MAX).optional(),
};

type MemberList = { users?: { user_id: string }[]; user_ids?: string[] };

/** Whether `users` or `user_ids` is given; when neither is, says so as the platform does. */
function memberListGiven(body: MemberList, ctx: z.RefinementCtx): boolean {
  if (body.users !== undefined || body.user_ids !== undefined) return true;
  // An invalid_type issue on an absent property is what the platform reports as 400105.
  ctx.addIssue({ code: "invalid_type", expected: "array", path: ["user_ids"], input: undefined });
  return false;
}

/** The body with `users` and `user_ids` made one list: distinct ids, in the order given. */
function withMemberIds<T extends MemberList>({ users, user_ids, ...body }: T) {
  return { ...body, member_ids: requestedMemberIds({ users, user_ids }) };
}

export const groupChannelCreateSchema = z
  .object({
    ...memberListShape,
    name: channelNameSchema.default(DEFAULT_GROUP_CHANNEL_NAME),
    channel_url: channelUrlSchema.optional(),
    cover_url: coverUrlSchema.default(""),
    custom_type: customTypeSchema.default(""),
    data: storableString("data").default(""),
    is_distinct: z.boolean().default(false),
    is_public: z.boolean().default(false),
    is_super: z.boolean().default(false),
    is_ephemeral: z.boolean().default(false),
    access_code: z.string().optional(),
    inviter_id: z.string().optional(),
    strict: z.boolean().default(false),
    invitation_status: invitationStatusMap,
    hidden_status: hiddenStatusMap,
    operator_ids: userIdListSchema.max(OPERATORS_MAX).default([]),
    block_sdk_user_channel_join: z.boolean().default(false),
  })
  .superRefine((body, ctx) => {
    if (!memberListGiven(body, ctx)) return;
    if (requestedMemberIds(body).length > USERS_PER_REQUEST_MAX) {
      ctx.addIssue({
        code: "custom",
        path: ["user_ids"],
        message: `"users" and "user_ids" together name more than ${USERS_PER_REQUEST_MAX} users.`,
      });
    }
    for (const issue of groupChannelOptionIssues(body)) ctx.addIssue(issue);
  })
  .transform(withMemberIds);

/**
 * Options a group channel cannot hold together, at creation and after an update alike:
 * a supergroup is never distinct, and only a public channel has an access code.
 */
export function groupChannelOptionIssues(channel: {
  is_super: boolean;
  is_distinct: boolean;
  is_public: boolean;
  access_code?: string | null;
}): Array<{ code: "custom"; path: string[]; message: string }> {
  const issues: Array<{ code: "custom"; path: string[]; message: string }> = [];
  if (channel.is_super && channel.is_distinct) {
    issues.push({
      code: "custom",
      path: ["is_super"],
      message: '"is_super" requires "is_distinct" to be false.',
    });
  }
  // An empty access_code is no access code, as a form left blank would send it.
  if (channel.access_code && !channel.is_public) {
    issues.push({
      code: "custom",
      path: ["access_code"],
      message: '"access_code" is allowed only for a public group channel ("is_public": true).',
    });
  }
  return issues;
}

export type GroupChannelCreate = z.output<typeof groupChannelCreateSchema>;

function requestedMemberIds(body: MemberList): string[] {
  return distinct([...(body.users ?? []).map((user) => user.user_id), ...(body.user_ids ?? [])]);
}

/** How multipart fields of a group channel creation are read (`cover_file` is the file). */
export const groupChannelFormFields: FormFieldKinds = {
  users: "array",
  user_ids: "array",
  operator_ids: "array",
  invitation_status: "object",
  hidden_status: "object",
  is_distinct: "boolean",
  is_public: "boolean",
  is_super: "boolean",
  is_ephemeral: "boolean",
  strict: "boolean",
  block_sdk_user_channel_join: "boolean",
};

// ---------------------------------------------------------------------------
// Updates (`PUT /v3/{open_channels|group_channels}/{channel_url}`): the properties given
// change, by the rules of creation; operator_ids are registered beside the operators there are.
// ---------------------------------------------------------------------------

const channelUpdateShape = {
  name: channelNameSchema.optional(),
  cover_url: coverUrlSchema.optional(),
  custom_type: customTypeSchema.optional(),
  data: storableString("data").optional(),
  operator_ids: userIdListSchema.max(OPERATORS_MAX).optional(),
};

export const openChannelUpdateSchema = z.object(channelUpdateShape);
export type OpenChannelUpdate = z.output<typeof openChannelUpdateSchema>;

export const groupChannelUpdateSchema = z.object({
  ...channelUpdateShape,
  is_distinct: z.boolean().optional(),
  is_public: z.boolean().optional(),
  is_super: z.boolean().optional(),
  /** "" or null removes the access code. */
  access_code: storableString("access_code").nullable().optional(),
});
export type GroupChannelUpdate = z.output<typeof groupChannelUpdateSchema>;

/** How multipart fields of an update are read (`cover_file` is the file). */
export const openChannelUpdateFormFields: FormFieldKinds = { operator_ids: "array" };
export const groupChannelUpdateFormFields: FormFieldKinds = {
  operator_ids: "array",
  is_distinct: "boolean",
  is_public: "boolean",
  is_super: "boolean",
};

// ---------------------------------------------------------------------------
// Both kinds
// ---------------------------------------------------------------------------

export const channelFreezeSchema = z.object({ freeze: z.boolean() });

const limitMessage = `"limit" must be between 1 and ${CHANNEL_LIST_LIMIT_MAX}.`;

/** `limit` of every list: 1 to 100, default 10; query values are text. */
export function listLimitSchema() {
  return textInteger(
    z
      .number({ error: '"limit" must be a number.' })
      .int()
      .min(1, { error: limitMessage })
      .max(CHANNEL_LIST_LIMIT_MAX, { error: limitMessage }),
  ).default(CHANNEL_LIST_LIMIT_DEFAULT);
}

/** A comma-separated list in a query; empty items are dropped, and no items means no filter. */
export function commaListSchema() {
  return z
    .string()
    .transform((value) => [...new Set(value.split(",").filter((item) => item !== ""))]);
}

/** Paging of every list: `limit`, and `token` (the previous page's `next`; `next` is its older name). */
export const pagingQueryShape = {
  limit: listLimitSchema(),
  token: z.string().optional(),
  next: z.string().optional(),
};

/** The page token of a list query, whichever name carried it; "" for the first page. */
export function pageToken(query: { token?: string; next?: string }): string {
  return query.token ?? query.next ?? "";
}

/** The filters both channel lists take. */
const channelListQuerySchema = z.object({
  ...pagingQueryShape,
  channel_urls: commaListSchema().optional(),
  custom_types: commaListSchema().optional(),
  name_contains: z.string().optional(),
});

export type ChannelListQuery = z.output<typeof channelListQuerySchema>;

/** `GET /v3/open_channels`. */
export const openChannelListQuerySchema = channelListQuerySchema.extend({
  url_contains: z.string().optional(),
});

export type OpenChannelListQuery = z.output<typeof openChannelListQuerySchema>;

export const QUERY_TYPES = ["AND", "OR"] as const;

/** `GET /v3/group_channels`. Like the real platform, it leaves out empty channels and members unless asked. */
export const groupChannelListQuerySchema = channelListQuerySchema.extend({
  name: z.string().optional(),
  name_startswith: z.string().optional(),
  members_exactly_in: commaListSchema().optional(),
  members_include_in: commaListSchema().optional(),
  query_type: z
    .preprocess(
      (value) => (typeof value === "string" ? value.toUpperCase() : value),
      z.enum(QUERY_TYPES, { message: oneOf("query_type", QUERY_TYPES) }),
    )
    .default("AND"),
  /** Channels without messages; the real platform's default is false. */
  show_empty: queryBoolean().default(false),
  /** `members` of each channel; the real platform's default is false. */
  show_member: queryBoolean().default(false),
});

export type GroupChannelListQuery = z.output<typeof groupChannelListQuerySchema>;

// ---------------------------------------------------------------------------
// Group channel members (invite, list)
// ---------------------------------------------------------------------------

/** `POST /v3/group_channels/{channel_url}/invite`: 1 to 100 users, by `user_ids` or `users`. */
export const groupChannelInviteSchema = z
  .object({
    ...memberListShape,
    invitation_status: invitationStatusMap,
    hidden_status: hiddenStatusMap,
    inviter_id: z.string().optional(),
  })
  .superRefine((body, ctx) => {
    if (!memberListGiven(body, ctx)) return;
    const count = requestedMemberIds(body).length;
    if (count === 0 || count > USERS_PER_REQUEST_MAX) {
      ctx.addIssue({
        code: "custom",
        path: ["user_ids"],
        message: `"user_ids" must name 1 to ${USERS_PER_REQUEST_MAX} users.`,
      });
    }
  })
  .transform(withMemberIds);

export type GroupChannelInvite = z.output<typeof groupChannelInviteSchema>;

export const MEMBER_ORDERS = [
  "member_nickname_alphabetical",
  "operator_then_member_alphabetical",
] as const;
export const OPERATOR_FILTERS = ["all", "operator", "nonoperator"] as const;
/** The platform's `invited_by_friend` / `invited_by_non_friend` are not kept apart by the sandbox. */
export const MEMBER_STATE_FILTERS = ["all", "invited_only", "joined_only"] as const;
export const ACTIVE_MODES = ["activated", "deactivated", "all"] as const;

/** `GET /v3/group_channels/{channel_url}/members`. */
export const groupChannelMembersQuerySchema = z.object({
  ...pagingQueryShape,
  order: z
    .enum(MEMBER_ORDERS, { message: oneOf("order", MEMBER_ORDERS) })
    .default("member_nickname_alphabetical"),
  operator_filter: z
    .enum(OPERATOR_FILTERS, { message: oneOf("operator_filter", OPERATOR_FILTERS) })
    .default("all"),
  member_state_filter: z
    .enum(MEMBER_STATE_FILTERS, { message: oneOf("member_state_filter", MEMBER_STATE_FILTERS) })
    .default("all"),
  member_active_mode_filter: z
    .enum(ACTIVE_MODES, { message: oneOf("member_active_mode_filter", ACTIVE_MODES) })
    .default("activated"),
  nickname_startswith: z.string().optional(),
});

export type GroupChannelMembersQuery = z.output<typeof groupChannelMembersQuerySchema>;

// ---------------------------------------------------------------------------
// Resources (sections 2.7 and 2.8), as the sandbox answers them
// ---------------------------------------------------------------------------

export const channelUserSummarySchema = z.object({
  user_id: z.string(),
  nickname: z.string(),
  profile_url: z.string(),
});

export type ChannelUserSummary = z.output<typeof channelUserSummarySchema>;

export const openChannelResourceSchema = z.object({
  name: z.string(),
  channel_url: z.string(),
  custom_type: z.string(),
  is_ephemeral: z.boolean(),
  participant_count: z.number().int(),
  max_length_message: z.number().int(),
  created_at: z.number().int(),
  cover_url: z.string(),
  data: z.string(),
  operators: z.array(channelUserSummarySchema),
  freeze: z.boolean(),
});

export type OpenChannelResource = z.output<typeof openChannelResourceSchema>;

/** A member as the channel resource and the member list answer it. */
export const groupChannelMemberResourceSchema = z.object({
  user_id: z.string(),
  nickname: z.string(),
  profile_url: z.string(),
  is_active: z.boolean(),
  is_online: z.boolean(),
  last_seen_at: z.number().int(),
  state: z.enum(["joined", "invited", ""]),
  // The real platform may also answer "none" or null for a member without a role.
  role: z.enum(["operator", "", "none"]).nullable(),
  metadata: z.record(z.string(), z.string()),
});

export type GroupChannelMemberResource = z.output<typeof groupChannelMemberResourceSchema>;

export const groupChannelResourceSchema = z.object({
  name: z.string(),
  channel_url: z.string(),
  cover_url: z.string(),
  custom_type: z.string(),
  unread_message_count: z.number().int(),
  data: z.string(),
  is_distinct: z.boolean(),
  is_public: z.boolean(),
  is_super: z.boolean(),
  is_ephemeral: z.boolean(),
  is_access_code_required: z.boolean(),
  member_count: z.number().int(),
  joined_member_count: z.number().int(),
  unread_mention_count: z.number().int(),
  created_by: channelUserSummarySchema
    .extend({ require_auth_for_profile_image: z.boolean().optional() })
    .nullable(),
  /** Left out of lists unless `show_member=true`, as on the real platform. */
  members: z.array(groupChannelMemberResourceSchema).optional(),
  operators: z.array(groupChannelMemberResourceSchema.omit({ role: true })).optional(),
  /**
   * The latest message of the channel's list, or null. Checked loosely: a platform's client
   * must not fail on a channel because its last message lacks a field a list would carry.
   */
  last_message: messageResourceSchema.partial().nullable().optional(),
  message_survival_seconds: z.number().int(),
  max_length_message: z.number().int(),
  created_at: z.number().int(),
  freeze: z.boolean(),
  /** Deprecated by the platform; kept for clients that still read it. */
  channel: z
    .object({
      name: z.string(),
      channel_url: z.string(),
      cover_url: z.string(),
      custom_type: z.string(),
      data: z.string(),
      member_count: z.number().int(),
      max_length_message: z.number().int(),
      created_at: z.number().int(),
    })
    .optional(),
});

export type GroupChannelResource = z.output<typeof groupChannelResourceSchema>;

export const openChannelListResponseSchema = z.object({
  channels: z.array(openChannelResourceSchema),
  next: z.string(),
});

export const groupChannelListResponseSchema = z.object({
  channels: z.array(groupChannelResourceSchema),
  next: z.string(),
});

export const groupChannelMembersResponseSchema = z.object({
  members: z.array(groupChannelMemberResourceSchema),
  next: z.string(),
});
