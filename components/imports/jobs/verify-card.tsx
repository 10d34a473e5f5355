"use client";

import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useVirtualizer } from "@tanstack/react-virtual";
import { useRef, useState } from "react";
import { Button } from "@/components/ui/button";
import { Card } from "@/components/ui/card";
import { ProgressBar } from "@/components/ui/progress-bar";
import { actionErrorMessage, type ActionResult } from "@/lib/actions/action-result";
import { cancelImportVerification, verifyImportJob } from "@/lib/actions/imports";
import type { JobProgress, VerificationFindingRow, VerificationSummary } from "@/lib/imports/jobs";
import type { VerificationScope } from "@/lib/imports/types";
import { findingsQuery, importJobKeys, SHOWN_FINDINGS, verificationsQuery } from "./job-queries";

export type VerifyCardProps = { progress: JobProgress };

const n = (value: number) => value.toLocaleString("en");
const scopeTitles: Record<VerificationScope, string> = {
  run: "Verify of the run",
  rehearsal: "Verify of the rehearsal",
};

/**
 * Verify: after a run (or a rehearsal, in its scratch application), what the target holds is
 * compared with what the import holds, in the background and reading only; the outcome is
 * counted and each finding listed with its row and reason.
 */
export function VerifyCard({ progress }: VerifyCardProps) {
  const jobId = progress.id;
  const queryClient = useQueryClient();
  const { data: verifications = {}, error: readError } = useQuery(verificationsQuery(jobId));
  const [error, setError] = useState<string | null>(null);
  const command = useMutation({
    mutationFn: (what: VerificationScope | "cancel"): Promise<ActionResult<unknown>> =>
      what === "cancel"
        ? cancelImportVerification({ jobId })
        : verifyImportJob({ jobId, scope: what }),
    onSuccess: (result) => setError(actionErrorMessage(result)),
    onError: () => setError("The console could not be reached. Try again."),
    onSettled: () =>
      queryClient.invalidateQueries({ queryKey: importJobKeys.verifications(jobId) }),
  });
  const running = Object.values(verifications).some((v) => v?.state === "running");
  const sending = progress.status === "running" || progress.status === "cancelling";
  const canVerifyRun = progress.startedAt !== null && !sending;
  const canVerifyRehearsal =
    progress.startedAt === null &&
    progress.rehearsal?.state === "done" &&
    progress.rehearsal.appId !== undefined;
  const shown = (["run", "rehearsal"] as const).filter((scope) => verifications[scope]);
  if (!canVerifyRun && !canVerifyRehearsal && shown.length === 0) return null;

  const button = (what: VerificationScope | "cancel", label: string) => (
    <Button
      variant={what === "cancel" ? "secondary" : "primary"}
      size="sm"
      pending={command.isPending && command.variables === what}
      disabled={command.isPending}
      onClick={() => command.mutate(what)}
    >
      {label}
    </Button>
  );

  return (
    <Card
      title="Verify"
      description="What the target holds now, compared with what this import holds: read only, paced under the platform's read limit."
      actions={
        <div className="flex flex-wrap gap-2">
          {running
            ? button("cancel", "Cancel Verify")
            : [
                canVerifyRun && <span key="run">{button("run", "Verify")}</span>,
                canVerifyRehearsal && (
                  <span key="rehearsal">{button("rehearsal", "Verify the rehearsal")}</span>
                ),
              ]}
        </div>
      }
    >
      <div className="space-y-6">
        {(error ?? readError) && (
          <p role="alert" className="text-sm text-red-700">
            {error ?? `Verify could not be read: ${readError!.message}`}
          </p>
        )}
        {shown.length === 0 && (
          <p className="text-sm text-slate-600">
            {canVerifyRun
              ? "Not verified yet."
              : "Not verified yet: Verify reads the rehearsal's scratch application."}
          </p>
        )}
        {shown.map((scope) => (
          <VerificationView key={scope} jobId={jobId} verification={verifications[scope]!} />
        ))}
      </div>
    </Card>
  );
}

const stateWords: Record<VerificationSummary["state"], string> = {
  running: "Verifying",
  done: "Verified",
  failed: "Failed",
  cancelled: "Cancelled",
};

