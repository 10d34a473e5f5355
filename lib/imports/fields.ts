import type { ImportResource } from "./types";

/**
 * The fields a file's columns can be mapped to, per resource, in the words of the platform
 * interface (sections 4.3–4.5). The browser's mapper and preview and the server's
 * re-validation read the same list, so a column means the same thing on both sides.
 */

/** How a cell's text is read. */
export type ImportFieldKind =
  /** Trimmed text. */
  | "text"
  /** true/false, yes/no, 1/0 (any case). */
  | "boolean"
  /** Ids separated by `;` or `|`. */
  | "id-list"
  /** A whole number. */
  | "integer"
  /** A point in time: milliseconds, seconds or ISO 8601 (`./timestamps.ts`). */
  | "timestamp"
  /** A message type: the platform's MESG/FILE/ADMM or words such as text, file, admin. */
  | "message-type"
  /** Reactions: `thumbsup:alice;bob|heart:carol`, or a JSON array (`./reactions.ts`). */
  | "reactions";

/**
 * What a text field's values look like, beyond how they are read: the mapping step matches
 * columns by it and warns when a column's values do not fit; the preview warns on each cell.
 */
export type ImportFieldShape =
  /** A web address (`http://` or `https://`). */
  | "url"
  /** Web addresses separated by `;` or `|`. */
  | "url-list"
  /** A channel URL, or an old system's id of a channel: one word, no spaces. */
  | "channel"
  /** Anything, JSON objects and lists included. */
  | "free";

export type ImportField = {
  /** The property of the creation body, or a field the import itself understands (`source_id`, `is_active`, `frozen`). */
  key: string;
  label: string;
  kind: ImportFieldKind;
  /** Without it, a text field takes one plain value (not a JSON object or list). */
  shape?: ImportFieldShape;
  /** Every row needs a value for it. */
  required: boolean;
  /** Other names a column may carry for this field; compared after normalizeHeader. */
  aliases: readonly string[];
  /** Names of a true/false column that says the opposite (`deleted` for Active): mapped inverted. */
  oppositeAliases?: readonly string[];
  /** One line for the mapping screen. */
  hint: string;
};

/** Columns mapped to `metadata.<key>` become items of the user's `metadata`. */
export const METADATA_PREFIX = "metadata.";

/** Column header -> field key, `metadata.<key>`, or "" for a column that is ignored. */
export type ColumnMapping = Record<string, string>;

/** `custom_type` and `data`, which channels and messages both carry. */
const customTypeField: ImportField = {
  key: "custom_type",
  label: "Custom type",
  kind: "text",
  required: false,
  aliases: ["category"],
  hint: "At most 128 characters.",
};
const dataField: ImportField = {
  key: "data",
  label: "Data",
  kind: "text",
  shape: "free",
  required: false,
  aliases: ["extra", "payload", "customdata"],
  hint: "Free text, often JSON.",
};

const channelCommonFields: readonly ImportField[] = [
  {
    key: "channel_url",
    label: "Channel URL",
    kind: "text",
    shape: "channel",
    required: false,
    aliases: ["url", "channel", "channelid"],
    hint: "4 to 100 letters, digits, _ or -. Left empty, the plan derives one from the source id.",
  },
  {
    key: "source_id",
    label: "Source id",
    kind: "text",
    required: false,
    aliases: ["id", "oldid", "legacyid", "externalid", "originalid"],
    hint: "The channel's id in the old system; the plan derives a channel URL from it when none is given.",
  },
  {
    key: "name",
    label: "Name",
    kind: "text",
    required: false,
    aliases: ["title", "channelname", "displayname"],
    hint: "At most 191 characters.",
  },
  {
    key: "cover_url",
    label: "Cover URL",
    kind: "text",
    shape: "url",
    required: false,
    aliases: ["cover", "image", "imageurl", "coverimage", "avatar", "avatarurl", "picture"],
    hint: "At most 2,048 characters.",
  },
  // "type" names a message's type, so only a channel's custom type answers to it.
  { ...customTypeField, aliases: ["type", ...customTypeField.aliases] },
  dataField,
  {
    key: "is_ephemeral",
    label: "Ephemeral",
    kind: "boolean",
    required: false,
    aliases: ["ephemeral"],
    hint: "When true, messages are not stored.",
  },
  {
    key: "operator_ids",
    label: "Operator ids",
    kind: "id-list",
    required: false,
    aliases: ["operators", "admins", "moderators"],
    hint: "User ids separated by ; or |, at most 100.",
  },
  {
    key: "frozen",
    label: "Frozen",
    kind: "boolean",
    required: false,
    aliases: ["freeze", "isfrozen", "readonly", "isreadonly"],
    hint: "When true, the channel is frozen after it is created.",
  },
];

