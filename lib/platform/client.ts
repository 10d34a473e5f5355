import { z } from "zod";
import {
  groupChannelMembersResponseSchema,
  groupChannelResourceSchema,
  openChannelResourceSchema,
} from "@/lib/schemas/channels";
import {
  messageListResponseSchema,
  messageResourceSchema,
  messageTotalCountResponseSchema,
  reactionListResponseSchema,
  reactionResponseSchema,
  type ReplyType,
} from "@/lib/schemas/messages";
import {
  userListResponseSchema,
  userMetadataResponseSchema,
  userResourceSchema,
} from "@/lib/schemas/users";
import {
  webhookSettingsAnswerResponseSchema,
  webhookSettingsAnswerSchema,
} from "@/lib/schemas/webhooks";
import { PlatformError } from "./errors";
import { withRetries } from "@/lib/retry";
import { parseRateLimitHeaders, type RateLimitInfo } from "./rate-limit";
import { rateLimitWaits } from "./retries";
import { checkResponse } from "./response-check";
import { httpTransport, type TransportInit, type TransportResponse } from "./http-transport";
import type { DeliveryCounts, DeliveryFilter, EndpointHealth } from "@/lib/schemas/sandbox-events";
import type {
  CreateGroupChannelBody,
  CreateOpenChannelBody,
  CreateUserBody,
  InviteMembersBody,
  MigrationBody,
  ReactionBody,
  SandboxDelivery,
  SandboxEmitResult,
  SendMessageBody,
  UpdateGroupChannelBody,
  UpdateMessageBody,
  UpdateOpenChannelBody,
  UpdateUserBody,
  WebhookSettingsUpdate,
} from "./types";

export type FetchLike = (input: string, init: TransportInit) => Promise<TransportResponse>;

export type ResponseInfo = {
  method: string;
  url: string;
  status: number;
  latencyMs: number;
  rateLimit: RateLimitInfo | null;
};

export type PlatformClientOptions = {
  appId: string;
  /** `{base_url}`: chat operations (`/v3/...`), includes the application. */
  chatBaseUrl: string;
  /** `{calls_base_url}`: calls operations (`/v1/...`), includes the application. */
  callsBaseUrl: string;
  apiToken: string;
  /** Per-request timeout. */
  timeoutMs?: number;
  /** How the request travels; defaults to node:http over kept-alive connections (`./http-transport.ts`). */
  fetch?: FetchLike;
  /** How many times a 429 is waited out and sent again before it is thrown. */
  rateLimitRetries?: number;
  /** A 429 asking for a longer wait than this is thrown at once. */
  maxRateLimitWaitMs?: number;
  /** Sees every response, e.g. to pace a bulk job by the rate-limit headers. */
  onResponse?: (info: ResponseInfo) => void;
};

export type RequestOptions = {
  query?: Record<string, string | number | boolean | undefined>;
  json?: unknown;
  /** A JSON body already written out, sent as it is. */
  jsonText?: string;
  form?: FormData;
  signal?: AbortSignal;
};

type Base = "chat" | "calls";

const segment = encodeURIComponent;

