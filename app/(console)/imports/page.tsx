import type { Metadata } from "next";
import Link from "next/link";
import { JobList } from "@/components/imports/jobs/job-list";
import { DraftNotice } from "@/components/imports/wizard/draft-notice";
import { PageHeader } from "@/components/shell/page-header";
import { Card } from "@/components/ui/card";
import { requireAdmin } from "@/lib/auth/session";
import { targetPhrase } from "@/lib/forms/targets";
import { readImportList } from "@/lib/imports/jobs";
import { getPlatformTarget } from "@/lib/platform";

export const metadata: Metadata = { title: "Imports" };
export const dynamic = "force-dynamic";

export default async function ImportsPage() {
  await requireAdmin("/imports");
  const target = await getPlatformTarget();
  const { jobs, counts } = await readImportList(target.id);
  return (
    <>
      <PageHeader
        title="Imports"
        description="Bring users, then channels, then their messages over from another chat system: plan, rehearse, run, and download what failed."
        actions={
          <>
            <Link
              href="/imports/migration"
              className="inline-flex h-9 items-center rounded-md border border-slate-300 bg-white px-3.5 text-sm font-medium text-slate-800 shadow-sm hover:bg-slate-50"
            >
              The migration at a glance
            </Link>
            <Link
              href="/imports/export"
              className="inline-flex h-9 items-center rounded-md border border-slate-300 bg-white px-3.5 text-sm font-medium text-slate-800 shadow-sm hover:bg-slate-50"
            >
              Import an export
            </Link>
            <Link
              href="/imports/new"
              className="inline-flex h-9 items-center rounded-md bg-indigo-600 px-3.5 text-sm font-medium text-white shadow-sm hover:bg-indigo-500"
            >
              New import
            </Link>
          </>
        }
      />
      <DraftNotice />
      <Card title="Jobs" description={`Imports into ${targetPhrase(target)}.`}>
        <JobList jobs={jobs} counts={counts} />
      </Card>
    </>
  );
}
