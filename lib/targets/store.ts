import "server-only";
import { randomUUID } from "node:crypto";
import { asc, eq } from "drizzle-orm";
import { getDb } from "@/lib/db/client";
import { platformTargets } from "@/lib/db/schema";
import { env } from "@/lib/env";
import type { ResolvedTarget } from "@/lib/platform";
import { isEncrypted, openSecret, sealSecret, SecretBoxError } from "./secret-box";

export const remoteTargetPrefix = "remote:";

/**
 * How a remote target's token is shown: not even its last characters (the fixed target's and
 * the sandbox's show theirs), since no part of a token added here leaves the server.
 */
const hiddenToken = "••••••••";

type RemoteTargetRow = typeof platformTargets.$inferSelect;

/** A remote target's fields, before it is stored. */
export type NewRemoteTarget = {
  name: string;
  appId: string;
  chatBaseUrl: string;
  callsBaseUrl?: string;
  apiToken: string;
  environment: "production" | "sandbox";
};

/** A remote target as it would be called, before it is stored (the check when it is added). */
export function candidateTarget(input: NewRemoteTarget): ResolvedTarget {
  return {
    id: `${remoteTargetPrefix}${randomUUID()}`,
    name: input.name,
    kind: "remote",
    environment: input.environment,
    fixed: false,
    appId: input.appId,
    chatBaseUrl: input.chatBaseUrl,
    callsBaseUrl: input.callsBaseUrl ?? input.chatBaseUrl,
    apiToken: input.apiToken,
    maskedToken: hiddenToken,
  };
}

export async function storeRemoteTarget(target: ResolvedTarget): Promise<void> {
  try {
    await (await getDb()).insert(platformTargets).values({
      id: target.id,
      name: target.name,
      appId: target.appId,
      chatBaseUrl: target.chatBaseUrl,
      callsBaseUrl: target.callsBaseUrl,
      sealedApiToken: sealSecret(target.apiToken, env().SWITCHBOARD_SECRET_KEY),
      environment: target.environment,
    });
  } catch (error) {
    // A failed query's error names its parameters, the sealed (or, with no key, merely
    // encoded) token among them: only the database's own reason goes on, to a log or a page.
    const cause = error instanceof Error && error.cause instanceof Error ? error.cause : null;
    throw new Error(
      `The target could not be saved: ${cause?.message ?? "the database refused it"}.`,
    );
  }
}

export async function deleteRemoteTarget(targetId: string): Promise<boolean> {
  const deleted = await (
    await getDb()
  )
    .delete(platformTargets)
    .where(eq(platformTargets.id, targetId))
    .returning({ id: platformTargets.id });
  return deleted.length > 0;
}

export async function listRemoteTargetRows(): Promise<RemoteTargetRow[]> {
  return (await getDb())
    .select()
    .from(platformTargets)
    .orderBy(asc(platformTargets.createdAt), asc(platformTargets.id));
}

export async function findRemoteTargetRow(targetId: string): Promise<RemoteTargetRow | undefined> {
  const [row] = await (
    await getDb()
  )
    .select()
    .from(platformTargets)
    .where(eq(platformTargets.id, targetId))
    .limit(1);
  return row;
}

/** A stored remote target, with its token opened; throws a TargetError when it cannot be. */
export function openRemoteTarget(row: RemoteTargetRow): ResolvedTarget {
  let apiToken: string;
  try {
    apiToken = openSecret(row.sealedApiToken, env().SWITCHBOARD_SECRET_KEY);
  } catch (error) {
    if (!(error instanceof SecretBoxError)) throw error;
    throw new TargetError(
      `The API token of "${row.name}" cannot be read: ${error.message} Set the key it was stored with, or delete the target and add it again.`,
    );
  }
  return { ...describeRemoteRow(row), maskedToken: hiddenToken, apiToken };
}

/** What may be shown of a stored remote target without opening its token. */
export function describeRemoteRow(row: RemoteTargetRow) {
  return {
    id: row.id,
    name: row.name,
    kind: "remote" as const,
    environment: row.environment,
    fixed: false,
    appId: row.appId,
    chatBaseUrl: row.chatBaseUrl,
    callsBaseUrl: row.callsBaseUrl,
    encrypted: isEncrypted(row.sealedApiToken),
  };
}

/** A target that cannot be used, in the administrator's words. */
export class TargetError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "TargetError";
  }
}

/**
 * Whether `error` is a TargetError. By name, not `instanceof`: the target resolver is wired in
 * at start-up (lib/startup.ts), outside the console's bundle, so its TargetError is another
 * class than the one pages and actions import.
 */
export function isTargetError(error: unknown): error is TargetError {
  return error instanceof Error && error.name === "TargetError";
}
