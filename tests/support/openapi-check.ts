import { z } from "zod";
import {
  channelFreezeSchema,
  groupChannelCreateSchema,
  groupChannelInviteSchema,
  groupChannelListQuerySchema,
  groupChannelListResponseSchema,
  groupChannelMembersQuerySchema,
  groupChannelMembersResponseSchema,
  groupChannelResourceSchema,
  groupChannelUpdateSchema,
  openChannelCreateSchema,
  openChannelListQuerySchema,
  openChannelListResponseSchema,
  openChannelResourceSchema,
  openChannelUpdateSchema,
} from "@/lib/schemas/channels";
import {
  messageGetQuerySchema,
  messageListQuerySchema,
  messageListResponseSchema,
  messageResourceSchema,
  messageTotalCountResponseSchema,
  migrationSchema,
  reactionListResponseSchema,
  reactionResponseSchema,
  reactionSchema,
  sendMessageSchema,
  updateMessageSchema,
} from "@/lib/schemas/messages";
import {
  createUserMetadataSchema,
  createUserSchema,
  listUsersQuerySchema,
  updateUserMetadataItemSchema,
  updateUserMetadataSchema,
  updateUserSchema,
  userListResponseSchema,
  userMetadataResponseSchema,
  userResourceSchema,
} from "@/lib/schemas/users";

/**
 * Checks the sandbox's zod schemas (the one definition the sandbox, the console's client and
 * the import validator share) against the real platform's OpenAPI description, both ways:
 * every parameter and field the sandbox reads or answers must exist on the platform with the
 * same type, and every one the platform requires must be required by the sandbox too. A
 * field renamed on either side therefore shows up as a problem naming it.
 */

type Method = "get" | "post" | "put" | "delete";

export type ContractOperation = {
  method: Method;
  /** The path as the vendor's description writes it. */
  path: string;
  query?: z.ZodType;
  body?: z.ZodType;
  response?: z.ZodType;
  /** Names the sandbox takes or answers beyond the description, each decided in docs/sandbox.md. */
  extras?: { query?: string[]; body?: string[]; response?: string[] };
  /** Fields required on one side and optional on the other, deliberately (docs/sandbox.md). */
  requiredDiffers?: string[];
  /** Why an operation of the contract is missing from the description (checked to stay so). */
  undescribed?: string;
};

const empty = z.object({});
const paging = ["next"]; // the older name of `token`, kept as an alias

