import { z } from "zod";
import { storableString, textBoolean, textInteger } from "./text-values";

/**
 * The user resource's input rules (platform interface sections 4.3 and 8), written once
 * for the sandbox, the console's forms and the import validator. Messages name the
 * field in plain words; lib/schemas/platform-errors.ts turns the first issue into the
 * platform's error code.
 */

export const USER_ID_MAX = 80;
export const NICKNAME_MAX = 80;
export const PROFILE_URL_MAX = 2048;
export const METADATA_MAX_ITEMS = 5;
export const PROFILE_FILE_MAX_BYTES = 5 * 1024 * 1024;
/** Default lifetime of a deprecated session token: seven days. */
export const SESSION_TOKEN_LIFETIME_MS = 604_800_000;
export const USER_LIST_LIMIT_MIN = 1;
export const USER_LIST_LIMIT_MAX = 100;
export const USER_LIST_LIMIT_DEFAULT = 10;
/** Ids one list request may name; not in the interface, see docs/sandbox.md. */
export const USER_LIST_IDS_MAX = 250;

// 13 digits: from 2001-09-09 to 2286-11-20 in Unix milliseconds.
const MIN_13_DIGIT_MS = 1_000_000_000_000;
const MAX_13_DIGIT_MS = 9_999_999_999_999;

export const userIdSchema = storableString("user_id")
  .min(1, { error: '"user_id" must not be empty.' })
  .max(USER_ID_MAX)
  // A path segment of "." or ".." is normalised away, so such a user could never be read again.
  .refine((userId) => userId !== "." && userId !== "..", {
    error: '"user_id" must not be "." or "..".',
  });

export const nicknameSchema = storableString("nickname").max(NICKNAME_MAX);

/** Empty means "no profile image". */
export const profileUrlSchema = storableString("profile_url").max(PROFILE_URL_MAX);

export const metadataKeySchema = storableString("metadata")
  .min(1, { error: '"metadata" keys must not be empty.' })
  .refine((key) => !key.includes(","), { error: '"metadata" keys must not contain a comma.' });

export const metadataValueSchema = storableString("metadata");

/**
 * The platform stores metadata values as text, and a value sent as a JSON boolean or integer
 * as the text its server writes for it (the vendor's own SDK test sends `"vip": true` and reads
 * back `"True"`): `true` "True", `false` "False", `5` "5". Other values are left as they are,
 * for the schema to refuse (400100): objects and arrays, and `null` and fractions, whose text the
 * platform does not publish (`5.0` arrives here as `5`; see docs/sandbox.md).
 */
export function metadataValueText(value: unknown): unknown {
  if (typeof value === "boolean") return value ? "True" : "False";
  if (typeof value === "number" && Number.isSafeInteger(value)) return String(value);
  return value;
}

/**
 * Metadata items, stored faithfully whatever their keys: z.record drops a `__proto__` key
 * (and leaves its value unchecked), so the items are checked one by one and rebuilt with
 * Object.fromEntries, which makes every key an own property, `__proto__` included.
 */
export const metadataSchema = z.unknown().transform((input, ctx) => {
  if (input === null || typeof input !== "object" || Array.isArray(input)) {
    ctx.addIssue({ code: "invalid_type", expected: "record", input });
    return z.NEVER;
  }
  const entries = Object.entries(input);
  for (const [key, value] of entries) {
    const keyResult = metadataKeySchema.safeParse(key);
    if (!keyResult.success) {
      ctx.addIssue({
        code: "custom",
        path: [key],
        message: keyResult.error.issues[0]?.message ?? '"metadata" has an invalid key.',
      });
      return z.NEVER;
    }
    const text = metadataValueText(value);
    if (typeof text !== "string") {
      ctx.addIssue({ code: "invalid_type", expected: "string", path: [key], input: value });
      return z.NEVER;
    }
    const valueResult = metadataValueSchema.safeParse(text);
    if (!valueResult.success) {
      ctx.addIssue({
        code: "custom",
        path: [key],
        message: valueResult.error.issues[0]?.message ?? "",
      });
      return z.NEVER;
    }
  }
  if (entries.length > METADATA_MAX_ITEMS) {
    ctx.addIssue({
      code: "custom",
      message: `"metadata" has too many items: at most ${METADATA_MAX_ITEMS}.`,
    });
    return z.NEVER;
  }
  return Object.fromEntries(
    entries.map(([key, value]) => [key, metadataValueText(value)]),
  ) as Record<string, string>;
}) as unknown as z.ZodType<Record<string, string>, Record<string, string>>;

