"use client";

import { Button } from "@/components/ui/button";
import type { JobProgress } from "@/lib/imports/jobs/report";
import { useJobCommand, type JobCommand as Command } from "./job-queries";

export type JobControlsProps = { progress: JobProgress };

/** The buttons that make sense in the job's state; each answer refreshes the page's data. */
export function JobControls({ progress }: JobControlsProps) {
  const mutation = useJobCommand(progress.id);
  const { error } = mutation;
  const pending = (command: Command) => mutation.isPending && mutation.variables === command;
  const busy = mutation.isPending;
  const rehearsing = progress.rehearsal?.state === "running";
  const button = (command: Command, label: string, variant: "primary" | "secondary" | "danger" = "secondary") => (
    <Button variant={variant} pending={pending(command)} disabled={busy} onClick={() => mutation.mutate(command)}>
      {label}
    </Button>
  );

  return (
    <div className="space-y-2">
      <div className="flex flex-wrap gap-2">
        {progress.status === "planned" && (
          <>
            {!rehearsing && button("run", "Run import", "primary")}
            {!rehearsing && button("rehearse", "Rehearse in a scratch application")}
            {!rehearsing && button("plan", "Plan again")}
          </>
        )}
        {progress.status === "draft" && progress.counts.total === progress.totalRows && button("plan", "Plan again", "primary")}
        {progress.status === "running" && button("pause", "Pause")}
        {progress.status === "paused" && button("resume", "Resume", "primary")}
        {["planning", "planned", "running", "paused"].includes(progress.status) && button("cancel", "Cancel import", "danger")}
      </div>
      {error && (
        <p role="alert" className="text-sm text-red-700">
          {error}
        </p>
      )}
    </div>
  );
}