/** A migrated message (`POST /v3/migration/{channel_url}`, the MESG, FILE and ADMM shapes). */
const messageFields: readonly ImportField[] = [
  {
    key: "channel_url",
    label: "Channel",
    kind: "text",
    shape: "channel",
    required: true,
    aliases: [
      "channel",
      "channelid",
      "room",
      "roomid",
      "conversation",
      "conversationid",
      "chat",
      "chatid",
      "thread",
    ],
    hint: "The channel URL, or the source id of a channel imported here before.",
  },
  {
    key: "message_type",
    label: "Type",
    kind: "message-type",
    required: false,
    aliases: ["type", "msgtype", "kind"],
    hint: "MESG, FILE or ADMM (text, file, admin work too). Left out: FILE when there is a file URL, else MESG.",
  },
  {
    key: "user_id",
    label: "Sender id",
    kind: "text",
    required: false,
    aliases: ["sender", "senderid", "from", "fromid", "author", "authorid", "user"],
    hint: "A user; admin messages have none.",
  },
  {
    key: "message",
    label: "Text",
    kind: "text",
    required: false,
    aliases: ["text", "body", "content", "msg"],
    hint: "At most 5,000 characters.",
  },
  {
    key: "timestamp",
    label: "Sent at",
    kind: "timestamp",
    required: true,
    aliases: ["createdat", "sentat", "ts", "time", "date", "datetime", "sent", "created"],
    hint: "Milliseconds or seconds since 1970, or ISO 8601 (2024-03-01T09:30:00Z).",
  },
  {
    key: "source_id",
    label: "Source id",
    kind: "text",
    required: false,
    aliases: ["id", "messageid", "msgid", "externalid", "legacyid", "oldid", "originalid"],
    hint: "The message's id in the old system; its dedup id is derived from it when there is none.",
  },
  {
    key: "dedup_id",
    label: "Dedup id",
    kind: "text",
    required: false,
    aliases: ["dedup", "idempotencykey", "uniqueid"],
    hint: "Unique in its channel; a message whose dedup id is stored already is skipped.",
  },
  customTypeField,
  { ...dataField, hint: "Free text, often JSON (text and admin messages)." },
  {
    key: "mentioned_user_ids",
    label: "Mentioned users",
    kind: "id-list",
    required: false,
    aliases: ["mentions", "mentioned", "mentionedusers"],
    hint: "User ids separated by ; or |.",
  },
  {
    key: "url",
    label: "File URL",
    kind: "text",
    shape: "url",
    required: false,
    aliases: ["fileurl", "attachment", "attachmenturl", "file"],
    hint: "Where the file stays; required for file messages.",
  },
  {
    key: "file_name",
    label: "File name",
    kind: "text",
    required: false,
    aliases: ["attachmentname", "name"],
    hint: "Shown for file messages.",
  },
  {
    key: "file_size",
    label: "File size",
    kind: "integer",
    required: false,
    aliases: ["size", "bytes"],
    hint: "In bytes.",
  },
  {
    key: "file_type",
    label: "File type",
    kind: "text",
    required: false,
    aliases: ["mimetype", "mime", "contenttype"],
    hint: "A media type such as image/png.",
  },
  {
    key: "thumbnails",
    label: "Thumbnails",
    kind: "id-list",
    shape: "url-list",
    required: false,
    aliases: ["thumbnail", "thumbnailurl", "thumbnailurls"],
    hint: "Thumbnail URLs separated by ; or |.",
  },
  {
    key: "require_auth",
    label: "Requires auth",
    kind: "boolean",
    required: false,
    aliases: ["private"],
    hint: "When true, the file is fetched with the user's session.",
  },
  {
    key: "custom_field",
    label: "File data",
    kind: "text",
    shape: "free",
    required: false,
    aliases: ["filedata"],
    hint: "Free text stored with a file message.",
  },
  {
    key: "parent_id",
    label: "Thread root",
    kind: "text",
    required: false,
    aliases: ["parent", "parentmessageid", "threadroot", "threadparent", "inreplyto", "replyto"],
    hint: "The source id of the message this one replies to; replies are sent after their channel's messages are migrated.",
  },
  {
    key: "reactions",
    label: "Reactions",
    kind: "reactions",
    required: false,
    aliases: ["reaction", "emojis", "emoji"],
    hint: 'thumbsup:alice;bob|heart:carol, or JSON [{"key":"thumbsup","user_ids":["alice"]}]. Group channels only.',
  },
  {
    key: "is_silent",
    label: "Silent",
    kind: "boolean",
    required: false,
    aliases: ["silent"],
    hint: "Admin messages only: when true, nobody's unread count moves.",
  },
];