/** One typed client for the platform interface, used alike for the sandbox and a remote platform. */
export function createPlatformClient(options: PlatformClientOptions) {
  const {
    appId,
    apiToken,
    timeoutMs = 10_000,
    rateLimitRetries = 3,
    maxRateLimitWaitMs = 30_000,
    onResponse,
  } = options;
  const rateLimitPolicy = rateLimitWaits(rateLimitRetries, maxRateLimitWaitMs);
  const transport: FetchLike = options.fetch ?? httpTransport;
  const bases: Record<Base, string> = {
    chat: options.chatBaseUrl.replace(/\/+$/, ""),
    calls: options.callsBaseUrl.replace(/\/+$/, ""),
  };

  async function request<T>(
    base: Base,
    method: string,
    path: string,
    init: RequestOptions = {},
  ): Promise<T> {
    const url = new URL(`${bases[base]}${path}`);
    for (const [key, value] of Object.entries(init.query ?? {})) {
      if (value !== undefined) url.searchParams.set(key, String(value));
    }
    // Only 429s are waited out here; other failures are the caller's to retry.
    return withRetries(
      async () => readResponse<T>(await send(method, url.toString(), init), method, url.toString()),
      rateLimitPolicy,
      { signal: init.signal },
    );
  }

  async function send(
    method: string,
    url: string,
    init: RequestOptions,
  ): Promise<TransportResponse> {
    const timeout = AbortSignal.timeout(timeoutMs);
    const signal = init.signal ? AbortSignal.any([init.signal, timeout]) : timeout;
    const headers: Record<string, string> = { "Api-Token": apiToken, accept: "application/json" };
    let body: string | FormData | undefined;
    if (init.form) body = init.form;
    else if (init.jsonText !== undefined) {
      headers["content-type"] = "application/json";
      body = init.jsonText;
    } else if (init.json !== undefined) {
      headers["content-type"] = "application/json";
      body = JSON.stringify(init.json);
    }
    const started = performance.now();
    let response: TransportResponse;
    try {
      response = await transport(url, { method, headers, body, signal });
    } catch (error) {
      if (init.signal?.aborted) throw init.signal.reason;
      // Without the query: it can carry a hundred user ids, too long for a message.
      const shown = url.split("?")[0];
      if (timeout.aborted) {
        throw new PlatformError({
          kind: "timeout",
          message: `${method} ${shown} got no answer within ${timeoutMs} ms.`,
          cause: error,
        });
      }
      throw new PlatformError({
        kind: "network",
        message: `${method} ${shown} failed: ${describeNetworkError(error)}.`,
        cause: error,
      });
    }
    onResponse?.({
      method,
      url,
      status: response.status,
      latencyMs: performance.now() - started,
      rateLimit: parseRateLimitHeaders(response.headers),
    });
    return response;
  }

  const calls = <T>(method: string, path: string, init?: RequestOptions) =>
    request<T>("calls", method, path, init);
  /** A chat operation whose answer is checked against its shared schema (see checkResponse). */
  const checked = <S extends z.ZodType>(
    operation: string,
    schema: S,
    method: string,
    path: string,
    init?: RequestOptions,
  ): Promise<z.output<S>> =>
    request<unknown>("chat", method, path, init).then((body) =>
      checkResponse(operation, schema, body),
    );
  const json = (body: unknown, signal?: AbortSignal) =>
    body instanceof FormData ? { form: body, signal } : { json: body, signal };
  const list = (values: string[] | undefined) => (values?.length ? values.join(",") : undefined);

  /** Open and group channels share the shape of their operations, under their own path. */
  function channelOperations<S extends z.ZodType, CreateBody, UpdateBody>(
    resource: "open_channels" | "group_channels",
    schema: S,
  ) {
    const one = (channelUrl: string) => `/v3/${resource}/${segment(channelUrl)}`;
    const page = z.object({ channels: z.array(schema), next: z.string() });
    return {
      /** JSON body, or a FormData when uploading `cover_file`. */
      create: (body: CreateBody | FormData, signal?: AbortSignal) =>
        checked(`${resource}.create`, schema, "POST", `/v3/${resource}`, json(body, signal)),
      get: (channelUrl: string, signal?: AbortSignal) =>
        checked(`${resource}.get`, schema, "GET", one(channelUrl), { signal }),
      /** One page; pass the previous page's `next` as `token`. */
      list: (query: ChannelListQuery = {}, signal?: AbortSignal) =>
        checked(`${resource}.list`, page, "GET", `/v3/${resource}`, {
          query: {
            limit: query.limit,
            token: query.token || undefined,
            channel_urls: list(query.channelUrls),
            custom_types: list(query.customTypes),
            name: query.name,
            name_contains: query.nameContains,
            name_startswith: query.nameStartswith,
            url_contains: query.urlContains,
            members_exactly_in: list(query.membersExactlyIn),
            members_include_in: list(query.membersIncludeIn),
            query_type: query.queryType,
            show_empty: query.showEmpty,
            show_member: query.showMember,
          },
          signal,
        }),
      /** Changes the properties given; a FormData when uploading `cover_file`. */
      update: (channelUrl: string, body: UpdateBody | FormData, signal?: AbortSignal) =>
        checked(`${resource}.update`, schema, "PUT", one(channelUrl), json(body, signal)),
      freeze: (channelUrl: string, freeze: boolean, signal?: AbortSignal) =>
        checked(`${resource}.freeze`, schema, "PUT", `${one(channelUrl)}/freeze`, {
          json: { freeze },
          signal,
        }),
      delete: (channelUrl: string, signal?: AbortSignal) =>
        checked(`${resource}.delete`, z.object({}), "DELETE", one(channelUrl), { signal }),
    };
  }

  const webhookPath = `/v1/applications/${segment(appId)}/settings/webhook`;
  const userPath = (userId: string) => `/v3/users/${segment(userId)}`;
  const metadataPath = (userId: string, key?: string) =>
    `${userPath(userId)}/metadata${key === undefined ? "" : `/${segment(key)}`}`;
  const empty = z.object({});
  const messagesPath = (channelType: ChannelKind, channelUrl: string) =>
    `/v3/${channelType}/${segment(channelUrl)}/messages`;
  const messagePath = (channelType: ChannelKind, channelUrl: string, messageId: number) =>
    `${messagesPath(channelType, channelUrl)}/${messageId}`;
  const reactionsPath = (channelUrl: string, messageId: number) =>
    `${messagePath("group_channels", channelUrl, messageId)}/reactions`;
  const detailsQuery = (query: MessageDetailsQuery) => ({
    include_thread_info: query.includeThreadInfo,
    include_parent_message_info: query.includeParentMessageInfo,
    include_reactions: query.includeReactions,
    with_sorted_meta_array: query.withSortedMetaArray,
  });

  return {
    appId,
    request,
    webhooks: {
      getSettings: (query: { displayAllCategories?: boolean } = {}, signal?: AbortSignal) =>
        calls<unknown>("GET", webhookPath, {
          query: { display_all_webhook_categories: query.displayAllCategories || undefined },
          signal,
        }).then((body) =>
          checkResponse("webhooks.getSettings", webhookSettingsAnswerResponseSchema, body),
        ),
      updateSettings: (update: WebhookSettingsUpdate, signal?: AbortSignal) =>
        calls<unknown>("PUT", webhookPath, {
          json: { application_id: appId, ...update },
          signal,
        }).then((body) =>
          checkResponse("webhooks.updateSettings", webhookSettingsAnswerSchema, body),
        ),
    },
    users: {
      /** JSON body, or a FormData when uploading `profile_file`. */
      create: (body: CreateUserBody | FormData, signal?: AbortSignal) =>
        checked("users.create", userResourceSchema, "POST", "/v3/users", json(body, signal)),
      get: (userId: string, signal?: AbortSignal) =>
        checked("users.get", userResourceSchema, "GET", userPath(userId), { signal }),
      /**
       * One page; pass the previous page's `next` as `token`. `activeMode` defaults to the
       * platform's `activated`: a look-up of ids that must find deactivated users says `all`.
       */
      list: (query: UserListQuery = {}, signal?: AbortSignal) =>
        checked("users.list", userListResponseSchema, "GET", "/v3/users", {
          query: {
            user_ids: list(query.userIds),
            limit: query.limit,
            token: query.token || undefined,
            nickname: query.nickname,
            nickname_startswith: query.nicknameStartswith,
            active_mode: query.activeMode,
            metadatakey: query.metadataKey,
            metadatavalues_in: list(query.metadataValuesIn),
          },
          signal,
        }),
      update: (userId: string, body: UpdateUserBody, signal?: AbortSignal) =>
        checked("users.update", userResourceSchema, "PUT", userPath(userId), {
          json: body,
          signal,
        }),
      delete: (userId: string, signal?: AbortSignal) =>
        checked("users.delete", empty, "DELETE", userPath(userId), { signal }),
      metadata: {
        get: (userId: string, signal?: AbortSignal) =>
          checked("users.metadata.get", userMetadataResponseSchema, "GET", metadataPath(userId), {
            signal,
          }),
        create: (userId: string, metadata: Record<string, string>, signal?: AbortSignal) =>
          checked(
            "users.metadata.create",
            userMetadataResponseSchema,
            "POST",
            metadataPath(userId),
            {
              json: { metadata },
              signal,
            },
          ),
        update: (
          userId: string,
          metadata: Record<string, string>,
          upsert = false,
          signal?: AbortSignal,
        ) =>
          checked(
            "users.metadata.update",
            userMetadataResponseSchema,
            "PUT",
            metadataPath(userId),
            {
              json: { metadata, upsert },
              signal,
            },
          ),
        deleteAll: (userId: string, signal?: AbortSignal) =>
          checked("users.metadata.deleteAll", empty, "DELETE", metadataPath(userId), { signal }),
        getItem: (userId: string, key: string, signal?: AbortSignal) =>
          checked(
            "users.metadata.getItem",
            userMetadataResponseSchema,
            "GET",
            metadataPath(userId, key),
            {
              signal,
            },
          ),
        updateItem: (
          userId: string,
          key: string,
          value: string,
          upsert = false,
          signal?: AbortSignal,
        ) =>
          checked(
            "users.metadata.updateItem",
            userMetadataResponseSchema,
            "PUT",
            metadataPath(userId, key),
            {
              json: { value, upsert },
              signal,
            },
          ),
        deleteItem: (userId: string, key: string, signal?: AbortSignal) =>
          checked("users.metadata.deleteItem", empty, "DELETE", metadataPath(userId, key), {
            signal,
          }),
      },
      /** Adds or updates items (upsert), as before the metadata family was complete. */
      updateMetadata: (userId: string, metadata: Record<string, string>, signal?: AbortSignal) =>
        checked("users.metadata.update", userMetadataResponseSchema, "PUT", metadataPath(userId), {
          json: { metadata, upsert: true },
          signal,
        }),
    },
    openChannels: channelOperations<
      typeof openChannelResourceSchema,
      CreateOpenChannelBody,
      UpdateOpenChannelBody
    >("open_channels", openChannelResourceSchema),
    groupChannels: {
      ...channelOperations<
        typeof groupChannelResourceSchema,
        CreateGroupChannelBody,
        UpdateGroupChannelBody
      >("group_channels", groupChannelResourceSchema),
      /** Adds up to 100 members, within the channel's cap. */
      invite: (channelUrl: string, body: InviteMembersBody, signal?: AbortSignal) =>
        checked(
          "group_channels.invite",
          groupChannelResourceSchema,
          "POST",
          `/v3/group_channels/${segment(channelUrl)}/invite`,
          { json: body, signal },
        ),
      /**
       * One page of members; pass the previous page's `next` as `token`. The platform lists
       * activated members only unless `memberActiveModeFilter` says otherwise.
       */
      members: (
        channelUrl: string,
        query: {
          limit?: number;
          token?: string;
          memberStateFilter?: "all" | "invited_only" | "joined_only";
          memberActiveModeFilter?: "activated" | "deactivated" | "all";
        } = {},
        signal?: AbortSignal,
      ) =>
        checked(
          "group_channels.members",
          groupChannelMembersResponseSchema,
          "GET",
          `/v3/group_channels/${segment(channelUrl)}/members`,
          {
            query: {
              limit: query.limit,
              token: query.token || undefined,
              member_state_filter: query.memberStateFilter,
              member_active_mode_filter: query.memberActiveModeFilter,
            },
            signal,
          },
        ),
    },
    messages: {
      /** Messages around `messageTs` or `messageId`, in time order; replies as `includeReplyType` says. */
      list: (
        channelType: ChannelKind,
        channelUrl: string,
        query: MessageListQuery = {},
        signal?: AbortSignal,
      ) =>
        checked(
          "messages.list",
          messageListResponseSchema,
          "GET",
          messagesPath(channelType, channelUrl),
          {
            query: {
              message_ts: query.messageTs,
              message_id: query.messageId,
              prev_limit: query.prevLimit,
              next_limit: query.nextLimit,
              include: query.include,
              reverse: query.reverse,
              message_type: query.messageType,
              sender_id: query.senderId,
              sender_ids: list(query.senderIds),
              custom_types: query.customTypes?.join(","),
              include_reply_type: query.includeReplyType,
              ...detailsQuery(query),
            },
            signal,
          },
        ),
      /**
       * Sends one message (MESG, FILE or ADMM); a reply with `parent_message_id`. A `dedup_id`
       * already stored in the channel answers the stored message, so a retry stores nothing.
       */
      send: (
        channelType: ChannelKind,
        channelUrl: string,
        body: SendMessageBody,
        signal?: AbortSignal,
      ) =>
        checked(
          "messages.send",
          messageResourceSchema,
          "POST",
          messagesPath(channelType, channelUrl),
          {
            json: body,
            signal,
          },
        ),
      get: (
        channelType: ChannelKind,
        channelUrl: string,
        messageId: number,
        query: MessageDetailsQuery = {},
        signal?: AbortSignal,
      ) =>
        checked(
          "messages.get",
          messageResourceSchema,
          "GET",
          messagePath(channelType, channelUrl, messageId),
          { query: detailsQuery(query), signal },
        ),
      /** Changes the properties given; `message_type` must be the message's own. */
      update: (
        channelType: ChannelKind,
        channelUrl: string,
        messageId: number,
        body: UpdateMessageBody,
        signal?: AbortSignal,
      ) =>
        checked(
          "messages.update",
          messageResourceSchema,
          "PUT",
          messagePath(channelType, channelUrl, messageId),
          { json: body, signal },
        ),
      delete: (
        channelType: ChannelKind,
        channelUrl: string,
        messageId: number,
        signal?: AbortSignal,
      ) =>
        checked(
          "messages.delete",
          empty,
          "DELETE",
          messagePath(channelType, channelUrl, messageId),
          {
            signal,
          },
        ),
      /** Every message of the channel, replies included: `{ total }`. */
      totalCount: (channelType: ChannelKind, channelUrl: string, signal?: AbortSignal) =>
        checked(
          "messages.totalCount",
          messageTotalCountResponseSchema,
          "GET",
          `${messagesPath(channelType, channelUrl)}/total_count`,
          { signal },
        ),
    },
    /** Reactions on group channel messages (the platform has none in open channels). */
    reactions: {
      /** Adds a member's reaction; the same one again changes nothing. */
      add: (channelUrl: string, messageId: number, body: ReactionBody, signal?: AbortSignal) =>
        checked(
          "reactions.add",
          reactionResponseSchema,
          "POST",
          reactionsPath(channelUrl, messageId),
          {
            json: body,
            signal,
          },
        ),
      /** `{ reactions: { key: [user_id, ...] } }`. */
      list: (channelUrl: string, messageId: number, signal?: AbortSignal) =>
        checked(
          "reactions.list",
          reactionListResponseSchema,
          "GET",
          reactionsPath(channelUrl, messageId),
          {
            signal,
          },
        ),
      remove: (channelUrl: string, messageId: number, body: ReactionBody, signal?: AbortSignal) =>
        checked(
          "reactions.remove",
          reactionResponseSchema,
          "DELETE",
          reactionsPath(channelUrl, messageId),
          { query: { user_id: body.user_id, reaction: body.reaction }, signal },
        ),
    },
    /** Sandbox-only operations (sandbox contract); a real platform answers them 404. */
    sandbox: {
      emitEvent: (body: { category: string } & Record<string, unknown>, signal?: AbortSignal) =>
        calls<SandboxEmitResult>("POST", "/v1/sandbox/events", { json: body, signal }),
      playDirectCall: (
        body: {
          caller_id: string;
          callee_id: string;
          is_video?: boolean;
          custom_items?: Record<string, string>;
        },
        signal?: AbortSignal,
      ) =>
        calls<{ call_id: string; events: SandboxEmitResult[] }>(
          "POST",
          "/v1/sandbox/direct_calls",
          { json: body, signal },
        ),
      playRoom: (body: { created_by: string; invitee_ids: string[] }, signal?: AbortSignal) =>
        calls<{ room_id: string; events: SandboxEmitResult[] }>("POST", "/v1/sandbox/rooms", {
          json: body,
          signal,
        }),
      deliveries: (
        query: DeliveryFilter & { limit?: number; token?: string } = {},
        signal?: AbortSignal,
      ) =>
        calls<{ deliveries: SandboxDelivery[]; next: string }>("GET", "/v1/sandbox/deliveries", {
          query,
          signal,
        }),
      deliveryCounts: (filter: DeliveryFilter = {}, signal?: AbortSignal) =>
        calls<{ counts: DeliveryCounts }>("GET", "/v1/sandbox/deliveries/counts", {
          query: filter,
          signal,
        }),
      endpointHealth: (signal?: AbortSignal) =>
        calls<{ health: EndpointHealth }>("GET", "/v1/sandbox/deliveries/health", { signal }),
      resendDeliveries: (filter: DeliveryFilter, signal?: AbortSignal) =>
        calls<{ count: number; event_ids: string[] }>("POST", "/v1/sandbox/deliveries/resend", {
          json: filter,
          signal,
        }),
    },
    migration: {
      /**
       * At most 100 messages into one channel per call. The body may come as its JSON text,
       * as the import job reads it from its database, so it is not parsed and written again.
       */
      migrateMessages: (channelUrl: string, body: MigrationBody | string, signal?: AbortSignal) =>
        checked(
          "migration.migrateMessages",
          empty,
          "POST",
          `/v3/migration/${segment(channelUrl)}`,
          typeof body === "string" ? { jsonText: body, signal } : { json: body, signal },
        ),
    },
  };
}

