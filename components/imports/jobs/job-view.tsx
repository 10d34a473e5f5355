"use client";

import { useQuery } from "@tanstack/react-query";
import type { ReactNode } from "react";
import { Card } from "@/components/ui/card";
import type { JobProgress } from "@/lib/imports/jobs";
import { JobControls, type RunTarget } from "./job-controls";
import { JobProgressPanel } from "./job-progress";
import { jobProgressQuery } from "./job-queries";
import { JobStatusBadge } from "./job-status-badge";
import { PlanInProgress, PlanSummary, RehearsalSummary } from "./plan-summary";
import { ReportTable } from "./report-table";
import { RowRequestViewer } from "./row-request-viewer";
import { VerifyCard } from "./verify-card";

/** `target`: where Run sends the rows, for the confirmation; null: it is gone, nothing is sent. */
export type JobViewProps = { initialProgress: JobProgress; target: RunTarget | null };

/** The job page: plan, rehearsal, controls, live progress and the per-row report. */
export function JobView({ initialProgress, target }: JobViewProps) {
  const { data: progress = initialProgress, error } = useQuery(
    jobProgressQuery(initialProgress.id, initialProgress),
  );
  const { counts } = progress;
  const version = `${progress.status}:${counts.created}:${counts.existed}:${counts.failed}:${counts.invalid}:${counts.followUpsFailed}:${counts.threadsFailed}`;
  const started = progress.startedAt !== null;
  const hasFailures = progress.failuresCsvRows > 0;

  return (
    <div className="space-y-6">
      <div className="flex flex-wrap items-center justify-between gap-3">
        <div className="flex items-center gap-2 text-sm text-slate-700">
          Status: <JobStatusBadge status={progress.status} />
        </div>
        <JobControls progress={progress} target={target} />
      </div>
      {error && (
        <p role="alert" className="text-sm text-red-700">
          Progress could not be refreshed: {error.message}
        </p>
      )}
      <PlanCard progress={progress} />
      {progress.rehearsal && (
        <Card
          title="Rehearsal"
          description="The whole plan run against the embedded sandbox first."
        >
          <RehearsalSummary
            rehearsal={progress.rehearsal}
            firstRow={progress.firstRow}
            resource={progress.resource}
            progress={progress.rehearsalProgress}
          />
        </Card>
      )}
      {started && (
        <Card title="Progress">
          <JobProgressPanel progress={progress} />
        </Card>
      )}
      <VerifyCard progress={progress} />
      <Card
        title="Report"
        description="Every row's outcome, with the platform's code and message when it refused."
        actions={
          hasFailures ? (
            <a
              href={`/imports/${progress.id}/failures`}
              download
              className="text-sm font-medium text-indigo-700 hover:underline"
            >
              Download failures (CSV)
            </a>
          ) : undefined
        }
      >
        <ReportTable jobId={progress.id} version={version} />
      </Card>
      <Card title="Requests" description="The exact request a row sends, and its follow-up calls.">
        <RowRequestViewer
          jobId={progress.id}
          totalRows={progress.totalRows}
          firstRow={progress.firstRow}
        />
      </Card>
    </div>
  );
}

/** The plan, the plan being made, or why there is none. */
export function PlanCard({ progress }: { progress: JobProgress }) {
  const { description, body } = planState(progress);
  return (
    <Card title="Plan" description={description}>
      {body}
    </Card>
  );
}

export function planState(progress: JobProgress): { description: string; body?: ReactNode } {
  if (progress.status === "planning") {
    return {
      description: "The dry run: asking the platform what already exists. Nothing is sent for it.",
      body: <PlanInProgress progress={progress.planProgress} resource={progress.resource} />,
    };
  }
  if (progress.plan) {
    return {
      // Once the job has run, rows have been sent: only the dry run itself sent nothing.
      description:
        progress.startedAt === null
          ? "What the dry run found on the platform. Nothing has been sent for it."
          : "What the dry run found on the platform before the run.",
      body: <PlanSummary plan={progress.plan} resource={progress.resource} />,
    };
  }
  if (progress.status === "draft" && progress.error) {
    return {
      description: "There is no plan yet.",
      body: (
        <p role="alert" className="text-sm text-red-700">
          {progress.error} Check the platform on the Settings page, then plan again.
        </p>
      ),
    };
  }
  return {
    description:
      progress.status === "draft"
        ? "The upload has not finished, so there is no plan yet."
        : "This import was stopped before it was planned.",
  };
}
