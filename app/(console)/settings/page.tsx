import type { Metadata } from "next";
import { Suspense } from "react";
import { CompatibilityCheck } from "@/components/settings/compatibility-check";
import { ConnectionCheck } from "@/components/settings/connection-check";
import { CreateApplicationForm } from "@/components/settings/create-application-form";
import { PlatformTargetDetails } from "@/components/settings/platform-target-details";
import {
  SandboxApplicationList,
  SandboxApplicationListSkeleton,
} from "@/components/settings/sandbox-application-list";
import { PageHeader } from "@/components/shell/page-header";
import { Card } from "@/components/ui/card";
import { requireAdmin } from "@/lib/auth/session";
import { getPlatformTarget } from "@/lib/platform";
import { listSandboxApplications } from "@/lib/settings/sandbox-applications";

export const metadata: Metadata = { title: "Settings" };

export default async function SettingsPage() {
  await requireAdmin("/settings");
  const target = await getPlatformTarget();
  return (
    <>
      <PageHeader
        title="Settings"
        description="Which platform the console talks to, and the embedded sandbox's applications."
      />
      <div className="space-y-6">
        <Card
          title="Platform"
          description="Set by the environment (PLATFORM_* for a remote platform; otherwise the sandbox)."
        >
          <PlatformTargetDetails target={target} />
          <div className="mt-5 border-t border-slate-100 pt-4">
            <ConnectionCheck />
          </div>
          <div className="mt-5 border-t border-slate-100 pt-4">
            <CompatibilityCheck />
          </div>
        </Card>
        <Card
          title="Sandbox applications"
          description={
            <>
              Each application has its own data and API token, and answers at{" "}
              <code className="font-mono">{"{origin}/sandbox/{id}"}</code> for both chat (/v3) and
              calls (/v1).
            </>
          }
        >
          <Suspense fallback={<SandboxApplicationListSkeleton />}>
            <SandboxApplications />
          </Suspense>
        </Card>
        <Card
          title="New sandbox application"
          description="For example a scratch application to rehearse an import in before it touches the real platform."
        >
          <CreateApplicationForm />
        </Card>
      </div>
    </>
  );
}

async function SandboxApplications() {
  return <SandboxApplicationList applications={await listSandboxApplications()} />;
}