export type UserListQuery = {
  userIds?: string[];
  limit?: number;
  /** The previous page's `next`. */
  token?: string;
  nickname?: string;
  nicknameStartswith?: string;
  activeMode?: "activated" | "deactivated" | "all";
  metadataKey?: string;
  metadataValuesIn?: string[];
};

export type ChannelListQuery = {
  limit?: number;
  /** The previous page's `next`. */
  token?: string;
  channelUrls?: string[];
  customTypes?: string[];
  /** Group channels only. */
  name?: string;
  nameContains?: string;
  /** Group channels only. */
  nameStartswith?: string;
  /** Open channels only. */
  urlContains?: string;
  /** Group channels only, as the rest below. */
  membersExactlyIn?: string[];
  membersIncludeIn?: string[];
  queryType?: "AND" | "OR";
  showEmpty?: boolean;
  showMember?: boolean;
};

export type ChannelKind = "open_channels" | "group_channels";

/** What a read adds to each message. */
export type MessageDetailsQuery = {
  /** Roots carry `thread_info`. */
  includeThreadInfo?: boolean;
  /** Replies carry `parent_message_info`. */
  includeParentMessageInfo?: boolean;
  /** Messages carry `reactions`. */
  includeReactions?: boolean;
  /** Messages carry `sorted_metaarray`. */
  withSortedMetaArray?: boolean;
};

