import type { Metadata } from "next";
import { notFound } from "next/navigation";
import { JobView } from "@/components/imports/jobs/job-view";
import { PageHeader } from "@/components/shell/page-header";
import { requireAdmin } from "@/lib/auth/session";
import { getDb } from "@/lib/db/client";
import { jobProgress } from "@/lib/imports/jobs/report/report";
import { findJob } from "@/lib/imports/jobs/store/jobs";
import { getPlatformTarget } from "@/lib/platform/target";

export const metadata: Metadata = { title: "Import" };

export default async function ImportJobPage({ params }: { params: Promise<{ id: string }> }) {
  const { id } = await params;
  await requireAdmin(`/imports/${id}`);
  const db = await getDb();
  const job = await findJob(db, id);
  if (!job) notFound();
  const progress = await jobProgress(db, id);
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
