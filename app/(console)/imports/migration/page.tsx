import type { Metadata } from "next";
import { MigrationStages } from "@/components/imports/jobs/migration-stages";
import { PageHeader } from "@/components/shell/page-header";
import { requireAdmin } from "@/lib/auth/session";
import { readMigrationOverview } from "@/lib/imports/jobs";
import { targetPhrase } from "@/lib/forms/targets";
import { getPlatformTarget } from "@/lib/platform";

export const metadata: Metadata = { title: "The migration at a glance" };
export const dynamic = "force-dynamic";

export default async function MigrationPage() {
  await requireAdmin("/imports/migration");
  const target = await getPlatformTarget();
  const stages = await readMigrationOverview(target.id);
  return (
    <>
      <PageHeader
        title="The migration at a glance"
        description={`Users, then channels, then messages, into ${targetPhrase(target)}: each stage's imports, counts and state.`}
      />
      <MigrationStages stages={stages} />
    </>
  );
}