export const importFields: Record<ImportResource, readonly ImportField[]> = {
  users: [
    {
      key: "user_id",
      label: "User id",
      kind: "text",
      required: true,
      aliases: ["id", "uid", "user", "username", "login", "externalid"],
      hint: "Unique, at most 80 characters.",
    },
    {
      key: "nickname",
      label: "Nickname",
      kind: "text",
      required: true,
      aliases: ["name", "displayname", "nick", "fullname", "screenname"],
      hint: "At most 80 characters.",
    },
    {
      key: "profile_url",
      label: "Profile image URL",
      kind: "text",
      shape: "url",
      required: false,
      aliases: [
        "avatar",
        "avatarurl",
        "image",
        "imageurl",
        "photo",
        "photourl",
        "picture",
        "profileimage",
      ],
      hint: "At most 2,048 characters; empty means no profile image.",
    },
    {
      key: "issue_access_token",
      label: "Issue access token",
      kind: "boolean",
      required: false,
      aliases: ["accesstoken", "issuetoken"],
      hint: "When true, the platform issues an access token the user must connect with.",
    },
    {
      key: "is_active",
      label: "Active",
      kind: "boolean",
      required: false,
      aliases: ["active", "enabled"],
      oppositeAliases: [
        "deleted",
        "isdeleted",
        "disabled",
        "isdisabled",
        "inactive",
        "isinactive",
        "deactivated",
        "isdeactivated",
      ],
      hint: "When false, the user is deactivated right after it is created.",
    },
  ],
  open_channels: channelCommonFields,
  group_channels: [
    ...channelCommonFields,
    {
      key: "user_ids",
      label: "Member ids",
      kind: "id-list",
      required: true,
      aliases: ["members", "memberids", "users", "participants"],
      hint: "User ids separated by ; or |, at most 100.",
    },
    {
      key: "inviter_id",
      label: "Inviter id",
      kind: "text",
      required: false,
      aliases: ["inviter", "invitedby", "createdby", "owner", "creator"],
      hint: "The user who invites; list them among the members too.",
    },
    {
      key: "is_distinct",
      label: "Distinct",
      kind: "boolean",
      required: false,
      aliases: ["distinct"],
      hint: "When true, an existing channel with the same members is reused.",
    },
    {
      key: "is_public",
      label: "Public",
      kind: "boolean",
      required: false,
      aliases: ["public"],
      oppositeAliases: ["private", "isprivate"],
      hint: "When true, users may join without an invitation.",
    },
    {
      key: "is_super",
      label: "Supergroup",
      kind: "boolean",
      required: false,
      aliases: ["super", "supergroup", "issupergroup"],
      hint: "Up to 2,000 members; requires Distinct to be false.",
    },
    {
      key: "access_code",
      label: "Access code",
      kind: "text",
      required: false,
      aliases: ["code", "password", "passcode"],
      hint: "Only for public channels.",
    },
    {
      key: "strict",
      label: "Strict",
      kind: "boolean",
      required: false,
      aliases: [],
      hint: "When true, creation fails if a member does not exist.",
    },
  ],
  messages: messageFields,
};

export const resourceLabels: Record<ImportResource, { plural: string; singular: string }> = {
  users: { plural: "Users", singular: "user" },
  open_channels: { plural: "Open channels", singular: "open channel" },
  group_channels: { plural: "Group channels", singular: "group channel" },
  messages: { plural: "Messages", singular: "message" },
};

/** Case, spaces, `_`, `-` and `.` do not matter when a header is matched to a field. */
export function normalizeHeader(header: string): string {
  return header
    .trim()
    .toLowerCase()
    .replace(/[\s_\-.]+/g, "");
}

export function findField(resource: ImportResource, key: string): ImportField | undefined {
  return importFields[resource].find((field) => field.key === key);
}

/** Whether a mapping target is a metadata item (users only). */
export function isMetadataTarget(target: string): boolean {
  return target.startsWith(METADATA_PREFIX);
}

/** The key of the user's metadata item a `metadata.<key>` target names. */
export function metadataKeyOf(target: string): string {
  return target.slice(METADATA_PREFIX.length);
}

/** Human label of a mapping target, for messages and the preview's column headers. */
export function targetLabel(resource: ImportResource, target: string): string {
  if (isMetadataTarget(target)) return `Metadata "${metadataKeyOf(target)}"`;
  return findField(resource, target)?.label ?? target;
}
