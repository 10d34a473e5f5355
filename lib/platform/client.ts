import { PlatformError } from "./errors";
import { withRetries } from "@/lib/retry";
import { parseRateLimitHeaders, type RateLimitInfo } from "./rate-limit";
import { rateLimitWaits } from "./retries";
import type {
  CreateGroupChannelBody,
  CreateOpenChannelBody,
  CreateUserBody,
  GroupChannel,
  MigratedMessage,
  OpenChannel,
  Page,
  SandboxDelivery,
  SandboxEmitResult,
  UpdateUserBody,
  User,
  WebhookSettings,
  WebhookSettingsResponse,
  WebhookSettingsUpdate,
} from "./types";

export type FetchLike = (input: string, init: RequestInit) => Promise<Response>;

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
  /** How the request travels; defaults to the global fetch, which keeps connections alive. */
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
  const transport: FetchLike = options.fetch ?? ((input, init) => fetch(input, init));
  const bases: Record<Base, string> = {
    chat: options.chatBaseUrl.replace(/\/+$/, ""),
    calls: options.callsBaseUrl.replace(/\/+$/, ""),
  };

  async function request<T>(base: Base, method: string, path: string, init: RequestOptions = {}): Promise<T> {
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

  async function send(method: string, url: string, init: RequestOptions): Promise<Response> {
    const timeout = AbortSignal.timeout(timeoutMs);
    const signal = init.signal ? AbortSignal.any([init.signal, timeout]) : timeout;
    const headers: Record<string, string> = { "Api-Token": apiToken, accept: "application/json" };
    let body: BodyInit | undefined;
    if (init.form) body = init.form;
    else if (init.json !== undefined) {
      headers["content-type"] = "application/json";
      body = JSON.stringify(init.json);
    }
    const started = performance.now();
    let response: Response;
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

  const chat = <T>(method: string, path: string, init?: RequestOptions) => request<T>("chat", method, path, init);
  const calls = <T>(method: string, path: string, init?: RequestOptions) => request<T>("calls", method, path, init);
  /** Open and group channels share the shape of their operations, under their own path. */
  function channelOperations<Channel, CreateBody>(resource: "open_channels" | "group_channels") {
    const one = (channelUrl: string) => `/v3/${resource}/${segment(channelUrl)}`;
    return {
      /** JSON body, or a FormData when uploading `cover_file`. */
      create: (body: CreateBody | FormData, signal?: AbortSignal) =>
        chat<Channel>("POST", `/v3/${resource}`, body instanceof FormData ? { form: body, signal } : { json: body, signal }),
      get: (channelUrl: string, signal?: AbortSignal) => chat<Channel>("GET", one(channelUrl), { signal }),
      list: (query: { limit?: number; next?: string } = {}, signal?: AbortSignal) =>
        chat<Page<"channels", Channel>>("GET", `/v3/${resource}`, {
          query: { limit: query.limit, next: query.next || undefined },
          signal,
        }),
      freeze: (channelUrl: string, freeze: boolean, signal?: AbortSignal) =>
        chat<Channel>("PUT", `${one(channelUrl)}/freeze`, { json: { freeze }, signal }),
    };
  }

  const webhookPath = `/v1/applications/${segment(appId)}/settings/webhook`;

  return {
    appId,
    request,
    webhooks: {
      getSettings: (query: { displayAllCategories?: boolean } = {}, signal?: AbortSignal) =>
        calls<WebhookSettingsResponse>("GET", webhookPath, {
          query: { display_all_webhook_categories: query.displayAllCategories || undefined },
          signal,
        }),
      updateSettings: (update: WebhookSettingsUpdate, signal?: AbortSignal) =>
        calls<WebhookSettings>("PUT", webhookPath, { json: { application_id: appId, ...update }, signal }),
    },
    users: {
      /** JSON body, or a FormData when uploading `profile_file`. */
      create: (body: CreateUserBody | FormData, signal?: AbortSignal) =>
        chat<User>("POST", "/v3/users", body instanceof FormData ? { form: body, signal } : { json: body, signal }),
      get: (userId: string, signal?: AbortSignal) => chat<User>("GET", `/v3/users/${segment(userId)}`, { signal }),
      list: (query: { userIds?: string[]; limit?: number; next?: string } = {}, signal?: AbortSignal) =>
        chat<Page<"users", User>>("GET", "/v3/users", {
          query: { user_ids: query.userIds?.join(","), limit: query.limit, next: query.next || undefined },
          signal,
        }),
      update: (userId: string, body: UpdateUserBody, signal?: AbortSignal) =>
        chat<User>("PUT", `/v3/users/${segment(userId)}`, { json: body, signal }),
      updateMetadata: (userId: string, metadata: Record<string, string>, signal?: AbortSignal) =>
        chat<Record<string, string>>("PUT", `/v3/users/${segment(userId)}/metadata`, {
          json: { metadata },
          signal,
        }),
    },
    openChannels: channelOperations<OpenChannel, CreateOpenChannelBody>("open_channels"),
    groupChannels: channelOperations<GroupChannel, CreateGroupChannelBody>("group_channels"),
    /** Sandbox-only operations (sandbox contract); a real platform answers them 404. */
    sandbox: {
      emitEvent: (body: { category: string } & Record<string, unknown>, signal?: AbortSignal) =>
        calls<SandboxEmitResult>("POST", "/v1/sandbox/events", { json: body, signal }),
      playDirectCall: (
        body: { caller_id: string; callee_id: string; is_video?: boolean; custom_items?: Record<string, string> },
        signal?: AbortSignal,
      ) => calls<{ call_id: string; events: SandboxEmitResult[] }>("POST", "/v1/sandbox/direct_calls", { json: body, signal }),
      playRoom: (body: { created_by: string; invitee_ids: string[] }, signal?: AbortSignal) =>
        calls<{ room_id: string; events: SandboxEmitResult[] }>("POST", "/v1/sandbox/rooms", { json: body, signal }),
      deliveries: (query: { limit?: number; category?: string; eventId?: string } = {}, signal?: AbortSignal) =>
        calls<{ deliveries: SandboxDelivery[] }>("GET", "/v1/sandbox/deliveries", {
          query: { limit: query.limit, category: query.category, event_id: query.eventId },
          signal,
        }),
    },
    migration: {
      /** At most 100 messages into one channel per call. */
      migrateMessages: (
        channelUrl: string,
        body: { messages: MigratedMessage[]; update_read_ts?: boolean },
        signal?: AbortSignal,
      ) => chat<Record<string, never>>("POST", `/v3/migration/${segment(channelUrl)}`, { json: body, signal }),
    },
  };
}

export type PlatformClient = ReturnType<typeof createPlatformClient>;

async function readResponse<T>(response: Response, method: string, url: string): Promise<T> {
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
