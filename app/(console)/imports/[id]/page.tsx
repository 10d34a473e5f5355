import type { Metadata } from "next";
import { notFound } from "next/navigation";
import { JobView } from "@/components/imports/jobs/job-view";
import { PageHeader } from "@/components/shell/page-header";
import { requireAdmin } from "@/lib/auth/session";
import { readImportJob } from "@/lib/imports/jobs";
import { targetPhrase } from "@/lib/forms/targets";
import { getPlatformTarget } from "@/lib/platform";
import { defaultTargetKey } from "@/lib/targets";

export const metadata: Metadata = { title: "Import" };

export default async function ImportJobPage({ params }: { params: Promise<{ id: string }> }) {
  const { id } = await params;
  await requireAdmin(`/imports/${id}`);
  const found = await readImportJob(id);
  if (!found) notFound();
  const { job, progress } = found;
  // The job's own target, which may not be the one the console works on now.
  const target = await getPlatformTarget(job.targetId ?? defaultTargetKey);
  return (
    <>
      <PageHeader
        title={`Import of ${job.fileName}`}
        description={`${job.totalRows.toLocaleString("en")} rows of ${job.resource.replace("_", " ")}, into ${targetPhrase(target)}.`}
      />
      <JobView
        initialProgress={progress}
        target={{
          name: target.name,
          kind: target.kind,
          environment: target.environment,
          appId: target.appId,
          chatBaseUrl: target.chatBaseUrl,
        }}
      />
    </>
  );
}
