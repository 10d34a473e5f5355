import { Badge, type BadgeProps } from "@/components/ui/badge";
import type { JobStatus } from "@/lib/imports/types";

const tones: Record<JobStatus, NonNullable<BadgeProps["tone"]>> = {
  draft: "neutral",
  planning: "accent",
  planned: "accent",
  running: "accent",
  paused: "warning",
  cancelling: "warning",
  cancelled: "neutral",
  completed: "success",
};

const labels: Record<JobStatus, string> = {
  draft: "Draft",
  planning: "Planning",
  planned: "Planned",
  running: "Running",
  paused: "Paused",
  cancelling: "Cancelling",
  cancelled: "Cancelled",
  completed: "Completed",
};

export type JobStatusBadgeProps = { status: string };

export function JobStatusBadge({ status }: JobStatusBadgeProps) {
  const known = status in labels ? (status as JobStatus) : undefined;
  return <Badge tone={known ? tones[known] : "neutral"}>{known ? labels[known] : status}</Badge>;
}
