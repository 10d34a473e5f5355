import { Badge, type BadgeProps } from "@/components/ui/badge";

const tones: Record<string, NonNullable<BadgeProps["tone"]>> = {
  draft: "neutral",
  planned: "accent",
  running: "accent",
  paused: "warning",
  cancelling: "warning",
  cancelled: "neutral",
  completed: "success",
};

const labels: Record<string, string> = {
  draft: "Uploading",
  planned: "Planned",
  running: "Running",
  paused: "Paused",
  cancelling: "Cancelling",
  cancelled: "Cancelled",
  completed: "Completed",
};

export type JobStatusBadgeProps = { status: string };

export function JobStatusBadge({ status }: JobStatusBadgeProps) {
  return <Badge tone={tones[status] ?? "neutral"}>{labels[status] ?? status}</Badge>;
}
