import "server-only";
import { cache } from "react";
import { env } from "@/lib/env";
import { consoleOrigin } from "@/lib/request-origin";
import {
  createPlatformClient,
  type FetchLike,
  type PlatformClient,
  type PlatformClientOptions,
} from "./client";
import { PlatformError } from "./errors";

/** What the console talks to, as the settings page shows it (never the token itself). */
export type PlatformTarget = {
  kind: "sandbox" | "remote";
  appId: string;
  chatBaseUrl: string;
  callsBaseUrl: string;
  maskedToken: string;
};

/**
 * The embedded sandbox as the platform client sees it: a transport and the default
 * application's credentials. Wired in once at start-up (`lib/startup.ts`), so this module
 * imports nothing of `lib/sandbox` and a remote target never loads it.
 */
export type EmbeddedPlatform = {
  /** Calls the sandbox in this process, as a network peer would be called. */
  fetch: FetchLike;
  /** Reads the default application's id and token (from the database). */
  defaultApplication: () => Promise<{ id: string; apiToken: string }>;
};

type ResolvedTarget = PlatformTarget & { apiToken: string; fetch?: FetchLike };

const embeddedKey = Symbol.for("switchboard.platform.embedded");
type EmbeddedState = {
  platform: EmbeddedPlatform;
  credentials?: Promise<{ id: string; apiToken: string }>;
  readAt: number;
};
type GlobalWithEmbedded = typeof globalThis & { [embeddedKey]?: EmbeddedState };
/** Another process may rotate the token (PostgreSQL workers): read it again after this long. */
const CREDENTIALS_TTL_MS = 10_000;

/** Called once at start-up, by every process whose target may be the embedded sandbox. */
export function connectEmbeddedPlatform(platform: EmbeddedPlatform): void {
  (globalThis as GlobalWithEmbedded)[embeddedKey] = { platform, readAt: 0 };
}

/** The sandbox's token was rotated: read it again on the next call. */
export function forgetEmbeddedCredentials(): void {
  const state = (globalThis as GlobalWithEmbedded)[embeddedKey];
  if (state) state.credentials = undefined;
}

function embeddedCredentials(state: EmbeddedState): Promise<{ id: string; apiToken: string }> {
  if (!state.credentials || Date.now() - state.readAt > CREDENTIALS_TTL_MS) {
    state.readAt = Date.now();
    state.credentials = state.platform.defaultApplication();
    state.credentials.catch(() => forgetEmbeddedCredentials());
  }
  return state.credentials;
}

/**
 * PLATFORM_CHAT_URL set: a remote platform, configured wholly by the environment.
 * Otherwise the embedded sandbox's default application, called in-process: the same
 * Request and Response objects as over HTTP, without a socket back to ourselves.
 * Resolved once per request (React `cache()`); outside a request, once per call.
 */
const resolveTarget = cache(async (): Promise<ResolvedTarget> => {
  const e = env();
  if (e.PLATFORM_CHAT_URL) {
    if (!e.PLATFORM_APP_ID || !e.PLATFORM_API_TOKEN) {
      throw new Error(
        "PLATFORM_CHAT_URL is set, so PLATFORM_APP_ID and PLATFORM_API_TOKEN must be set too.",
      );
    }
    return {
      kind: "remote",
      appId: e.PLATFORM_APP_ID,
      chatBaseUrl: e.PLATFORM_CHAT_URL,
      callsBaseUrl: e.PLATFORM_CALLS_URL ?? e.PLATFORM_CHAT_URL,
      apiToken: e.PLATFORM_API_TOKEN,
      maskedToken: maskToken(e.PLATFORM_API_TOKEN),
    };
  }
  const state = (globalThis as GlobalWithEmbedded)[embeddedKey];
  if (!state)
    throw new Error(
      "The embedded sandbox is not connected: set PLATFORM_CHAT_URL or start the console.",
    );
  const app = await embeddedCredentials(state);
  const baseUrl = `${await consoleOrigin()}/sandbox/${encodeURIComponent(app.id)}`;
  return {
    kind: "sandbox",
    appId: app.id,
    chatBaseUrl: baseUrl,
    callsBaseUrl: baseUrl,
    apiToken: app.apiToken,
    maskedToken: maskToken(app.apiToken),
    fetch: state.platform.fetch,
  };
});

export async function getPlatformTarget(): Promise<PlatformTarget> {
  const { apiToken: _apiToken, fetch: _fetch, ...target } = await resolveTarget();
  return target;
}

export async function getPlatformClient(
  overrides: Pick<PlatformClientOptions, "onResponse" | "rateLimitRetries" | "timeoutMs"> = {},
): Promise<PlatformClient> {
  const target = await resolveTarget();
  return createPlatformClient({
    appId: target.appId,
    chatBaseUrl: target.chatBaseUrl,
    callsBaseUrl: target.callsBaseUrl,
    apiToken: target.apiToken,
    fetch: target.fetch,
    timeoutMs: env().PLATFORM_TIMEOUT_MS,
    ...overrides,
  });
}

export type ConnectionCheck =
  | { ok: true; latencyMs: number; categories: number }
  | { ok: false; message: string; status?: number; code?: number };

/** Reads the webhook settings, the cheapest authenticated call, and says how it went. */
export async function checkPlatformConnection(): Promise<ConnectionCheck> {
  const started = performance.now();
  try {
    const client = await getPlatformClient({ rateLimitRetries: 0 });
    const settings = await client.webhooks.getSettings({ displayAllCategories: true });
    return {
      ok: true,
      latencyMs: Math.round(performance.now() - started),
      categories: settings.webhook.all_webhook_categories?.length ?? 0,
    };
  } catch (error) {
    if (error instanceof PlatformError) {
      return {
        ok: false,
        message: error.message,
        status: error.status || undefined,
        code: error.code ?? undefined,
      };
    }
    return {
      ok: false,
      message: error instanceof Error ? error.message : "The connection check failed.",
    };
  }
}

export function maskToken(token: string): string {
  return token.length <= 8 ? "••••••••" : `${"•".repeat(8)}${token.slice(-4)}`;
}
