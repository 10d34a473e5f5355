import { earlierChanges, type JobPlan } from "@/lib/imports/types";
import type { FlowResource } from "./rows";

const n = (value: number) => value.toLocaleString("en-US");

export const deltaLabels: Record<FlowResource, string> = {
  users: "People",
  group_channels: "Conversations",
  messages: "Messages",
};

/**
 * What an export adds to the platform, a line per import, once each is planned: the delta at
 * cutover (issue 24, item 3). A first export adds everything; a newer one of the same community
 * only what is new, and the messages edited since, which are updated ("2 new, 1 changed"),
 * since its ids and dedup ids are the source's own. `null`: that import is still being planned.
 */
export function exportDelta(
  plans: Partial<Record<FlowResource, JobPlan | null>>,
): Array<{ resource: FlowResource; words: string }> {
  return (Object.entries(plans) as Array<[FlowResource, JobPlan | null]>).map(
    ([resource, plan]) => {
      if (!plan) return { resource, words: "being planned…" };
      const parts: string[] = [];
      const earlier = plan.messages?.earlier;
      const sentBefore = earlier?.imported ?? 0;
      const { edited, keptAsSent } = earlierChanges(earlier);
      const onPlatform = plan.existing - sentBefore;
      if (onPlatform > 0) parts.push(`${n(onPlatform)} already on the platform`);
      if (earlier && sentBefore > 0) {
        parts.push(`${n(sentBefore)} sent by an earlier import`);
        if (keptAsSent > 0)
          parts.push(
            `${n(keptAsSent)} changed in what the platform cannot update (sender, kind or file), kept as first sent`,
          );
        if (earlier.newReactions > 0)
          parts.push(`${n(earlier.newReactions)} with new reactions, added`);
      }
      if (plan.invalid > 0) parts.push(`${n(plan.invalid)} left out (see the plan)`);
      // The messages an earlier import sent that this export changed: updated to its version.
      const added = `${n(plan.toCreate)} new${sentBefore > 0 ? `, ${n(edited)} changed` : ""}`;
      return { resource, words: parts.length > 0 ? `${added} (${parts.join("; ")})` : added };
    },
  );
}
