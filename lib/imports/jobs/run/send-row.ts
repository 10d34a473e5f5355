import "server-only";
import type { FollowUps, ImportResource } from "@/lib/imports/types";
import { isPlatformError, PlatformError, type PlatformClient } from "@/lib/platform";
import { platformRetries } from "@/lib/platform/retries";
import { retryDelay, withRetries } from "@/lib/retry";
import type { Pacer } from "./pacer";
import { followUpRequests } from "./requests";
import { gaveUpMessage, rowRetry, type TryCounts } from "./row-retry";

/** What sending one row's creation came to. */
export type CreationOutcome =
  | { kind: "done"; state: "created" | "existed"; message: string | null }
  | { kind: "retry"; delayMs: number; code: number | null; message: string; counts: TryCounts }
  | { kind: "failed"; code: number | null; message: string; counts?: TryCounts };

/** One pacer per rate-limit class the import uses; messages have a class of their own. */
export type Pacers = { read: Pacer; write: Pacer; migration: Pacer };

export type CreationInput = {
  resource: ImportResource;
  key: string;
  body: Record<string, unknown>;
  /** Creation requests sent for this row before this one (whose outcome we may not know). */
  earlierAttempts: number;
  /** This attempt's number; at `maxAttempts` a transient failure is final. */
  attempt: number;
  maxAttempts: number;
  /** The row's 429s so far, and how many of them are free (`./row-retry.ts`). */
  rateLimitedTries: number;
  freeRateLimitedTries?: number;
};

/**
 * Sends one creation. A 400202 (already exists) is checked with a GET and counted as done:
 * `created` when an earlier attempt of ours may have made it (it timed out or was cut off
 * after the platform did the work), `existed` when this was our first request, so someone
 * else made it after the plan looked.
 */
export async function sendCreation(
  client: PlatformClient,
  pacers: Pacers,
  input: CreationInput,
): Promise<CreationOutcome> {
  try {
    await pacers.write.acquire();
    const created = (await createResource(client, input.resource, input.body)) as {
      channel_url?: string;
    };
    if (
      input.resource === "group_channels" &&
      created.channel_url &&
      created.channel_url !== input.key
    ) {
      return {
        kind: "done",
        state: "existed",
        message: `A distinct channel with the same members already existed (${created.channel_url}); the platform reused it.`,
      };
    }
    return { kind: "done", state: "created", message: null };
  } catch (error) {
    if (isPlatformError(error, 400202)) return confirmExisting(client, pacers, input, error);
    if (isPlatformError(error)) {
      const next = rowRetry(input, input, error);
      if (next.retry) {
        return {
          kind: "retry",
          delayMs: next.delayMs,
          code: error.code,
          message: error.message,
          counts: next.counts,
        };
      }
      return {
        kind: "failed",
        code: error.code,
        message: next.reason === "permanent" ? error.message : gaveUpMessage(next, error.message),
        counts: next.counts,
      };
    }
    return {
      kind: "failed",
      code: null,
      message: error instanceof Error ? error.message : String(error),
    };
  }
}

async function confirmExisting(
  client: PlatformClient,
  pacers: Pacers,
  input: CreationInput,
  conflict: PlatformError,
): Promise<CreationOutcome> {
  try {
    await withRetries(async () => {
      await pacers.read.acquire();
      await getResource(client, input.resource, input.key);
    }, platformRetries());
    return input.earlierAttempts > 0
      ? {
          kind: "done",
          state: "created",
          message: "Created by an earlier attempt whose answer was lost.",
        }
      : {
          kind: "done",
          state: "existed",
          message: "Created by someone else after the plan: skipped, nothing overwritten.",
        };
  } catch (error) {
    if (isPlatformError(error, 400201))
      return { kind: "failed", code: conflict.code, message: conflict.message };
    // Unsure whether it exists: try the whole row again later, while the row has tries left.
    const reason = error instanceof Error ? error.message : String(error);
    if (input.attempt >= input.maxAttempts) {
      return {
        kind: "failed",
        code: conflict.code,
        message: `Gave up after ${input.attempt} tries: the platform said it exists (${conflict.message}), but checking failed: ${reason}`,
      };
    }
    const delayMs = retryDelay(platformRetries(input.maxAttempts), input.attempt);
    return {
      kind: "retry",
      delayMs,
      code: conflict.code,
      message: conflict.message,
      counts: {},
    };
  }
}

export type FollowUpOutcome = { ok: true } | { ok: false; code: number | null; message: string };

/** Deactivation, freeze, metadata, in that order; all idempotent, so a rerun is harmless. */
export async function sendFollowUps(
  client: PlatformClient,
  pacers: Pacers,
  resource: ImportResource,
  key: string,
  followUps: FollowUps | null,
  maxAttempts: number,
): Promise<FollowUpOutcome> {
  for (const request of followUpRequests(resource, key, followUps)) {
    try {
      await withRetries(async () => {
        await pacers.write.acquire();
        await client.request("chat", request.method, request.path, { json: request.body });
      }, platformRetries(maxAttempts));
    } catch (error) {
      const code = isPlatformError(error) ? error.code : null;
      const reason = error instanceof Error ? error.message : String(error);
      return {
        ok: false,
        code,
        message: `Created, but ${request.method} ${request.path} failed: ${reason}`,
      };
    }
  }
  return { ok: true };
}

function createResource(
  client: PlatformClient,
  resource: ImportResource,
  body: Record<string, unknown>,
) {
  if (resource === "users")
    return client.users.create(body as Parameters<PlatformClient["users"]["create"]>[0]);
  if (resource === "open_channels") return client.openChannels.create(body);
  return client.groupChannels.create(body);
}

function getResource(
  client: PlatformClient,
  resource: ImportResource,
  key: string,
): Promise<unknown> {
  if (resource === "users") return client.users.get(key);
  if (resource === "open_channels") return client.openChannels.get(key);
  return client.groupChannels.get(key);
}