function VerificationView({
  jobId,
  verification,
}: {
  jobId: string;
  verification: VerificationSummary;
}) {
  const { counts } = verification;
  const differences = counts.missing + counts.extra + counts.different;
  const when = new Date(verification.finishedAt ?? verification.createdAt).toLocaleString("en");
  return (
    <section
      aria-label={scopeTitles[verification.scope]}
      data-testid={`verification-${verification.scope}`}
      className="space-y-3"
    >
      <div className="flex flex-wrap items-baseline justify-between gap-2">
        <h3 className="text-sm font-semibold text-slate-900">
          {scopeTitles[verification.scope]}: {stateWords[verification.state]}
          {verification.state !== "running" && ` · ${when}`}
        </h3>
        <a
          href={`/imports/${jobId}/verification/${verification.id}/csv`}
          download
          className="text-sm font-medium text-indigo-700 hover:underline"
        >
          Download report (CSV)
        </a>
      </div>
      {verification.state === "running" && (
        <ProgressBar label="Checked" done={verification.done} total={verification.total} />
      )}
      {verification.error && (
        <p role="alert" className="text-sm text-red-700">
          {verification.error}
        </p>
      )}
      <p className="text-sm text-slate-700" data-testid="verification-counts">
        {n(counts.matched)} matched · {n(counts.missing)} missing · {n(counts.extra)} extra ·{" "}
        {n(counts.different)} different
        {verification.sample !== null &&
          ` (a sample of ${n(verification.sample)} messages per channel)`}
      </p>
      {differences > 0 && (
        <FindingsTable
          jobId={jobId}
          verificationId={verification.id}
          version={`${verification.state}:${verification.done}:${differences}`}
          total={differences}
        />
      )}
    </section>
  );
}

const ROW_HEIGHT = 44;
const kindLabels: Record<VerificationFindingRow["kind"], string> = {
  missing: "missing",
  extra: "extra",
  different: "different",
};

/** The findings, virtualised: a long report scrolls without putting every row in the page. */
function FindingsTable({
  jobId,
  verificationId,
  version,
  total,
}: {
  jobId: string;
  verificationId: string;
  version: string;
  total: number;
}) {
  const { data: findings = [], error } = useQuery(findingsQuery(jobId, verificationId, version));
  const scroller = useRef<HTMLDivElement>(null);
  const virtualizer = useVirtualizer({
    count: findings.length,
    getScrollElement: () => scroller.current,
    estimateSize: () => ROW_HEIGHT,
    overscan: 10,
  });
  if (error)
    return (
      <p role="alert" className="text-sm text-red-700">
        {error.message}
      </p>
    );
  const columns = "grid grid-cols-[4.5rem_5.5rem_minmax(8rem,1fr)_minmax(12rem,2fr)] gap-3";
  return (
    <div className="space-y-2">
      <div
        ref={scroller}
        className="max-h-96 overflow-auto rounded-md border border-slate-200"
        role="table"
        aria-label="Verify report"
        aria-rowcount={findings.length + 1}
      >
        <div
          role="row"
          className={`${columns} sticky top-0 z-10 border-b border-slate-200 bg-slate-50 px-3 py-2 text-xs font-semibold text-slate-600`}
        >
          <span role="columnheader">Row</span>
          <span role="columnheader">Outcome</span>
          <span role="columnheader">Key</span>
          <span role="columnheader">Reason</span>
        </div>
        <div role="rowgroup" className="relative" style={{ height: virtualizer.getTotalSize() }}>
          {virtualizer.getVirtualItems().map((item) => {
            const finding = findings[item.index]!;
            return (
              <div
                key={finding.id}
                role="row"
                aria-rowindex={item.index + 2}
                data-index={item.index}
                ref={virtualizer.measureElement}
                className={`${columns} absolute inset-x-0 border-b border-slate-100 px-3 py-2 text-sm`}
                style={{ transform: `translateY(${item.start}px)` }}
              >
                <span role="cell" className="tabular-nums">
                  {finding.rowNumber ?? "—"}
                </span>
                <span
                  role="cell"
                  className={finding.kind === "different" ? "text-amber-800" : "text-red-700"}
                >
                  {kindLabels[finding.kind]}
                </span>
                <span role="cell" className="font-mono text-xs break-all">
                  {finding.key}
                </span>
                <span role="cell" className="break-words text-slate-700">
                  {finding.reason}
                </span>
              </div>
            );
          })}
        </div>
      </div>
      {total > SHOWN_FINDINGS && (
        <p className="text-xs text-slate-600">
          The first {n(SHOWN_FINDINGS)} of {n(total)} findings are shown; the CSV holds every one.
        </p>
      )}
    </div>
  );
}
