import type { Metadata } from "next";
import { ImportWizard } from "@/components/imports/wizard/import-wizard";
import { PageHeader } from "@/components/shell/page-header";
import { appendImportRows, createImportJob, finishImportUpload } from "@/lib/actions/imports";
import { requireAdmin } from "@/lib/auth/session";
import { getDb } from "@/lib/db/client";
import { listJobs } from "@/lib/imports/jobs/store";

export const metadata: Metadata = { title: "New import" };

export default async function NewImportPage() {
  await requireAdmin("/imports/new");
  // Users imports that got past their upload: the wizard's hint about the platform's order.
  const jobs = await listJobs(await getDb(), 500);
  const usersImports = jobs.filter(
    (job) => job.resource === "users" && job.status !== "draft" && job.status !== "cancelled",
  ).length;
  return (
    <>
      <PageHeader
        title="New import"
        description="Bring users or channels over from another chat system. Nothing is sent until you have seen the plan."
      />
      <ImportWizard
        actions={{ createImportJob, appendImportRows, finishImportUpload }}
        usersImports={usersImports}
      />
    </>
  );
}