/** The operations the sandbox contract lists, with the schemas the sandbox uses for them. */
export const contractOperations: ContractOperation[] = [
  {
    method: "post",
    path: "/v3/users",
    body: createUserSchema,
    response: userResourceSchema,
    extras: {
      body: ["issue_session_token", "session_token_expires_at"],
      response: ["session_tokens"],
    },
  },
  {
    method: "get",
    path: "/v3/users",
    query: listUsersQuerySchema,
    response: userListResponseSchema,
    extras: { query: paging, response: ["users.session_tokens"] },
  },
  {
    method: "get",
    path: "/v3/users/{user_id}",
    response: userResourceSchema,
    extras: { response: ["session_tokens"] },
  },
  {
    method: "put",
    path: "/v3/users/{user_id}",
    body: updateUserSchema,
    response: userResourceSchema,
    extras: { response: ["session_tokens"] },
  },
  { method: "delete", path: "/v3/users/{user_id}", response: empty },
  {
    method: "get",
    path: "/v3/users/{user_id}/metadata",
    response: userMetadataResponseSchema,
    undescribed:
      "the platform documents it (all items of a user), its OpenAPI description leaves it out",
  },
  {
    method: "post",
    path: "/v3/users/{user_id}/metadata",
    body: createUserMetadataSchema,
    response: userMetadataResponseSchema,
  },
  {
    method: "put",
    path: "/v3/users/{user_id}/metadata",
    body: updateUserMetadataSchema,
    response: userMetadataResponseSchema,
  },
  { method: "delete", path: "/v3/users/{user_id}/metadata", response: empty },
  {
    method: "get",
    path: "/v3/users/{user_id}/metadata/{key}",
    response: userMetadataResponseSchema,
  },
  {
    method: "put",
    path: "/v3/users/{user_id}/metadata/{key}",
    body: updateUserMetadataItemSchema,
    response: userMetadataResponseSchema,
    // The platform's documentation has it; its description of this one operation leaves it out.
    extras: { body: ["upsert"] },
  },
  { method: "delete", path: "/v3/users/{user_id}/metadata/{key}", response: empty },
  {
    method: "post",
    path: "/v3/open_channels",
    body: openChannelCreateSchema,
    response: openChannelResourceSchema,
    // `operators`: the deprecated spelling of operator_ids, still honoured.
    extras: { body: ["operators"] },
  },
  {
    method: "get",
    path: "/v3/open_channels",
    query: openChannelListQuerySchema,
    response: openChannelListResponseSchema,
    extras: { query: paging },
  },
  { method: "get", path: "/v3/open_channels/{channel_url}", response: openChannelResourceSchema },
  { method: "delete", path: "/v3/open_channels/{channel_url}", response: empty },
  {
    method: "put",
    path: "/v3/open_channels/{channel_url}/freeze",
    body: channelFreezeSchema,
    response: openChannelResourceSchema,
  },
  {
    method: "post",
    path: "/v3/group_channels",
    body: groupChannelCreateSchema,
    response: groupChannelResourceSchema,
    extras: { response: ["operators"] },
    // The description requires `users`; the platform takes `user_ids` instead, and so does the sandbox.
    requiredDiffers: ["users"],
  },
  {
    method: "get",
    path: "/v3/group_channels",
    query: groupChannelListQuerySchema,
    response: groupChannelListResponseSchema,
    extras: { query: paging, response: ["channels.operators", "channels.channel"] },
  },
  {
    method: "get",
    path: "/v3/group_channels/{channel_url}",
    response: groupChannelResourceSchema,
    extras: { response: ["operators"] },
  },
  { method: "delete", path: "/v3/group_channels/{channel_url}", response: empty },
  {
    method: "put",
    path: "/v3/group_channels/{channel_url}/freeze",
    body: channelFreezeSchema,
    response: groupChannelResourceSchema,
    extras: { response: ["operators"] },
  },
  {
    method: "post",
    path: "/v3/group_channels/{channel_url}/invite",
    body: groupChannelInviteSchema,
    response: groupChannelResourceSchema,
    // `users` is the creation's other spelling of the member list; `user_ids` stays accepted alone.
    extras: { body: ["users"], response: ["channel"] },
    requiredDiffers: ["user_ids"],
  },
  {
    method: "get",
    path: "/v3/group_channels/{channel_url}/members",
    query: groupChannelMembersQuerySchema,
    response: groupChannelMembersResponseSchema,
    extras: { query: paging },
  },
  {
    method: "post",
    path: "/v3/migration/{target_channel_url}",
    body: migrationSchema,
    response: empty,
    // A migration without messages has nothing to do; the description forgot to require them.
    requiredDiffers: ["messages"],
  },
  {
    method: "get",
    path: "/v3/{channel_type}/{channel_url}/messages",
    query: messageListQuerySchema,
    response: messageListResponseSchema,
    // FILE messages' thumbnails, top-level as in the platform's documented file message resource.
    extras: { response: ["messages.thumbnails"] },
    // The description marks both reference points required; the platform needs one of them.
    requiredDiffers: ["message_ts", "message_id"],
  },
  {
    method: "post",
    path: "/v3/{channel_type}/{channel_url}/messages",
    body: sendMessageSchema,
    response: messageResourceSchema,
    extras: {
      // A FILE message's file named beside `url`, as the platform documents sending one, and
      // threads (parent_message_id, reply_to_channel), which the description leaves out.
      body: [
        "url",
        "file_name",
        "file_size",
        "file_type",
        "custom_field",
        "parent_message_id",
        "reply_to_channel",
      ],
      response: ["thumbnails"],
    },
    // An admin message has no sender (the description requires user_id of every type); text
    // and admin messages need their text (the description leaves message optional); an item
    // of sorted_metaarray without its key or values would mean nothing.
    requiredDiffers: ["user_id", "message", "sorted_metaarray.key", "sorted_metaarray.value"],
  },
  {
    method: "get",
    path: "/v3/{channel_type}/{channel_url}/messages/total_count",
    response: messageTotalCountResponseSchema,
  },
  {
    method: "get",
    path: "/v3/{channel_type}/{channel_url}/messages/{message_id}",
    query: messageGetQuerySchema,
    response: messageResourceSchema,
    extras: { response: ["thumbnails"] },
  },
  {
    method: "put",
    path: "/v3/{channel_type}/{channel_url}/messages/{message_id}",
    body: updateMessageSchema,
    response: messageResourceSchema,
    // The contract's sorted_metaarray, which the description updates through its own operation.
    extras: { body: ["sorted_metaarray"], response: ["thumbnails"] },
  },
  {
    method: "delete",
    path: "/v3/{channel_type}/{channel_url}/messages/{message_id}",
    response: empty,
  },
  {
    method: "post",
    path: "/v3/group_channels/{channel_url}/messages/{message_id}/reactions",
    body: reactionSchema,
    response: reactionResponseSchema,
    undescribed: "the platform documents reactions; its OpenAPI description has none",
  },
  {
    method: "get",
    path: "/v3/group_channels/{channel_url}/messages/{message_id}/reactions",
    response: reactionListResponseSchema,
    undescribed: "the platform documents reactions; its OpenAPI description has none",
  },
  {
    method: "delete",
    path: "/v3/group_channels/{channel_url}/messages/{message_id}/reactions",
    query: reactionSchema,
    response: reactionResponseSchema,
    undescribed: "the platform documents reactions; its OpenAPI description has none",
  },
  {
    method: "put",
    path: "/v3/group_channels/{channel_url}",
    body: groupChannelUpdateSchema,
    response: groupChannelResourceSchema,
    extras: { response: ["operators"] },
  },
  {
    method: "put",
    path: "/v3/open_channels/{channel_url}",
    body: openChannelUpdateSchema,
    response: openChannelResourceSchema,
  },
];

