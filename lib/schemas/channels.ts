import { z } from "zod";
import type { FormFieldKinds } from "./form-fields";
import { storableString, textInteger } from "./text-values";

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

export const groupChannelCreateSchema = z
  .object({
    users: z
      .array(z.object({ user_id: z.string() }))
      .max(USERS_PER_REQUEST_MAX)
      .optional(),
    user_ids: userIdListSchema.max(USERS_PER_REQUEST_MAX).optional(),
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
    invitation_status: z
      .record(
        z.string(),
        z.enum(INVITATION_STATUSES, { message: oneOf("invitation_status", INVITATION_STATUSES) }),
      )
      .default({}),
    hidden_status: z
      .record(
        z.string(),
        z.enum(HIDDEN_STATUSES, { message: oneOf("hidden_status", HIDDEN_STATUSES) }),
      )
      .default({}),
    operator_ids: userIdListSchema.max(OPERATORS_MAX).default([]),
    block_sdk_user_channel_join: z.boolean().default(false),
  })
  .superRefine((body, ctx) => {
    if (body.users === undefined && body.user_ids === undefined) {
      // An invalid_type issue on an absent property is what the platform reports as 400105.
      ctx.addIssue({
        code: "invalid_type",
        expected: "array",
        path: ["user_ids"],
        input: undefined,
      });
      return;
    }
    if (requestedMemberIds(body).length > USERS_PER_REQUEST_MAX) {
      ctx.addIssue({
        code: "custom",
        path: ["user_ids"],
        message: `"users" and "user_ids" together name more than ${USERS_PER_REQUEST_MAX} users.`,
      });
    }
    if (body.is_super && body.is_distinct) {
      ctx.addIssue({
        code: "custom",
        path: ["is_super"],
        message: '"is_super" requires "is_distinct" to be false.',
      });
    }
    // An empty access_code is no access code, as a form left blank would send it.
    if (body.access_code && !body.is_public) {
      ctx.addIssue({
        code: "custom",
        path: ["access_code"],
        message: '"access_code" is allowed only for a public group channel ("is_public": true).',
      });
    }
  })
  .transform(({ users, user_ids, ...body }) => ({
    ...body,
    /** Distinct ids from `users` and `user_ids`, in the order given. */
    member_ids: requestedMemberIds({ users, user_ids }),
  }));

export type GroupChannelCreate = z.output<typeof groupChannelCreateSchema>;

function requestedMemberIds(body: {
  users?: { user_id: string }[];
  user_ids?: string[];
}): string[] {
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
// Both kinds
// ---------------------------------------------------------------------------

export const channelFreezeSchema = z.object({ freeze: z.boolean() });

const limitMessage = `"limit" must be between 1 and ${CHANNEL_LIST_LIMIT_MAX}.`;

/** Query of the list operations; query values are text, so `limit` is read from it. */
export const channelListQuerySchema = z.object({
  limit: textInteger(
    z
      .number({ error: '"limit" must be a number.' })
      .int()
      .min(1, { error: limitMessage })
      .max(CHANNEL_LIST_LIMIT_MAX, { error: limitMessage }),
  ).default(CHANNEL_LIST_LIMIT_DEFAULT),
  /** Opaque token from the previous page; empty for the first page. */
  next: z.string().default(""),
});

export type ChannelListQuery = z.output<typeof channelListQuerySchema>;

// ---------------------------------------------------------------------------
// Resources (sections 2.7 and 2.8), as the sandbox answers them
// ---------------------------------------------------------------------------

export type ChannelUserSummary = { user_id: string; nickname: string; profile_url: string };

export type OpenChannelResource = {
  name: string;
  channel_url: string;
  custom_type: string;
  is_ephemeral: boolean;
  participant_count: number;
  max_length_message: number;
  created_at: number;
  cover_url: string;
  data: string;
  operators: ChannelUserSummary[];
  freeze: boolean;
};

export type GroupChannelMemberResource = {
  user_id: string;
  nickname: string;
  profile_url: string;
  is_active: boolean;
  is_online: boolean;
  last_seen_at: number;
  state: "joined" | "invited" | "";
  role: "operator" | "";
  metadata: Record<string, string>;
};

export type GroupChannelResource = {
  name: string;
  channel_url: string;
  cover_url: string;
  custom_type: string;
  unread_message_count: number;
  data: string;
  is_distinct: boolean;
  is_public: boolean;
  is_super: boolean;
  is_ephemeral: boolean;
  is_access_code_required: boolean;
  member_count: number;
  joined_member_count: number;
  unread_mention_count: number;
  created_by: (ChannelUserSummary & { require_auth_for_profile_image: boolean }) | null;
  members: GroupChannelMemberResource[];
  operators: Omit<GroupChannelMemberResource, "role">[];
  last_message: null;
  message_survival_seconds: number;
  max_length_message: number;
  created_at: number;
  freeze: boolean;
  /** Deprecated by the platform; kept for clients that still read it. */
  channel: {
    name: string;
    channel_url: string;
    cover_url: string;
    custom_type: string;
    data: string;
    member_count: number;
    max_length_message: number;
    created_at: number;
  };
};
