import Link from "next/link";
import { jobOver, outcomeWords, type ImportJob, type StageJob } from "@/lib/imports/jobs";
import { Table } from "@/components/ui/table";
import { JobStatusBadge } from "./job-status-badge";

export type JobListProps = { jobs: ImportJob[]; counts: Map<string, StageJob["counts"]> };

const resourceLabels: Record<string, string> = {
  users: "Users",
  open_channels: "Open channels",
  group_channels: "Group channels",
  messages: "Messages",
};

/** Every import, newest first, each linking to its plan, progress and report. */
export function JobList({ jobs, counts }: JobListProps) {
  if (jobs.length === 0) {
    return <p className="text-sm text-slate-600">No imports yet. Start one with “New import”.</p>;
  }
  return (
    <Table aria-label="Imports" columns={["File", "What", "Rows", "Outcome", "Status", "Created"]}>
      {jobs.map((job) => (
        <tr key={job.id}>
          <td className="py-2 pr-4">
            <Link
              href={`/imports/${job.id}`}
              className="font-medium text-indigo-700 hover:underline"
            >
              {job.fileName}
            </Link>
          </td>
          <td className="py-2 pr-4">{resourceLabels[job.resource] ?? job.resource}</td>
          <td className="py-2 pr-4 tabular-nums">{job.totalRows.toLocaleString("en")}</td>
          <td className="py-2 pr-4 text-slate-600 tabular-nums" data-testid="job-outcome">
            <OutcomeCounts counts={counts.get(job.id)} status={job.status} />
          </td>
          <td className="py-2 pr-4">
            <JobStatusBadge status={job.status} />
          </td>
          <td className="py-2 text-slate-600">
            <time dateTime={job.createdAt.toISOString()}>
              {job.createdAt.toISOString().slice(0, 16).replace("T", " ")} UTC
            </time>
          </td>
        </tr>
      ))}
    </Table>
  );
}

/** The job's rows by outcome: created, failed and left out always, so no loss goes unsaid. */
function OutcomeCounts({
  counts,
  status,
}: {
  counts: StageJob["counts"] | undefined;
  status: ImportJob["status"];
}) {
  if (!counts || Object.values(counts).every((count) => count === 0))
    return <span className="text-slate-400">no rows yet</span>;
  // A job stopped for good never sends its pending rows (the report says "Not sent").
  return <>{outcomeWords(counts, jobOver(status))}</>;
}