// ---------------------------------------------------------------------------
// The description
// ---------------------------------------------------------------------------

type Schema = {
  type?: string | string[];
  nullable?: boolean;
  items?: Schema;
  properties?: Record<string, Schema>;
  required?: string[];
  allOf?: Schema[];
  oneOf?: Schema[];
  anyOf?: Schema[];
  $ref?: string;
  const?: unknown;
  enum?: unknown[];
};

export type OpenApiDocument = {
  paths: Record<
    string,
    Record<
      string,
      {
        parameters: Array<{ name: string; in: string; required: boolean; schema?: Schema }>;
        requestBody?: Record<string, Schema>;
        response: Schema;
      }
    >
  >;
  components: { schemas: Record<string, Schema> };
};

/** Follows `$ref` and merges `allOf`, so properties can be compared by name. */
function resolve(document: OpenApiDocument, schema: Schema | undefined): Schema {
  if (!schema) return {};
  if (schema.$ref) {
    const name = schema.$ref.replace("#/components/schemas/", "");
    return resolve(document, document.components.schemas[name]);
  }
  // A oneOf of one shape is that shape (the description wraps a group channel's last_message so).
  if (schema.oneOf?.length === 1) return resolve(document, schema.oneOf[0]);
  if (schema.allOf) {
    const parts = schema.allOf.map((part) => resolve(document, part));
    return {
      type: "object",
      properties: Object.assign({}, ...parts.map((part) => part.properties ?? {})),
      required: parts.flatMap((part) => part.required ?? []),
    };
  }
  return schema;
}

/** A comparable kind: object, array, string, integer, number, boolean, or undefined for "any". */
function kindOf(schema: Schema): string | undefined {
  const types = (Array.isArray(schema.type) ? schema.type : [schema.type]).filter(
    (type): type is string => type !== undefined && type !== "null",
  );
  if (types.length === 1) return types[0];
  if (schema.anyOf) {
    const kinds = schema.anyOf.map(kindOf).filter((kind) => kind !== "null" && kind !== undefined);
    if (kinds.length === 1) return kinds[0];
  }
  if (schema.oneOf) return "oneOf";
  if (schema.properties) return "object";
  return undefined;
}

// ---------------------------------------------------------------------------
// The check
// ---------------------------------------------------------------------------

type Side = "query" | "body" | "response";

/**
 * Compares one of our JSON schemas with the description's at `field` (a dotted path, "" for
 * the whole): our fields must exist there (unless listed as extras) with the same kind;
 * fields the platform requires must be there (and, in requests, required).
 */
