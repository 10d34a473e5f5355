import "server-only";
import { env } from "@/lib/env";
import { findApplication, getSandboxApp } from "@/lib/sandbox";
import { createPlatformClient, type FetchLike, type PlatformClient, type PlatformClientOptions } from "./client";
import { inProcessTransport } from "./in-process";
import { PlatformError } from "./errors";

/** What the console talks to, as the settings page shows it (never the token itself). */
export type PlatformTarget = {
  kind: "sandbox" | "remote";
  appId: string;
  chatBaseUrl: string;
  callsBaseUrl: string;
  maskedToken: string;
};

type ResolvedTarget = PlatformTarget & { apiToken: string; fetch?: FetchLike };

/**
 * PLATFORM_CHAT_URL set: a remote platform, configured wholly by the environment.
 * Otherwise the embedded sandbox's default application, called in-process: the same
 * Request and Response objects as over HTTP, without a socket back to ourselves.
 */
async function resolveTarget(): Promise<ResolvedTarget> {
  const e = env();
  if (e.PLATFORM_CHAT_URL) {
    if (!e.PLATFORM_APP_ID || !e.PLATFORM_API_TOKEN) {
      throw new Error("PLATFORM_CHAT_URL is set, so PLATFORM_APP_ID and PLATFORM_API_TOKEN must be set too.");
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
  // ready() creates the default application once per process; here it is only read.
  const app = await findApplication(await getSandboxApp().ready(), e.SANDBOX_APP_ID);
  if (!app) throw new Error(`The sandbox's default application "${e.SANDBOX_APP_ID}" is missing.`);
  const baseUrl = `${await consoleOrigin()}/sandbox/${encodeURIComponent(app.id)}`;
  return {
    kind: "sandbox",
    appId: app.id,
    chatBaseUrl: baseUrl,
    callsBaseUrl: baseUrl,
    apiToken: app.apiToken,
    maskedToken: maskToken(app.apiToken),
    fetch: embeddedSandboxFetch,
  };
}

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
      return { ok: false, message: error.message, status: error.status || undefined, code: error.code ?? undefined };
    }
    return { ok: false, message: error instanceof Error ? error.message : "The connection check failed." };
  }
}

export function maskToken(token: string): string {
  return token.length <= 8 ? "••••••••" : `${"•".repeat(8)}${token.slice(-4)}`;
}

const embeddedSandboxFetch = inProcessTransport(getSandboxApp);

/** The console's own origin: the request's when in one, else the local address it serves on. */
async function consoleOrigin(): Promise<string> {
  try {
    const { headers } = await import("next/headers");
    const incoming = await headers();
    const host = incoming.get("x-forwarded-host") ?? incoming.get("host");
    if (host) return `${incoming.get("x-forwarded-proto") ?? "http"}://${host}`;
  } catch {
    // Outside a request (background jobs, tests).
  }
  return `http://127.0.0.1:${process.env.PORT ?? 3000}`;
}
