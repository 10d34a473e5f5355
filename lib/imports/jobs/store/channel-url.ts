import { createHash } from "node:crypto";
import type { ChannelResource } from "@/lib/imports/types";
import { channelUrlSchema } from "@/lib/schemas/channels";

/**
 * The channel_url a channel without one in the file gets: its source id when that is a valid
 * channel URL already (`general`, `C024BE91L`: the old system's name stays recognisable), else
 * a stable hash of it, so the plan, every retry and every rerun of the same file name the same
 * channel and a retried request can never create a second one. 4–100 letters, digits, `_`, `-` (4.4).
 */
export function deriveChannelUrl(resource: ChannelResource, sourceId: string): string {
  if (channelUrlSchema.safeParse(sourceId).success) return sourceId;
  const digest = createHash("sha256").update(`${resource}\u0000${sourceId}`).digest("hex");
  return `imp_${digest.slice(0, 40)}`;
}
