import type { PlatformClient } from "@/lib/platform";
import type { Message, UpdateMessageBody } from "@/lib/platform/types";
import type { Pacer } from "../run/pacer";

/**
 * An edit a newer export carries (docs/imports-jobs.md, "A newer export: only what is new"):
 * the fields of a message that the platform's update API changes and an edit in the source
 * may change. The sender, the kind of message and a file's URL, name, type and size are not
 * among them: the update API changes none of those.
 */
export const EDITABLE_FIELDS = ["message", "mentioned_user_ids", "custom_type", "data"] as const;

export type MessageEdit = Partial<{
  message: string;
  mentioned_user_ids: string[];
  custom_type: string;
  data: string;
}>;

/**
 * The values a row's body gives the fields an edit changed (`fields`, the keys of the row's
 * `edit`). A field the body leaves out is what the platform shows for it: "" or no mentions.
 */
export function editedValues(
  body: Record<string, unknown>,
  fields: readonly string[],
): MessageEdit {
  const values: MessageEdit = {};
  for (const field of fields) {
    if (field === "mentioned_user_ids") {
      const ids = body.mentioned_user_ids;
      values.mentioned_user_ids = Array.isArray(ids) ? ids.map(String) : [];
    } else if (field === "message" || field === "custom_type" || field === "data") {
      const value = body[field];
      values[field] = typeof value === "string" ? value : "";
    }
  }
  return values;
}

/**
 * What of `wanted` the platform's message does not hold yet, as the update's body (with the
 * message's own type, which the update API asks for); null when it holds it all, so an update
 * made once (or by a worker that died before writing it down) is not made again.
 */
export function updateStillToMake(wanted: MessageEdit, current: Message): UpdateMessageBody | null {
  const update: MessageEdit = {};
  if (wanted.message !== undefined && wanted.message !== current.message)
    update.message = wanted.message;
  if (wanted.custom_type !== undefined && wanted.custom_type !== current.custom_type)
    update.custom_type = wanted.custom_type;
  if (wanted.data !== undefined && wanted.data !== current.data) update.data = wanted.data;
  if (wanted.mentioned_user_ids !== undefined) {
    const sorted = (ids: readonly string[]) => [...new Set(ids)].sort().join("\u0000");
    if (
      sorted(wanted.mentioned_user_ids) !==
      sorted(current.mentioned_users.map((user) => user.user_id))
    )
      update.mentioned_user_ids = wanted.mentioned_user_ids;
  }
  return Object.keys(update).length === 0 ? null : { message_type: current.type, ...update };
}

/**
 * Brings the platform's message `messageId` to the newer version: read first (read pace), then
 * only what differs is sent (write pace). Returns the fields updated, none when it matched.
 * The run's replies stage and the rehearsal both update through here.
 */
export async function updateToVersion(
  { client, pacers }: { client: PlatformClient; pacers: { read: Pacer; write: Pacer } },
  channelUrl: string,
  kind: "open_channels" | "group_channels",
  messageId: number,
  wanted: MessageEdit,
): Promise<string[]> {
  await pacers.read.acquire();
  const current = await client.messages.get(kind, channelUrl, messageId);
  const update = updateStillToMake(wanted, current);
  if (!update) return [];
  await pacers.write.acquire();
  await client.messages.update(kind, channelUrl, messageId, update);
  return Object.keys(update).filter((field) => field !== "message_type");
}
