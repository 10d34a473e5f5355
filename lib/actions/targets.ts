"use server";

import { revalidatePath } from "next/cache";
import { chooseSessionTarget } from "@/lib/auth/session";
import { runCompatibilityCheck } from "@/lib/conformance/compatibility";
import { remoteTargetSchema, targetRefSchema } from "@/lib/forms/targets";
import { targetHasWorkInProgress } from "@/lib/imports/jobs";
import { clientForTarget, describeTarget, environmentTarget } from "@/lib/platform";
import {
  candidateTarget,
  deleteRemoteTarget,
  findRemoteTargetRow,
  listTargets,
  requireTarget,
  storeRemoteTarget,
  isTargetError,
} from "@/lib/targets";
import { ActionError, adminAction } from "./safe-action";

function refuseWhenFixed(what: string) {
  const fixed = environmentTarget();
  if (fixed)
    throw new ActionError(
      `${what}: PLATFORM_CHAT_URL fixes the console's target to ${fixed.appId} at ${fixed.chatBaseUrl}. Unset it and restart to choose targets in the console.`,
    );
}

/** A target the administrator cannot use, in their words; anything else stays unexpected. */
async function existingTarget(targetId: string) {
  try {
    return await requireTarget(targetId);
  } catch (error) {
    if (isTargetError(error)) throw new ActionError(error.message);
    throw error;
  }
}

/** The target switcher: this session works on `targetId` from now on. */
export const chooseTarget = adminAction(targetRefSchema, async ({ targetId }, { session }) => {
  refuseWhenFixed("The target cannot be changed");
  const target = describeTarget(await existingTarget(targetId));
  await chooseSessionTarget(session, target.id);
  // Every page shows the current target's data.
  revalidatePath("/", "layout");
  return { target };
});

/**
 * Adds a remote platform. Its compatibility check runs first with the token given, and the
 * target is stored only if the platform answered the first, authenticated read (its webhook
 * settings); the token is then sealed (lib/targets) and never returned.
 */
export const addRemoteTarget = adminAction(remoteTargetSchema, async (input) => {
  refuseWhenFixed("No target can be added");
  const candidate = candidateTarget(input);
  const known = (await listTargets()).find(
    (target) =>
      target.kind === "remote" &&
      target.appId === candidate.appId &&
      target.chatBaseUrl === candidate.chatBaseUrl,
  );
  if (known)
    throw new ActionError(
      `"${known.name}" is this application at this address already. Remove it first to add it again.`,
      { field: "appId" },
    );
  const compatibility = await runCompatibilityCheck(
    clientForTarget(candidate, { rateLimitRetries: 1 }),
  );
  const first = compatibility[0];
  if (!first || first.outcome === "fail")
    throw new ActionError(
      `The platform did not answer the first check (${first?.operation ?? "GET webhook settings"}): ${first?.detail ?? "no answer"}. Check the address, application id and token; nothing was added.`,
    );
  await storeRemoteTarget(candidate);
  revalidatePath("/", "layout");
  return { target: describeTarget(candidate), compatibility };
});

/** Removes a remote platform from the targets; imports made on it keep their history. */
export const removeRemoteTarget = adminAction(targetRefSchema, async ({ targetId }) => {
  const row = await findRemoteTargetRow(targetId);
  if (!row) throw new ActionError("There is no such remote platform any more. Reload the page.");
  if (await targetHasWorkInProgress(targetId))
    throw new ActionError(
      `An import into "${row.name}" is planning, rehearsing, running or paused, or its migration's last stage is being sent: cancel it or let it finish first.`,
    );
  await deleteRemoteTarget(targetId);
  revalidatePath("/", "layout");
  return { targetId };
});
