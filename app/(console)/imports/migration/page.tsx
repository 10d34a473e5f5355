import type { Metadata } from "next";
import { FinalStageCard } from "@/components/imports/jobs/final-stage";
import { MigrationStages } from "@/components/imports/jobs/migration-stages";
import { PageHeader } from "@/components/shell/page-header";
import { requireAdmin } from "@/lib/auth/session";
import { targetPhrase } from "@/lib/forms/targets";
import { readFinalStage, readMigrationOverview } from "@/lib/imports/jobs";
import { getPlatformTarget } from "@/lib/platform";

export const metadata: Metadata = { title: "The migration at a glance" };
export const dynamic = "force-dynamic";

export default async function MigrationPage() {
  await requireAdmin("/imports/migration");
  const target = await getPlatformTarget();
  const [stages, finalStage] = await Promise.all([
    readMigrationOverview(target.id),
    readFinalStage(target.id),
  ]);
  return (
    <>
      <PageHeader
        title="The migration at a glance"
        description={`Users, then channels, then messages, then the deactivations and freezes, into ${targetPhrase(target)}: each stage's imports, counts and state.`}
      />
      <div className="space-y-4">
        <MigrationStages stages={stages} />
        <FinalStageCard
          stage={finalStage}
          target={{
            id: target.id,
            name: target.name,
            appId: target.appId,
            kind: target.kind,
            environment: target.environment,
          }}
        />
      </div>
    </>
  );
}
