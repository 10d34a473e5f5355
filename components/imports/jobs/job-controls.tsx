"use client";

import { useQueryClient } from "@tanstack/react-query";
import { useRouter } from "next/navigation";
import { Button } from "@/components/ui/button";
import { ConfirmDialog, type ConfirmDialogProps } from "@/components/ui/confirm-dialog";
import { targetNature, type TargetNaming } from "@/lib/forms/targets";
import { useSingleFlight } from "@/components/ui/use-single-flight";
import { unwrap } from "@/lib/actions/action-result";
import { controlImportJob, newJobFromRowsNotDone } from "@/lib/actions/imports";
import type { JobProgress } from "@/lib/imports/jobs";
import { earlierChanges } from "@/lib/imports/types";
import { importJobKeys, useJobCommand, type JobCommand } from "./job-queries";

/** The job's own target (the one it was made on), as its confirmations name it. */
export type RunTarget = TargetNaming & { chatBaseUrl: string };

/** `target` null: the job's target was removed; nothing can be sent, so nothing is offered. */
export type JobControlsProps = { progress: JobProgress; target: RunTarget | null };

/** The commands behind plain buttons; run and cancel are confirmed in a dialog first. */
type Command = Extract<JobCommand, "pause" | "resume" | "plan" | "rehearse">;

const n = (value: number) => value.toLocaleString("en");

/** The buttons that make sense in the job's state; each answer refreshes the page's data. */
export function JobControls({ progress, target }: JobControlsProps) {
  const queryClient = useQueryClient();
  const router = useRouter();
  const jobId = progress.id;
  const refresh = () => queryClient.invalidateQueries({ queryKey: importJobKeys.all(jobId) });
  const mutation = useJobCommand(jobId);
  const send = useSingleFlight(mutation);
  const { error } = mutation;
  const pending = (command: Command) => mutation.isPending && mutation.variables === command;
  const busy = mutation.isPending;
  const rehearsing = progress.rehearsal?.state === "running";
  const button = (
    command: Command,
    label: string,
    variant: "primary" | "secondary" | "danger" = "secondary",
  ) => (
    <Button
      variant={variant}
      pending={pending(command)}
      disabled={busy}
      onClick={() => send(command)}
    >
      {label}
    </Button>
  );
  /** A confirmed command: the dialog stays open with the reason when it is refused. */
  const confirmed = (command: "run" | "cancel") =>
    unwrap(controlImportJob({ jobId, command })).finally(refresh);
  const over = progress.status === "cancelled" || progress.status === "completed";
  if (!target) return null;

  return (
    <div className="space-y-2">
      <div className="flex flex-wrap gap-2">
        {progress.status === "planned" && !rehearsing && (
          <>
            <RunDialog
              progress={progress}
              target={target}
              disabled={busy}
              onConfirm={() => confirmed("run")}
            />
            {button("rehearse", "Rehearse in a scratch application")}
            {button("plan", "Plan again")}
          </>
        )}
        {progress.status === "draft" &&
          progress.counts.total === progress.totalRows &&
          button("plan", "Plan again", "primary")}
        {progress.status === "running" && button("pause", "Pause")}
        {progress.status === "paused" && button("resume", "Resume", "primary")}
        {/* A draft (an upload left unfinished, a plan that failed) is cancelled too, or it would
            stay in the list and the migration overview for good. */}
        {["draft", "planning", "planned", "running", "paused"].includes(progress.status) && (
          <CancelDialog
            progress={progress}
            target={target}
            disabled={busy}
            onConfirm={() => confirmed("cancel")}
          />
        )}
        {over && progress.rowsNotDone > progress.counts.invalid && (
          <ConfirmDialog
            title="New job from the rows not done?"
            tone="primary"
            description={
              <div className="space-y-2">
                <p>
                  A new import is made of this job&apos;s{" "}
                  {n(progress.rowsNotDone - progress.counts.invalid)} rows that did not reach their
                  final state: rows never sent and rows the platform refused are sent again; rows
                  created whose follow-ups failed get their follow-ups. Each keeps its row number in
                  the file.
                </p>
                <p>
                  Its plan is made at once; nothing is sent until you run it.
                  {progress.counts.invalid > 0 &&
                    ` The ${n(progress.counts.invalid)} invalid rows are left out: fix them in the failures CSV first.`}
                </p>
              </div>
            }
            confirmLabel="Make the new job"
            onConfirm={async () => {
              const made = await unwrap(newJobFromRowsNotDone({ jobId }));
              router.push(`/imports/${made.jobId}`);
            }}
            trigger={<Button variant="secondary">New job from the rows not done</Button>}
          />
        )}
      </div>
      {error && (
        <p role="alert" className="text-sm text-red-700">
          {error}
        </p>
      )}
    </div>
  );
}

