import type { JobProgress } from "@/lib/imports/jobs/report";
import { Progress } from "@/components/ui/progress-bar";

export type JobProgressPanelProps = { progress: JobProgress };

const n = (value: number) => value.toLocaleString("en");

function duration(seconds: number): string {
  if (seconds < 60) return `${seconds} s`;
  const minutes = Math.floor(seconds / 60);
  if (minutes < 60) return `${minutes} min ${seconds % 60} s`;
  return `${Math.floor(minutes / 60)} h ${minutes % 60} min`;
}

/** Rows done, pace, errors and time left: the same whether the page stayed open or not. */
export function JobProgressPanel({ progress }: JobProgressPanelProps) {
  const { counts } = progress;
  const toSend = progress.done + progress.remaining;
  return (
    <div className="space-y-3">
      <Progress label="Import progress" value={toSend === 0 ? 1 : progress.done} max={Math.max(1, toSend)} />
      <dl className="grid grid-cols-2 gap-x-6 gap-y-1 text-sm sm:grid-cols-4" data-testid="job-progress">
        <div>
          <dt className="text-slate-500">Rows done</dt>
          <dd className="font-medium tabular-nums" data-testid="rows-done">
            {n(progress.done)} of {n(toSend)}
          </dd>
        </div>
        <div>
          <dt className="text-slate-500">Per second</dt>
          <dd className="font-medium tabular-nums">{progress.perSecond.toLocaleString("en")}</dd>
        </div>
        <div>
          <dt className="text-slate-500">Errors</dt>
          <dd className="font-medium tabular-nums">{n(counts.failed + counts.followUpsFailed)}</dd>
        </div>
        <div>
          <dt className="text-slate-500">Time left</dt>
          <dd className="font-medium tabular-nums">
            {progress.status === "completed" ? "done" : progress.secondsLeft === null ? "—" : duration(progress.secondsLeft)}
          </dd>
        </div>
      </dl>
      <p className="text-sm text-slate-700" data-testid="report-counts">
        {n(counts.created)} created · {n(counts.existed)} existed · {n(counts.failed)} failed · {n(counts.invalid)} invalid ·{" "}
        {n(counts.excluded)} excluded
        {counts.pending > 0 && ` · ${n(counts.pending)} not sent yet`}
        {counts.followUpsFailed > 0 && ` · ${n(counts.followUpsFailed)} follow-ups failed`}
      </p>
    </div>
  );
}