export const sessionTokenExpiresAtSchema = z
  .number()
  .int()
  .min(MIN_13_DIGIT_MS, {
    error: '"session_token_expires_at" must be Unix milliseconds (13 digits).',
  })
  .max(MAX_13_DIGIT_MS, {
    error: '"session_token_expires_at" must be Unix milliseconds (13 digits).',
  });

/** `POST /v3/users` with a JSON body. */
export const createUserSchema = z.object({
  user_id: userIdSchema,
  nickname: nicknameSchema,
  profile_url: profileUrlSchema,
  issue_access_token: z.boolean().default(false),
  metadata: metadataSchema.default({}),
  issue_session_token: z.boolean().default(false),
  session_token_expires_at: sessionTokenExpiresAtSchema.optional(),
});

export type CreateUserInput = z.input<typeof createUserSchema>;
export type CreateUser = z.output<typeof createUserSchema>;

/**
 * `POST /v3/users` as multipart, the way to upload `profile_file`. Fields are strings;
 * `metadata` is not read (the interface adds it with the separate metadata operation).
 * `profile_file` is checked for size and content (JPG/PNG by magic bytes) where it is read,
 * since both need the bytes; PROFILE_FILE_MAX_BYTES is exported for forms to check early.
 */
export const createUserMultipartSchema = z
  .object({
    user_id: userIdSchema,
    nickname: nicknameSchema,
    profile_url: profileUrlSchema.optional(),
    // An empty file input arrives as an empty field; like no file at all, it needs a profile_url.
    profile_file: z.preprocess((value) => (value === "" ? undefined : value), z.file().optional()),
    issue_access_token: textBoolean().default(false),
    issue_session_token: textBoolean().default(false),
    session_token_expires_at: textInteger(sessionTokenExpiresAtSchema).optional(),
  })
  .superRefine((user, ctx) => {
    if (user.profile_url === undefined && user.profile_file === undefined) {
      // Reported as a missing parameter (400105), like a missing profile_url in JSON.
      ctx.addIssue({
        code: "invalid_type",
        expected: "string",
        input: undefined,
        path: ["profile_url"],
        message: '"profile_url" or "profile_file" is required.',
      });
    }
  });

export type CreateUserMultipart = z.output<typeof createUserMultipartSchema>;

/**
 * `PUT /v3/users/{user_id}`: every property optional; deactivation is `{"is_active": false}`.
 * `leave_all_when_deactivated` (default true, as on the real platform) makes a deactivated user
 * leave every group channel; `issue_access_token: true` replaces the access token.
 */
export const updateUserSchema = z.object({
  is_active: z.boolean().optional(),
  nickname: nicknameSchema.optional(),
  profile_url: profileUrlSchema.optional(),
  issue_access_token: z.boolean().default(false),
  leave_all_when_deactivated: z.boolean().default(true),
});

export type UpdateUser = z.output<typeof updateUserSchema>;

/** `POST /v3/users/{user_id}/metadata`: creates items; a key that exists is refused. */
export const createUserMetadataSchema = z.object({
  metadata: metadataSchema,
});

/**
 * `PUT /v3/users/{user_id}/metadata`: updates the given items. With `upsert` (default false,
 * as on the real platform) a key that does not exist is added; without it, refused.
 */
export const updateUserMetadataSchema = z.object({
  metadata: metadataSchema,
  upsert: z.boolean().default(false),
});

