"use client";

import { useMutation, useQueryClient } from "@tanstack/react-query";
import { useState } from "react";
import { Button } from "@/components/ui/button";
import { actionErrorMessage, type ActionResult } from "@/lib/actions/action-result";
import { controlImportJob, planImportJob, rehearseImportJob } from "@/lib/actions/imports";
import type { JobProgress } from "@/lib/imports/jobs/report";
import { importJobKeys } from "./job-queries";

export type JobControlsProps = { progress: JobProgress };

type Command = "run" | "pause" | "resume" | "cancel" | "plan" | "rehearse";

/** The buttons that make sense in the job's state; each answer refreshes the page's data. */
export function JobControls({ progress }: JobControlsProps) {
  const queryClient = useQueryClient();
  const [error, setError] = useState<string | null>(null);
  const jobId = progress.id;
  const mutation = useMutation({
    mutationFn: async (command: Command): Promise<ActionResult<unknown>> => {
      if (command === "plan") return planImportJob({ jobId });
      if (command === "rehearse") return rehearseImportJob({ jobId });
      return controlImportJob({ jobId, command });
    },
    onSuccess: (result) => setError(actionErrorMessage(result)),
    onError: () => setError("The console could not be reached. Try again."),
    onSettled: () => queryClient.invalidateQueries({ queryKey: importJobKeys.all(jobId) }),
  });
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