export type MessageListQuery = MessageDetailsQuery & {
  /** The reference point: a time, or a message (one of them; the platform reads 0 as not given). */
  messageTs?: number;
  messageId?: number;
  prevLimit?: number;
  nextLimit?: number;
  include?: boolean;
  reverse?: boolean;
  messageType?: "MESG" | "FILE" | "ADMM";
  senderId?: string;
  senderIds?: string[];
  customTypes?: string[];
  /** Which replies are listed: `none` (the platform's default), `all`, `only_reply_to_channel`. */
  includeReplyType?: ReplyType;
};

export type PlatformClient = ReturnType<typeof createPlatformClient>;

async function readResponse<T>(
  response: TransportResponse,
  method: string,
  url: string,
): Promise<T> {
  const text = await response.text();
  let body: unknown;
  try {
    body = text ? JSON.parse(text) : undefined;
  } catch {
    body = undefined;
  }
  if (!response.ok) {
    const error = body as { message?: unknown; code?: unknown } | undefined;
    const code = typeof error?.code === "number" ? error.code : null;
    const message =
      typeof error?.message === "string" && error.message
        ? error.message
        : `${method} ${url} answered HTTP ${response.status}.`;
    throw new PlatformError({
      kind: "http",
      status: response.status,
      code,
      message,
      retryAfterMs: parseRateLimitHeaders(response.headers)?.retryAfterMs ?? null,
    });
  }
  if (body === undefined || body === null || typeof body !== "object") {
    throw new PlatformError({
      kind: "invalid_response",
      status: response.status,
      message: `${method} ${url} answered something that is not a JSON object.`,
    });
  }
  return body as T;
}

function describeNetworkError(error: unknown): string {
  const cause = (error as { cause?: { code?: string; message?: string } })?.cause;
  if (cause?.code === "ECONNREFUSED") return "connection refused";
  if (cause?.code === "ENOTFOUND") return "host not found";
  if (cause?.code === "ECONNRESET" || cause?.code === "UND_ERR_SOCKET") return "connection reset";
  return cause?.message ?? (error instanceof Error ? error.message : String(error));
}
