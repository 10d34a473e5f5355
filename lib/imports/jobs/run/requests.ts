import type { FinalAction, FollowUps, ImportResource } from "@/lib/imports/types";

/** An HTTP request exactly as the job will send it, for the administrator to inspect. */
export type PlannedRequest = {
  method: "POST" | "PUT";
  path: string;
  body: Record<string, unknown>;
};

const segment = encodeURIComponent;

/** Ids per invitation request (the interface's limit). */
export const INVITE_BATCH = 100;

/** `key` is the channel a message goes to; a message travels with up to 99 others of its channel. */
export function creationRequest(
  resource: ImportResource,
  body: Record<string, unknown>,
  key = "",
): PlannedRequest {
  if (resource === "messages")
    return { method: "POST", path: `/v3/migration/${segment(key)}`, body: { messages: [body] } };
  return { method: "POST", path: `/v3/${resource}`, body };
}

/**
 * The calls right after creation, in the order they are made (issue 4, item 7). A deactivation
 * or a freeze is not among them: it waits for the migration's last stage (`finalRequests`).
 */
export function followUpRequests(
  resource: ImportResource,
  key: string,
  followUps: FollowUps | null,
): PlannedRequest[] {
  if (!followUps) return [];
  const requests: PlannedRequest[] = [];
  if (resource === "group_channels" && followUps.invite) {
    for (let start = 0; start < followUps.invite.length; start += INVITE_BATCH) {
      const user_ids = followUps.invite.slice(start, start + INVITE_BATCH);
      requests.push({
        method: "POST",
        path: `/v3/group_channels/${segment(key)}/invite`,
        body: { user_ids },
      });
    }
  }
  if (resource === "users" && followUps.metadata && Object.keys(followUps.metadata).length > 0) {
    requests.push({
      method: "PUT",
      path: `/v3/users/${segment(key)}/metadata`,
      body: { metadata: followUps.metadata },
    });
  }
  return requests;
}

/**
 * The migration's last stage's request for a user or a channel. A user keeps the channels
 * they were in (`leave_all_when_deactivated: false`): the history keeps its members.
 */
export function finalRequest(
  action: FinalAction,
  resource: Exclude<ImportResource, "messages">,
  key: string,
): PlannedRequest {
  return action === "deactivate"
    ? {
        method: "PUT",
        path: `/v3/users/${segment(key)}`,
        body: { is_active: false, leave_all_when_deactivated: false },
      }
    : { method: "PUT", path: `/v3/${resource}/${segment(key)}/freeze`, body: { freeze: true } };
}

/** The last stage's requests the file asks of a row (a deactivation, a freeze). */
export function finalRequestsOfRow(
  resource: ImportResource,
  key: string,
  followUps: FollowUps | null,
): PlannedRequest[] {
  if (resource === "messages" || !followUps) return [];
  if (resource === "users")
    return followUps.deactivate ? [finalRequest("deactivate", resource, key)] : [];
  return followUps.freeze ? [finalRequest("freeze", resource, key)] : [];
}

export function hasFollowUps(
  resource: ImportResource,
  followUps: FollowUps | null | undefined,
): boolean {
  return followUpRequests(resource, "x", followUps ?? null).length > 0;
}
