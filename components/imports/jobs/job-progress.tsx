import type { JobProgress } from "@/lib/imports/jobs/report";

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
  const share = toSend === 0 ? 1 : progress.done / toSend;
  const noun = progress.resource === "messages" ? "Messages" : "Rows";
  return (
    <div className="space-y-3">
      <div
        role="progressbar"
        aria-label="Import progress"
        aria-valuemin={0}
        aria-valuemax={toSend}
        aria-valuenow={progress.done}
        className="h-2 overflow-hidden rounded-full bg-slate-100"
      >
        <div className="h-full bg-indigo-600 transition-all" style={{ width: `${Math.round(share * 100)}%` }} />
      </div>
      <dl className="grid grid-cols-2 gap-x-6 gap-y-1 text-sm sm:grid-cols-4" data-testid="job-progress">
        <div>
          <dt className="text-slate-500">{noun} done</dt>
          <dd className="font-medium tabular-nums" data-testid="rows-done">
            {n(progress.done)} of {n(toSend)}
          </dd>
        </div>
        <div>
          <dt className="text-slate-500">{noun} per second</dt>
          <dd className="font-medium tabular-nums" data-testid="per-second">
            {progress.perSecond.toLocaleString("en")}
          </dd>
        </div>
        {progress.channels && (
          <div>
            <dt className="text-slate-500">Channels done</dt>
            <dd className="font-medium tabular-nums" data-testid="channels-done">
              {n(progress.channels.done)} of {n(progress.channels.total)}
            </dd>
          </div>
        )}
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
