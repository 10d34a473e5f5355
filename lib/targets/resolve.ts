import "server-only";
import { getDb } from "@/lib/db/client";
import { consoleOrigin } from "@/lib/request-origin";
import {
  defaultTarget,
  embeddedTarget,
  environmentTarget,
  sandboxTargetOf,
  sandboxTargetPrefix,
  type PlatformTarget,
  type ResolvedTarget,
} from "@/lib/platform";
import { listApplications } from "@/lib/sandbox";
import {
  describeRemoteRow,
  findRemoteTargetRow,
  listRemoteTargetRows,
  openRemoteTarget,
  isTargetError,
  remoteTargetPrefix,
  TargetError,
} from "./store";

/** What an import job with no target recorded (made before targets existed) acts on. */
export const defaultTargetKey = "default";

/**
 * The target an id names: `default`, `env`, `sandbox:<application id>` or `remote:<uuid>`.
 * Throws a TargetError naming what is missing.
 */
export async function requireTarget(targetId: string): Promise<ResolvedTarget> {
  const fixed = environmentTarget();
  if (targetId === defaultTargetKey) return defaultTarget();
  if (fixed && targetId === fixed.id) return fixed;
  if (targetId.startsWith(sandboxTargetPrefix)) {
    const appId = targetId.slice(sandboxTargetPrefix.length);
    const target = await embeddedTarget(appId);
    if (!target) throw new TargetError(`The sandbox application "${appId}" no longer exists.`);
    return target;
  }
  if (targetId.startsWith(remoteTargetPrefix)) {
    const row = await findRemoteTargetRow(targetId);
    if (!row) throw new TargetError("That remote platform has been removed from Settings.");
    return openRemoteTarget(row);
  }
  throw new TargetError(
    fixed === undefined && targetId === "env"
      ? "PLATFORM_CHAT_URL is no longer set, so the platform it named is not a target any more."
      : `There is no target "${targetId}".`,
  );
}

/**
 * The target the console works on: PLATFORM_* when they fix one; otherwise the session's
 * choice, or the sandbox's default application when there is none, it was removed, or its
 * token cannot be read (SWITCHBOARD_SECRET_KEY changed): every page then names the default
 * one, and choosing the other again says why it cannot be used.
 */
export async function currentTarget(sessionChoice: string | null): Promise<ResolvedTarget> {
  const fixed = environmentTarget();
  if (fixed) return fixed;
  if (sessionChoice && (await targetExists(sessionChoice))) {
    try {
      return await requireTarget(sessionChoice);
    } catch (error) {
      if (!isTargetError(error)) throw error;
    }
  }
  return defaultTarget();
}

async function targetExists(targetId: string): Promise<boolean> {
  if (targetId.startsWith(remoteTargetPrefix))
    return (await findRemoteTargetRow(targetId)) !== undefined;
  if (targetId.startsWith(sandboxTargetPrefix))
    return (await embeddedTarget(targetId.slice(sandboxTargetPrefix.length))) !== undefined;
  return false;
}

/** One entry of the target switcher and of Settings' list: never a token. */
export type TargetOption = Omit<PlatformTarget, "maskedToken"> & {
  /** Remote targets: whether the token is stored encrypted (SWITCHBOARD_SECRET_KEY). */
  encrypted?: boolean;
};

/**
 * The targets the console may work on: the fixed one alone when PLATFORM_* set it; otherwise
 * the embedded sandbox's applications (the rehearsals' own scratch ones aside, which live
 * only as long as their rehearsal) and the remote platforms added in Settings.
 */
export async function listTargets(): Promise<TargetOption[]> {
  const fixed = environmentTarget();
  if (fixed) {
    const { apiToken: _apiToken, maskedToken: _masked, fetch: _fetch, ...shown } = fixed;
    return [shown];
  }
  const origin = await consoleOrigin();
  const applications = (await listApplications(await getDb())).filter(
    (app) => app.isDefault || !app.id.startsWith("rehearsal-"),
  );
  const sandboxes: TargetOption[] = applications.map((app) => sandboxTargetOf(app, origin));
  const remotes = (await listRemoteTargetRows()).map(describeRemoteRow);
  return [...sandboxes, ...remotes];
}