function compare(
  document: OpenApiDocument,
  ours: Schema,
  theirsRaw: Schema | undefined,
  field: string,
  side: Side,
  operation: ContractOperation,
  problems: string[],
): void {
  const theirs = resolve(document, theirsRaw);
  const ourKind = kindOf(ours);
  const theirKind = kindOf(theirs);
  const at = `${label(side, operation)}${field ? ` field "${field}"` : ""}`;
  if (ourKind === undefined || theirKind === undefined) return;
  if (ourKind === "oneOf" && theirKind === "oneOf") {
    // Union members pair up in order (MESG, FILE, ADMM on both sides).
    const branches = ours.oneOf ?? ours.anyOf ?? [];
    if (branches.length !== theirs.oneOf?.length)
      problems.push(
        `${at}: ${branches.length} shapes here, ${theirs.oneOf?.length ?? 0} in the description`,
      );
    branches.forEach((branch, index) =>
      compare(document, branch, theirs.oneOf?.[index], field, side, operation, problems),
    );
    return;
  }
  if (ourKind === "oneOf" && theirKind === "object") {
    // Our shapes by type (MESG, FILE, ADMM) against the description's one: each must agree.
    for (const branch of ours.oneOf ?? ours.anyOf ?? [])
      compare(document, branch, theirs, field, side, operation, problems);
    return;
  }
  if (!(ourKind === theirKind || (ourKind === "integer" && theirKind === "number"))) {
    problems.push(`${at}: ${ourKind} here, ${theirKind} in the description`);
    return;
  }
  if (ourKind === "array") {
    compare(document, ours.items ?? {}, theirs.items, field, side, operation, problems);
    return;
  }
  if (ourKind !== "object" || !ours.properties || !theirs.properties) return;
  const extras = new Set(operation.extras?.[side] ?? []);
  const requiredDiffers = new Set(operation.requiredDiffers ?? []);
  const path = (name: string) => (field ? `${field}.${name}` : name);
  for (const [name, schema] of Object.entries(ours.properties)) {
    if (extras.has(path(name))) continue;
    if (!(name in theirs.properties)) {
      problems.push(
        `${label(side, operation)} field "${path(name)}" is not in the platform's description`,
      );
      continue;
    }
    compare(document, schema, theirs.properties[name], path(name), side, operation, problems);
  }
  for (const name of theirs.required ?? []) {
    if (requiredDiffers.has(path(name))) continue;
    if (!(name in ours.properties)) {
      problems.push(
        `${label(side, operation)} field "${path(name)}", required by the platform, is missing here`,
      );
    } else if (side !== "response" && !(ours.required ?? []).includes(name)) {
      problems.push(
        `${label(side, operation)} field "${path(name)}" is required by the platform, optional here`,
      );
    }
  }
  if (side !== "response") {
    for (const name of ours.required ?? []) {
      if (requiredDiffers.has(path(name))) continue;
      if (name in theirs.properties && !(theirs.required ?? []).includes(name))
        problems.push(
          `${label(side, operation)} field "${path(name)}" is required here, optional on the platform`,
        );
    }
  }
}

function label(side: Side, operation: ContractOperation): string {
  return `${operation.method.toUpperCase()} ${operation.path} ${side}`;
}

function jsonSchema(schema: z.ZodType, io: "input" | "output"): Schema {
  return z.toJSONSchema(schema, { io, unrepresentable: "any" }) as Schema;
}

/** Every difference between the operations' schemas and the description, in words. */
export function checkAgainstDescription(
  document: OpenApiDocument,
  operations: ContractOperation[] = contractOperations,
): string[] {
  const problems: string[] = [];
  for (const operation of operations) {
    const described = document.paths[operation.path]?.[operation.method];
    if (operation.undescribed !== undefined) {
      if (described)
        problems.push(
          `${operation.method.toUpperCase()} ${operation.path} is now in the description: check it`,
        );
      continue;
    }
    if (!described) {
      problems.push(
        `${operation.method.toUpperCase()} ${operation.path} is not in the platform's description`,
      );
      continue;
    }
    if (operation.query) {
      const ours = jsonSchema(operation.query, "input");
      const theirs: Schema = {
        type: "object",
        properties: Object.fromEntries(
          described.parameters.filter((p) => p.in === "query").map((p) => [p.name, p.schema ?? {}]),
        ),
        required: described.parameters
          .filter((p) => p.in === "query" && p.required)
          .map((p) => p.name),
      };
      // Query values arrive as text; only names and requiredness are compared, not kinds.
      const names: Schema = {
        type: "object",
        properties: Object.fromEntries(
          Object.keys(ours.properties ?? {}).map((name) => [name, {}]),
        ),
        required: ours.required ?? [],
      };
      compare(document, names, theirs, "", "query", operation, problems);
    }
    if (operation.body) {
      const theirs =
        described.requestBody?.["application/json"] ??
        described.requestBody?.["multipart/form-data"];
      if (!theirs)
        problems.push(`${label("body", operation)}: the platform's description has no JSON body`);
      else
        compare(
          document,
          jsonSchema(operation.body, "input"),
          theirs,
          "",
          "body",
          operation,
          problems,
        );
    }
    if (operation.response) {
      compare(
        document,
        jsonSchema(operation.response, "output"),
        described.response,
        "",
        "response",
        operation,
        problems,
      );
    }
  }
  return problems;
}

/** `{channel_type}` stands for both kinds; other parameters match any `:name`. */
export function sandboxRoutesFor(operation: ContractOperation): string[] {
  const route = operation.path.replace(/\{(?!channel_type)[^}]+\}/g, ":param");
  return route.includes("{channel_type}")
    ? ["open_channels", "group_channels"].map((type) => route.replace("{channel_type}", type))
    : [route];
}
