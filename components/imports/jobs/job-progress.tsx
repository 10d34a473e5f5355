"use client";

import { useState } from "react";
import type { JobProgress, RehearsalPace } from "@/lib/imports/jobs";
import { Progress } from "@/components/ui/progress-bar";
import { threadWords } from "./thread-words";

export type JobProgressPanelProps = { progress: JobProgress };

const n = (value: number) => value.toLocaleString("en");

function duration(seconds: number): string {
  if (seconds < 60) return `${seconds} s`;
  const minutes = Math.floor(seconds / 60);
  if (minutes < 60) return `${minutes} min ${seconds % 60} s`;
  return `${Math.floor(minutes / 60)} h ${minutes % 60} min`;
}

/**
 * The pace between polls, smoothed (exponential moving average), so the rate and the time
 * left do not jump with every second's count. Starts again when the job is not running.
 */
function useSmoothedRate(progress: JobProgress): number {
  const key = `${progress.status}:${progress.done}:${progress.perSecond}`;
  const [smoothed, setSmoothed] = useState({ key, rate: progress.perSecond });
  if (smoothed.key !== key) {
    // Adjusting state while rendering (React's pattern for values derived from a prop's history).
    const rate =
      progress.status === "running" && smoothed.rate > 0
        ? 0.7 * smoothed.rate + 0.3 * progress.perSecond
        : progress.perSecond;
    setSmoothed({ key, rate });
  }
  return smoothed.rate;
}

/** Rows done, pace, errors and time left: the same whether the page stayed open or not. */
export function JobProgressPanel({ progress }: JobProgressPanelProps) {
  const { counts } = progress;
  const toSend = progress.toSend;
  const rate = useSmoothedRate(progress);
  const secondsLeft = rate > 0 ? Math.ceil(progress.remaining / rate) : null;
  const noun = progress.resource === "messages" ? "Messages" : "Rows";
  // A finished job has no current pace: it shows its pace over the whole run instead.
  const average =
    progress.startedAt && progress.finishedAt
      ? progress.done /
        Math.max(1, (Date.parse(progress.finishedAt) - Date.parse(progress.startedAt)) / 1000)
      : null;
  const overall = progress.status !== "running" && average !== null;
  const pace = overall ? average : rate;
  return (
    <div className="space-y-3">
      <Progress
        label="Import progress"
        value={toSend === 0 ? 1 : progress.done}
        max={Math.max(1, toSend)}
      />
      <dl
        className="grid grid-cols-2 gap-x-6 gap-y-1 text-sm sm:grid-cols-4"
        data-testid="job-progress"
      >
        <div>
          <dt className="text-slate-500">{noun} done</dt>
          <dd className="font-medium tabular-nums" data-testid="rows-done">
            {n(progress.done)} of {n(toSend)}
          </dd>
        </div>
        <div>
          <dt className="text-slate-500">
            {noun} per second{overall ? ", on average" : ""}
          </dt>
          <dd className="font-medium tabular-nums" data-testid="per-second">
            {(Math.round(pace * 10) / 10).toLocaleString("en")}
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
        {progress.threads && (
          <div>
            <dt className="text-slate-500">
              {progress.threads.edits > 0
                ? "Replies, reactions and edits"
                : "Replies and reactions"}
            </dt>
            <dd className="font-medium tabular-nums" data-testid="threads-done">
              {threadWords(progress.threads)}
            </dd>
          </div>
        )}
        <div>
          <dt className="text-slate-500">Errors</dt>
          <dd className="font-medium tabular-nums">
            {n(counts.failed + counts.followUpsFailed + counts.threadsFailed)}
          </dd>
        </div>
        <div>
          <dt className="text-slate-500">Time left</dt>
          <dd className="font-medium tabular-nums">
            {progress.status === "completed"
              ? "done"
              : secondsLeft === null
                ? "—"
                : duration(secondsLeft)}
          </dd>
        </div>
      </dl>
      <p className="text-sm text-slate-700" data-testid="report-counts">
        {n(counts.created)} created · {n(counts.existed)} existed · {n(counts.failed)} failed ·{" "}
        {n(counts.invalid)} invalid · {n(counts.excluded)} excluded
        {counts.pending > 0 && ` · ${n(counts.pending)} not sent yet`}
        {counts.followUpsFailed > 0 && ` · ${n(counts.followUpsFailed)} follow-ups failed`}
        {counts.threadsFailed > 0 &&
          ` · ${n(counts.threadsFailed)} with replies or reactions not carried`}
      </p>
    </div>
  );
}

export type RehearsalProgressPanelProps = { pace: RehearsalPace; resource: string };

/**
 * A running rehearsal, as a run's progress is shown: rows done of the rows it sends, what they
 * came to so far, its pace and the time left. Read from what the rehearsal writes on the job,
 * so the page shows the same after a reload.
 */
export function RehearsalProgressPanel({ pace, resource }: RehearsalProgressPanelProps) {
  const noun = resource === "messages" ? "Messages" : "Rows";
  return (
    <div className="space-y-3" data-testid="rehearsal-progress">
      <Progress label="Rehearsal progress" value={pace.done} max={Math.max(1, pace.total)} />
      <dl className="grid grid-cols-2 gap-x-6 gap-y-1 text-sm sm:grid-cols-4">
        <div>
          <dt className="text-slate-500">{noun} done</dt>
          <dd className="font-medium tabular-nums" data-testid="rehearsal-done">
            {n(pace.done)} of {n(pace.total)}
          </dd>
        </div>
        <div>
          <dt className="text-slate-500">{noun} per second</dt>
          <dd className="font-medium tabular-nums" data-testid="rehearsal-per-second">
            {pace.perSecond.toLocaleString("en")}
          </dd>
        </div>
        <div>
          <dt className="text-slate-500">Would fail</dt>
          <dd className="font-medium tabular-nums">{n(pace.failed)}</dd>
        </div>
        <div>
          <dt className="text-slate-500">Time left</dt>
          <dd className="font-medium tabular-nums" data-testid="rehearsal-time-left">
            {pace.secondsLeft === null ? "—" : duration(pace.secondsLeft)}
          </dd>
        </div>
      </dl>
      <p className="text-sm text-slate-700" data-testid="rehearsal-counts">
        So far: {n(pace.created)} created · {n(pace.existed)} existed · {n(pace.failed)} would fail
      </p>
    </div>
  );
}
