import Link from "next/link";
import { Card } from "@/components/ui/card";
import { outcomeWords, type MigrationStage } from "@/lib/imports/jobs";
import { JobStatusBadge } from "./job-status-badge";
import { threadWords } from "./thread-words";

export type MigrationStagesProps = { stages: MigrationStage[] };

const titles: Record<MigrationStage["stage"], string> = {
  users: "1. Users",
  channels: "2. Channels",
  messages: "3. Messages",
};
const stateLabels: Record<MigrationStage["state"], string> = {
  "not started": "Not started",
  "in progress": "In progress",
  done: "Done",
};
const n = (value: number) => value.toLocaleString("en");
const plural = (count: number, word: string) => `${n(count)} ${word}${count === 1 ? "" : "s"}`;

/** The three stages in the platform's order, each with its imports; a stage started before the one before it is done is flagged. */
export function MigrationStages({ stages }: MigrationStagesProps) {
  return (
    <div className="grid grid-cols-1 gap-4 lg:grid-cols-3">
      {stages.map((stage, position) => {
        const before = stages[position - 1];
        const early = before && before.state !== "done" && stage.state !== "not started";
        return (
          <Card key={stage.stage} title={titles[stage.stage]}>
            <div className="space-y-3 text-sm" data-testid={`stage-${stage.stage}`}>
              <p>
                <strong>{stateLabels[stage.state]}</strong>
                {stage.jobs.length > 0 && ` · ${outcomeWords(stage.totals, false)}`}
              </p>
              <p data-testid={`stage-${stage.stage}-verified`} className="text-slate-700">
                {verificationWords(stage.verification)}
              </p>
              {early && (
                <p role="alert" className="text-amber-800">
                  Started before the {before.stage} stage is done: rows that need its {before.stage}{" "}
                  will be left out or fail.
                </p>
              )}
              {stage.jobs.length === 0 ? (
                <p className="text-slate-600">No import yet.</p>
              ) : (
                <ul className="divide-y divide-slate-100">
                  {stage.jobs.map((job) => (
                    <li key={job.id} className="flex items-center justify-between gap-2 py-1.5">
                      <Link
                        href={`/imports/${job.id}`}
                        className="truncate font-medium text-indigo-700 hover:underline"
                      >
                        {job.fileName}
                      </Link>
                      <span className="flex items-center gap-2 text-xs text-slate-600 tabular-nums">
                        {n(job.counts.created + job.counts.existed)} done
                        {job.counts.invalid + job.counts.excluded > 0 &&
                          `, ${n(job.counts.invalid + job.counts.excluded)} left out`}
                        {job.threads && ` · ${threadWords(job.threads)}`}
                        {job.verified &&
                          ` · verified, ${plural(job.verified.differences, "difference")}`}
                        <JobStatusBadge status={job.status} />
                      </span>
                    </li>
                  ))}
                </ul>
              )}
            </div>
          </Card>
        );
      })}
    </div>
  );
}

/** Whether the stage's imports were verified since they ran, when, and what was found. */
function verificationWords({ verified, at, differences }: MigrationStage["verification"]): string {
  if (!verified || !at) return "Not verified";
  const when = new Date(at).toLocaleString("en");
  return differences === 0
    ? `Verified ${when}: no differences`
    : `Verified ${when}: ${plural(differences, "difference")}`;
}
