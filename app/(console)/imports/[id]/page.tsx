import type { Metadata } from "next";
import { notFound } from "next/navigation";
import { JobView } from "@/components/imports/jobs/job-view";
import { PageHeader } from "@/components/shell/page-header";
import { requireAdmin } from "@/lib/auth/session";
import { readImportJob } from "@/lib/imports/jobs";
import { getPlatformTarget } from "@/lib/platform/target";

export const metadata: Metadata = { title: "Import" };

export default async function ImportJobPage({ params }: { params: Promise<{ id: string }> }) {
  const { id } = await params;
  await requireAdmin(`/imports/${id}`);
  const found = await readImportJob(id);
  if (!found) notFound();
  const { job, progress } = found;
  const { kind, appId, chatBaseUrl } = await getPlatformTarget();
  return (
    <>
      <PageHeader
        title={`Import of ${job.fileName}`}
        description={`${job.totalRows.toLocaleString("en")} rows of ${job.resource.replace("_", " ")}.`}
      />
      <JobView initialProgress={progress} target={{ kind, appId, chatBaseUrl }} />
    </>
  );
}
