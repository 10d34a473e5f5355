import type { Metadata } from "next";
import { headers } from "next/headers";
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
import { AddRemoteTargetForm } from "@/components/settings/add-remote-target-form";
import { RemoteTargetList } from "@/components/settings/remote-target-list";
import { env } from "@/lib/env";
import { getPlatformTarget } from "@/lib/platform";
import { listTargets } from "@/lib/targets";
import { describeApplications, getSandboxApp } from "@/lib/sandbox";
import { requestOrigin } from "@/lib/request-origin";

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
          description={
            target.fixed
              ? "Fixed by the environment (PLATFORM_CHAT_URL): the console works on it alone."
              : "What the console works on now: choose another in the target switcher at the top of every page. The checks below run against it."
          }
        >
          <PlatformTargetDetails target={target} />
          <div className="mt-5 border-t border-slate-100 pt-4">
            <ConnectionCheck />
          </div>
          <div className="mt-5 border-t border-slate-100 pt-4">
            <CompatibilityCheck />
          </div>
        </Card>
        {!target.fixed && (
          <Card
            title="Remote platforms"
            description={
              env().SWITCHBOARD_SECRET_KEY
                ? "Applications on a platform reached over the network. Their API tokens stay on the server, encrypted with SWITCHBOARD_SECRET_KEY."
                : "Applications on a platform reached over the network. Their API tokens stay on the server; SWITCHBOARD_SECRET_KEY is not set, so they are stored unencrypted in the database."
            }
          >
            <Suspense fallback={<SandboxApplicationListSkeleton />}>
              <RemoteTargets currentId={target.id} />
            </Suspense>
            <div className="mt-5 border-t border-slate-100 pt-4">
              <h3 className="mb-2 text-sm font-semibold text-slate-900">Add a remote platform</h3>
              <AddRemoteTargetForm />
            </div>
          </Card>
        )}
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

async function RemoteTargets({ currentId }: { currentId: string }) {
  const remotes = (await listTargets()).flatMap((target) =>
    target.kind === "remote" && !target.fixed
      ? [{ ...target, kind: "remote" as const, encrypted: target.encrypted ?? false }]
      : [],
  );
  return <RemoteTargetList targets={remotes} currentId={currentId} />;
}

async function SandboxApplications() {
  const applications = await describeApplications(
    await getSandboxApp().ready(),
    requestOrigin(await headers()),
  );
  return <SandboxApplicationList applications={applications} />;
}
