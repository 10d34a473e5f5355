import { ProgressBar } from "@/components/ui/progress-bar";
import type { JobPlan, Rehearsal } from "@/lib/imports/types";
import type { PlanProgress } from "@/lib/imports/types";

const stepLabels: Record<PlanProgress["step"], (noun: string) => string> = {
  lookups: (noun) => `Asking the platform which ${noun} already exist`,
  members: () => "Checking that channel members are users",
  saving: () => "Saving the plan",
};

export type PlanInProgressProps = { progress: PlanProgress | null; resource: string };

/** The plan being made in the background: which step, and how far. */
export function PlanInProgress({ progress, resource }: PlanInProgressProps) {
  const noun = resource === "users" ? "users" : "channels";
  if (!progress) {
    return <p className="text-sm text-slate-700">Waiting for a worker to start the plan…</p>;
  }
  return (
    <div className="space-y-2">
      <ProgressBar label={stepLabels[progress.step](noun)} done={progress.done} total={progress.total} />
      <p className="text-xs tabular-nums text-slate-600">
        {n(progress.done)} of {n(progress.total)} {progress.step === "members" ? "member ids" : "rows"} checked. You can
        leave this page; the plan goes on without it.
      </p>
    </div>
  );
}

export type PlanSummaryProps = { plan: JobPlan; resource: string };

const n = (value: number) => value.toLocaleString("en");

/** The dry run's outcome: what will be created, skipped and left out, and what follows. */
export function PlanSummary({ plan, resource }: PlanSummaryProps) {
  const noun = resource === "users" ? "users" : "channels";
  const items = [
    { label: `${noun} to create`, value: plan.toCreate, testId: "plan-create" },
    { label: "already on the platform (skipped)", value: plan.existing, testId: "plan-existing" },
    { label: "invalid (left out)", value: plan.invalid, testId: "plan-invalid" },
    { label: "excluded by you", value: plan.excluded, testId: "plan-excluded" },
  ];
  const followUps = [
    plan.followUps.deactivate && `${n(plan.followUps.deactivate)} deactivations`,
    plan.followUps.freeze && `${n(plan.followUps.freeze)} freezes`,
    plan.followUps.metadata && `${n(plan.followUps.metadata)} metadata updates`,
  ].filter(Boolean);
  return (
    <div className="space-y-3">
      <dl className="grid grid-cols-2 gap-3 sm:grid-cols-4">
        {items.map((item) => (
          <div key={item.label} className="rounded-md border border-slate-200 px-3 py-2">
            <dd className="text-xl font-semibold tabular-nums text-slate-900" data-testid={item.testId}>
              {n(item.value)}
            </dd>
            <dt className="text-xs text-slate-600">{item.label}</dt>
          </div>
        ))}
      </dl>
      <p className="text-sm text-slate-700">
        After creation: {followUps.length > 0 ? followUps.join(", ") : "no follow-up calls"}.
        {plan.warnings > 0 && ` ${n(plan.warnings)} rows have warnings (see the report).`}
        {plan.missingMembers > 0 && ` ${n(plan.missingMembers)} member ids are neither in an import nor on the platform.`}
      </p>
      {plan.orderChecks.map((check) => (
        <p key={check.jobId} role="alert" className="text-sm text-amber-800">
          {n(check.channels)} channels have members from the users import “{check.fileName}”, which is {check.status}: run it to
          completion first, then plan this import again.
        </p>
      ))}
      <p className="text-xs text-slate-500">
        Looked up with {n(plan.lookups.requests)} requests in {(plan.lookups.ms / 1000).toFixed(1)} s.
      </p>
    </div>
  );
}

export type RehearsalSummaryProps = { rehearsal: Rehearsal };

export function RehearsalSummary({ rehearsal }: RehearsalSummaryProps) {
  if (rehearsal.state === "running") return <p role="status" className="text-sm text-slate-700">Rehearsing in a scratch sandbox application…</p>;
  if (rehearsal.state === "failed") return <p role="alert" className="text-sm text-red-700">The rehearsal stopped: {rehearsal.error}</p>;
  return (
    <div className="space-y-2 text-sm" data-testid="rehearsal">
      <p>
        In a scratch application (deleted afterwards{rehearsal.seededUsers ? `, seeded with ${n(rehearsal.seededUsers)} existing users` : ""}):{" "}
        <strong>{n(rehearsal.created ?? 0)}</strong> created, <strong>{n(rehearsal.existed ?? 0)}</strong> existed,{" "}
        <strong>{n(rehearsal.failed ?? 0)}</strong> would fail
        {rehearsal.followUpsFailed ? `, ${n(rehearsal.followUpsFailed)} follow-ups would fail` : ""}.
      </p>
      {(rehearsal.failures?.length ?? 0) > 0 && (
        <ul className="list-disc pl-5 text-red-800">
          {rehearsal.failures!.slice(0, 20).map((failure) => (
            <li key={failure.rowIndex}>
              Row {failure.rowIndex + 1}: {failure.message}
              {failure.code !== null && ` (code ${failure.code})`}
            </li>
          ))}
        </ul>
      )}
      {(rehearsal.seedFailed ?? 0) > 0 && (
        <div role="alert" className="text-red-800" data-testid="rehearsal-seed-failures">
          <p>
            {n(rehearsal.seedFailed!)} existing users could not be copied into the scratch application, so channels
            naming them may have failed here for that reason alone:
          </p>
          <ul className="list-disc pl-5">
            {rehearsal.seedFailures?.slice(0, 20).map((failure) => (
              <li key={failure.userId}>
                {failure.userId}: {failure.message}
                {failure.code !== null && ` (code ${failure.code})`}
              </li>
            ))}
          </ul>
        </div>
      )}
    </div>
  );
}
