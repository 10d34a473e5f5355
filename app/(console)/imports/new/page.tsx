import type { Metadata } from "next";
import Link from "next/link";
import { ImportWizard } from "@/components/imports/wizard/import-wizard";
import { PageHeader } from "@/components/shell/page-header";
import { appendImportRows, createImportJob, finishImportUpload } from "@/lib/actions/imports";
import { requireAdmin } from "@/lib/auth/session";
import { readImportJobs, readMigrationOverview } from "@/lib/imports/jobs";
import { getPlatformTarget } from "@/lib/platform";
import { targetPhrase } from "@/lib/forms/targets";

export const metadata: Metadata = { title: "New import" };

export default async function NewImportPage() {
  await requireAdmin("/imports/new");
  // Users imports that got past their upload: the wizard's hint about the platform's order.
  const target = await getPlatformTarget();
  const jobs = await readImportJobs(500, target.id);
  const usersImports = jobs.filter(
    (job) => job.resource === "users" && job.status !== "draft" && job.status !== "cancelled",
  ).length;
  // Earlier stages still under way: the wizard warns about the platform's order.
  const stages = await readMigrationOverview(target.id);
  const unfinishedOf = (stage: "users" | "channels") =>
    stages.find((item) => item.stage === stage)!.jobs.filter((job) => job.status !== "completed")
      .length;
  return (
    <>
      <PageHeader
        title="New import"
        description={`Bring users, channels and their message history over from another chat system into ${targetPhrase(target)}. Nothing is sent until you have seen the plan.`}
      />
      <p className="text-sm text-slate-700">
        Leaving Slack, Discord or Mattermost?{" "}
        <Link href="/imports/export" className="font-medium text-indigo-700 underline">
          Import an export
        </Link>{" "}
        as it is: its people, conversations and messages become the three imports at once.
      </p>
      <ImportWizard
        actions={{ createImportJob, appendImportRows, finishImportUpload }}
        usersImports={usersImports}
        unfinished={{ users: unfinishedOf("users"), channels: unfinishedOf("channels") }}
      />
    </>
  );
}
