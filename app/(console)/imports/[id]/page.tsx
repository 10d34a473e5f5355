import type { Metadata } from "next";
import { notFound } from "next/navigation";
import { JobView } from "@/components/imports/jobs/job-view";
import { PageHeader } from "@/components/shell/page-header";
import { Alert } from "@/components/ui/alert";
import { requireAdmin } from "@/lib/auth/session";
import { readImportJob } from "@/lib/imports/jobs";
import { targetNaming, targetPhrase } from "@/lib/forms/targets";
import { getPlatformTarget } from "@/lib/platform";
import { defaultTargetKey, isTargetError } from "@/lib/targets";

export const metadata: Metadata = { title: "Import" };

export default async function ImportJobPage({ params }: { params: Promise<{ id: string }> }) {
  const { id } = await params;
  await requireAdmin(`/imports/${id}`);
  const found = await readImportJob(id);
  if (!found) notFound();
  const { job, progress } = found;
  // The job's own target, which may not be the one the console works on now, nor be there still.
  const target = await getPlatformTarget(job.targetId ?? defaultTargetKey).catch(
    (error: unknown) => {
      if (isTargetError(error)) return error;
      throw error;
    },
  );
  const rows = `${job.totalRows.toLocaleString("en")} rows of ${job.resource.replace("_", " ")}`;
  if (isTargetError(target))
    return (
      <>
        <PageHeader
          title={`Import of ${job.fileName}`}
          description={`${rows}, into a target that is no longer there.`}
        />
        <Alert tone="warning" title="This import's target is gone" className="mb-4">
          {target.message} Nothing more can be sent for this import; what it did is kept below. To
          send its rows somewhere, import the file again on the target chosen now.
        </Alert>
        <JobView initialProgress={progress} target={null} />
      </>
    );
  return (
    <>
      <PageHeader
        title={`Import of ${job.fileName}`}
        description={`${rows}, into ${targetPhrase(target)}.`}
      />
      <JobView
        initialProgress={progress}
        target={{ ...targetNaming(target), chatBaseUrl: target.chatBaseUrl }}
      />
    </>
  );
}
