import "server-only";
import { cache } from "react";
import { env } from "@/lib/env";
import { consoleOrigin, sandboxApplicationUrl } from "@/lib/request-origin";
import { maskToken } from "@/lib/text/masked-token";
import {
  createPlatformClient,
  type FetchLike,
  type PlatformClient,
  type PlatformClientOptions,
} from "./client";
import { PlatformError } from "./errors";

/** Ids of the targets the environment makes: PLATFORM_* variables, and the sandbox's. */
export const fixedTargetId = "env";
export const sandboxTargetPrefix = "sandbox:";

/**
 * What the console works on, as pages and confirmations show it (never the token itself):
 * an application of the embedded sandbox, a remote platform added in Settings, or the one
 * the PLATFORM_* variables fix.
 */
export type PlatformTarget = {
  /** `sandbox:<application id>`, `remote:<uuid>` or `env`. */
  id: string;
  name: string;
  kind: "sandbox" | "remote";
  /** What confirmations say it is: the embedded sandbox's applications are always "sandbox". */
  environment: "sandbox" | "production";
  /** Set by PLATFORM_CHAT_URL: the console works on it alone, with no switcher. */
  fixed: boolean;
  appId: string;
  chatBaseUrl: string;
  callsBaseUrl: string;
  maskedToken: string;
};

/** A target with what calling it takes; server code only, never handed to a page. */
export type ResolvedTarget = PlatformTarget & { apiToken: string; fetch?: FetchLike };

/** A sandbox application as the platform client needs it. */
export type EmbeddedApplication = { id: string; name: string; apiToken: string };

/**
 * The embedded sandbox as the platform client sees it: a transport and the applications'
 * credentials. Wired in once at start-up (`lib/startup.ts`), so this module imports nothing
 * of `lib/sandbox` and a remote target never loads it.
 */
export type EmbeddedPlatform = {
  /** Calls the sandbox in this process, as a network peer would be called. */
  fetch: FetchLike;
  /** The default application's id (SANDBOX_APP_ID). */
  defaultAppId: string;
  /**
   * Reads an application's id, name and token; undefined when there is none. The sandbox keeps
   * them in memory and drops them on every change, in every process, so it is asked on every call.
   */
  application: (appId: string) => Promise<EmbeddedApplication | undefined>;
};

/**
 * Finds a target by id, or the current one (the session's choice) when `targetId` is
 * undefined. Wired in at start-up by `lib/targets`; without it, the default target.
 */
export type TargetResolver = (targetId: string | undefined) => Promise<ResolvedTarget>;

const embeddedKey = Symbol.for("switchboard.platform.embedded");
type EmbeddedState = { platform: EmbeddedPlatform; resolver?: TargetResolver };
type GlobalWithEmbedded = typeof globalThis & { [embeddedKey]?: EmbeddedState };

/** Called once at start-up, by every process whose target may be the embedded sandbox. */
export function connectEmbeddedPlatform(platform: EmbeddedPlatform): void {
  const store = globalThis as GlobalWithEmbedded;
  store[embeddedKey] = { platform, resolver: store[embeddedKey]?.resolver };
}

/** Called once at start-up by the console and the import worker: targets chosen in the console. */
export function connectTargetResolver(resolver: TargetResolver): void {
  const state = embeddedState();
  state.resolver = resolver;
}

function embeddedState(): EmbeddedState {
  const state = (globalThis as GlobalWithEmbedded)[embeddedKey];
  if (!state)
    throw new Error(
      "The embedded sandbox is not connected: set PLATFORM_CHAT_URL or start the console.",
    );
  return state;
}