type JobActionDialogProps = Omit<ConfirmDialogProps, "trigger" | "confirmLabel"> & {
  /** What the job's button and the dialog's confirm button both say. */
  action: string;
  variant: "primary" | "danger";
  disabled: boolean;
};

/** An action on the job, asked about first: the dialog confirms with the words of its button. */
function JobActionDialog({ action, variant, disabled, ...dialog }: JobActionDialogProps) {
  return (
    <ConfirmDialog
      {...dialog}
      confirmLabel={action}
      trigger={
        <Button variant={variant} disabled={disabled}>
          {action}
        </Button>
      }
    />
  );
}

type DialogProps = {
  progress: JobProgress;
  disabled: boolean;
  onConfirm: () => Promise<unknown>;
};

function RunDialog({ progress, target, disabled, onConfirm }: DialogProps & { target: RunTarget }) {
  const plan = progress.plan;
  const follow = plan ? plan.followUps.metadata + (plan.followUps.invitations ?? 0) : 0;
  const last = plan ? plan.followUps.deactivate + plan.followUps.freeze : 0;
  const production = target.environment === "production";
  const createdSenders = plan?.messages?.createSenders?.length ?? 0;
  const edits = earlierChanges(plan?.messages?.earlier).edited;
  return (
    <JobActionDialog
      title={`Run the import into ${target.name}?`}
      tone={production ? "danger" : "primary"}
      description={
        <div className="space-y-2">
          <p>
            Rows are sent to <strong data-testid="run-target-name">{target.name}</strong>, the
            application <code className="font-mono">{target.appId}</code> on{" "}
            <strong data-testid="run-target-kind">{targetNature(target)}</strong> (
            <span className="font-mono break-all">{target.chatBaseUrl}</span>).
            {production && " These are real changes to a production platform."}
          </p>
          {plan && (
            <ul className="list-disc pl-5" data-testid="run-plan-counts">
              <li>{n(plan.toCreate)} to create</li>
              {edits > 0 ? (
                <li>
                  {n(plan.existing)} already there, skipped, except {n(edits)} edited in the source
                  since an earlier import sent them: their text is updated to this version
                </li>
              ) : (
                <li>{n(plan.existing)} already there, skipped (nothing is overwritten)</li>
              )}
              <li>
                {n(plan.invalid)} invalid and {n(plan.excluded)} excluded, not sent
              </li>
              {follow > 0 && (
                <li>
                  {n(follow)} follow-up requests (metadata, invitations), each right after its row
                </li>
              )}
              {last > 0 && (
                <li>
                  {n(last)} deactivations and freezes left to the migration&apos;s last stage
                  (Finish the migration), after the messages
                </li>
              )}
              {createdSenders > 0 && (
                <li data-testid="run-created-senders">
                  {n(createdSenders)} unknown {createdSenders === 1 ? "sender" : "senders"} created
                  as users before the messages, and deactivated in the migration&apos;s last stage
                  (Finish the migration)
                </li>
              )}
            </ul>
          )}
          <p>You can pause or cancel while it runs; what is created stays created.</p>
        </div>
      }
      action="Run import"
      variant="primary"
      disabled={disabled}
      onConfirm={onConfirm}
    />
  );
}

function CancelDialog({
  progress,
  target,
  disabled,
  onConfirm,
}: DialogProps & { target: RunTarget }) {
  const started = progress.status === "running" || progress.status === "paused";
  return (
    <JobActionDialog
      title="Cancel this import?"
      description={
        <div className="space-y-2">
          <p data-testid="cancel-target">
            The import into <strong>{target.name}</strong> (application{" "}
            <code className="font-mono">{target.appId}</code>, {targetNature(target)}).
          </p>
          {started ? (
            <>
              <p>
                No new row is sent. Rows already created keep their follow-ups: those being sent now
                finish. A created user the file marks inactive is deactivated in the
                migration&apos;s last stage, as in a completed import.
              </p>
              <p>
                Nothing is undone: the {n(progress.counts.created)} rows created so far stay on the
                platform. The {n(progress.remaining)} rows not done go into the failures CSV with
                the reason, and a cancelled job offers a new job from them.
              </p>
            </>
          ) : (
            <p>
              Nothing has been sent to the platform, and nothing will be: the plan (or rehearsal)
              stops and the job ends.
            </p>
          )}
          <p>A cancelled import cannot be resumed.</p>
        </div>
      }
      action="Cancel import"
      variant="danger"
      disabled={disabled}
      onConfirm={onConfirm}
    />
  );
}