export type UpdateUserMetadata = z.output<typeof updateUserMetadataSchema>;

/** `PUT /v3/users/{user_id}/metadata/{key}`. */
export const updateUserMetadataItemSchema = z.object({
  value: z.preprocess(metadataValueText, storableString("value")),
  upsert: z.boolean().default(false),
});

export const USER_ACTIVE_MODES = ["activated", "deactivated", "all"] as const;

const limitMessage = `"limit" must be between 1 and ${USER_LIST_LIMIT_MAX}.`;

/** `GET /v3/users` query: every value arrives as text. */
export const listUsersQuerySchema = z
  .object({
    user_ids: z
      .string()
      .transform((value) => [...new Set(value.split(",").filter((userId) => userId !== ""))])
      .refine((userIds) => userIds.length <= USER_LIST_IDS_MAX, {
        error: `"user_ids" has too many items: at most ${USER_LIST_IDS_MAX}.`,
      })
      .optional(),
    limit: textInteger(
      z
        .number({ error: '"limit" must be a number.' })
        .int()
        .min(USER_LIST_LIMIT_MIN, { error: limitMessage })
        .max(USER_LIST_LIMIT_MAX, { error: limitMessage }),
    ).default(USER_LIST_LIMIT_DEFAULT),
    /** The previous page's `next`. */
    token: z.string().optional(),
    /** The older name of `token`, still accepted. */
    next: z.string().optional(),
    nickname: z.string().optional(),
    nickname_startswith: z.string().optional(),
    active_mode: z
      .enum(USER_ACTIVE_MODES, {
        error: `"active_mode" must be one of ${USER_ACTIVE_MODES.join(", ")}.`,
      })
      .default("activated"),
    metadatakey: z.string().optional(),
    /** Comma-separated values of the `metadatakey` item. */
    metadatavalues_in: z.string().optional(),
  })
  .superRefine((query, ctx) => {
    // The two go together; the one left out is reported missing (400105).
    for (const [given, missing] of [
      ["metadatakey", "metadatavalues_in"],
      ["metadatavalues_in", "metadatakey"],
    ] as const) {
      if (query[given] !== undefined && query[missing] === undefined)
        ctx.addIssue({
          code: "invalid_type",
          expected: "string",
          path: [missing],
          input: undefined,
        });
    }
  });

export type ListUsersQuery = z.output<typeof listUsersQuerySchema>;

// ---------------------------------------------------------------------------
// Resources (section 2.6). One definition: the sandbox answers it, the console's client checks
// what any platform answers against it. Fields the real platform does not answer in every
// operation are optional.
// ---------------------------------------------------------------------------

export const sessionTokenSchema = z.object({ session_token: z.string(), expires_at: z.number() });

export const userResourceSchema = z.object({
  user_id: z.string(),
  nickname: z.string(),
  profile_url: z.string(),
  access_token: z.string().optional(),
  is_online: z.boolean(),
  is_active: z.boolean(),
  is_created: z.boolean().optional(),
  phone_number: z.string().optional(),
  require_auth_for_profile_image: z.boolean().optional(),
  session_tokens: z.array(sessionTokenSchema).optional(),
  last_seen_at: z.number().int(),
  discovery_keys: z.array(z.string()).optional(),
  preferred_languages: z.array(z.string()).optional(),
  has_ever_logged_in: z.boolean().optional(),
  metadata: z.record(z.string(), z.string()),
  /** Milliseconds since the epoch (the contract's unit for user times). */
  created_at: z.number().int().optional(),
});

export type UserResource = z.output<typeof userResourceSchema>;

/** `GET /v3/users` response; `next` is "" on the last page. */
export const userListResponseSchema = z.object({
  users: z.array(userResourceSchema),
  next: z.string(),
});

export type UserListResponse = z.output<typeof userListResponseSchema>;

/** Metadata operations answer items: all of them, the created or the updated ones. */
export const userMetadataResponseSchema = z.record(z.string(), z.string());