/** The target PLATFORM_CHAT_URL fixes, if it is set. */
export function environmentTarget(): ResolvedTarget | undefined {
  const e = env();
  if (!e.PLATFORM_CHAT_URL) return undefined;
  if (!e.PLATFORM_APP_ID || !e.PLATFORM_API_TOKEN) {
    throw new Error(
      "PLATFORM_CHAT_URL is set, so PLATFORM_APP_ID and PLATFORM_API_TOKEN must be set too.",
    );
  }
  return {
    id: fixedTargetId,
    name: "Remote platform (PLATFORM_CHAT_URL)",
    kind: "remote",
    environment: "production",
    fixed: true,
    appId: e.PLATFORM_APP_ID,
    chatBaseUrl: e.PLATFORM_CHAT_URL,
    callsBaseUrl: e.PLATFORM_CALLS_URL ?? e.PLATFORM_CHAT_URL,
    apiToken: e.PLATFORM_API_TOKEN,
    maskedToken: maskToken(e.PLATFORM_API_TOKEN),
  };
}

/** The embedded sandbox's default application's id, when it is connected. */
export function defaultSandboxAppId(): string {
  return embeddedState().platform.defaultAppId;
}

/**
 * An application of the embedded sandbox (the default one when `appId` is absent), called
 * in-process: the same Request and Response objects as over HTTP, without a socket back to
 * ourselves. Undefined when there is no such application.
 */
export async function embeddedTarget(appId?: string): Promise<ResolvedTarget | undefined> {
  const state = embeddedState();
  const id = appId ?? state.platform.defaultAppId;
  const app = await state.platform.application(id);
  if (!app) return undefined;
  return {
    ...sandboxTargetOf(app, await consoleOrigin()),
    apiToken: app.apiToken,
    maskedToken: maskToken(app.apiToken),
    fetch: state.platform.fetch,
  };
}

/** An embedded sandbox application as a target, as far as it may be shown (no token). */
export function sandboxTargetOf(
  app: { id: string; name: string },
  origin: string,
): Omit<PlatformTarget, "maskedToken"> {
  const baseUrl = sandboxApplicationUrl(origin, app.id);
  return {
    id: `${sandboxTargetPrefix}${app.id}`,
    name: app.name,
    kind: "sandbox",
    environment: "sandbox",
    fixed: false,
    appId: app.id,
    chatBaseUrl: baseUrl,
    callsBaseUrl: baseUrl,
  };
}

/** PLATFORM_* when set, otherwise the sandbox's default application. */
export async function defaultTarget(): Promise<ResolvedTarget> {
  const fixed = environmentTarget();
  if (fixed) return fixed;
  const target = await embeddedTarget();
  if (!target)
    throw new Error(`The sandbox's default application "${defaultSandboxAppId()}" is missing.`);
  return target;
}

/** Resolved once per request and target (React `cache()`); outside a request, once per call. */
const resolveTarget = cache(async (targetId: string | undefined): Promise<ResolvedTarget> => {
  const resolver = (globalThis as GlobalWithEmbedded)[embeddedKey]?.resolver;
  if (resolver) return resolver(targetId);
  if (targetId === undefined) return defaultTarget();
  throw new Error("Targets cannot be chosen in this process.");
});

/** The current target (the session's choice), or the target `targetId` names. */
export async function getPlatformTarget(targetId?: string): Promise<PlatformTarget> {
  return describeTarget(await resolveTarget(targetId));
}

/**
 * A target's API token, for server code that signs as the platform would: the console's own
 * test deliveries to a remote platform's endpoint. Never returned to a page, never logged.
 */
export async function getTargetApiToken(targetId: string): Promise<string> {
  return (await resolveTarget(targetId)).apiToken;
}

/** What may be shown of a target: everything but the token and the transport. */
export function describeTarget(target: ResolvedTarget): PlatformTarget {
  const { apiToken: _apiToken, fetch: _fetch, ...shown } = target;
  return shown;
}

export async function getPlatformClient(
  overrides: Pick<PlatformClientOptions, "onResponse" | "rateLimitRetries" | "timeoutMs"> & {
    /** The target to call (an import job's); the current one when absent. */
    targetId?: string;
  } = {},
): Promise<PlatformClient> {
  const { targetId, ...options } = overrides;
  return clientForTarget(await resolveTarget(targetId), options);
}

/** A client for a resolved target (one not stored yet: the check before it is added). */
export function clientForTarget(
  target: ResolvedTarget,
  overrides: Pick<PlatformClientOptions, "onResponse" | "rateLimitRetries" | "timeoutMs"> = {},
): PlatformClient {
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
