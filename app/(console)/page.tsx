import type { Metadata } from "next";
import Link from "next/link";
import { PlatformTargetDetails } from "@/components/settings/platform-target-details";
import { consoleSections } from "@/components/shell/console-sections";
import { PageHeader } from "@/components/shell/page-header";
import { Badge } from "@/components/ui/badge";
import { Card } from "@/components/ui/card";
import { focusRing } from "@/components/ui/class-names";
import { requireAdmin } from "@/lib/auth/session";
import { getPlatformTarget } from "@/lib/platform";
import { getSandboxStatus } from "@/lib/settings/sandbox-status";

export const metadata: Metadata = { title: "Overview" };

export default async function OverviewPage() {
  await requireAdmin("/");
  const [target, sandbox] = await Promise.all([getPlatformTarget(), getSandboxStatus()]);
  return (
    <>
      <PageHeader
        title="Overview"
        description="What this console is connected to, and where to go next."
      />
      <div className="grid grid-cols-1 gap-6 lg:grid-cols-2">
        <Card title="Target platform" className="lg:col-span-2">
          <PlatformTargetDetails target={target} />
        </Card>
        <Card
          title="Embedded sandbox"
          actions={
            sandbox.ok ? (
              <Badge tone="success">Running</Badge>
            ) : (
              <Badge tone="danger">Unavailable</Badge>
            )
          }
        >
          {sandbox.ok ? (
            <dl className="grid grid-cols-[max-content_1fr] gap-x-6 gap-y-2 text-sm">
              <dt className="font-medium text-slate-600">Applications</dt>
              <dd>{sandbox.applications}</dd>
              <dt className="font-medium text-slate-600">Default application</dt>
              <dd className="font-mono">{sandbox.defaultAppId}</dd>
              <dt className="font-medium text-slate-600">Storage</dt>
              <dd className="min-w-0 break-all">
                {sandbox.storage === "pglite" ? "Embedded PGlite" : "PostgreSQL"}{" "}
                <span className="font-mono text-slate-600">{sandbox.location}</span>
              </dd>
            </dl>
          ) : (
            <p className="text-sm text-red-700">{sandbox.message}</p>
          )}
        </Card>
        <Card title="Go to">
          <ul className="space-y-1">
            {consoleSections
              .filter((section) => section.href !== "/")
              .map((section) => (
                <li key={section.href}>
                  <Link
                    href={section.href}
                    className={`-mx-2 block rounded-md px-2 py-1.5 hover:bg-slate-50 ${focusRing}`}
                  >
                    <span className="text-sm font-medium text-indigo-700">{section.label}</span>
                    <span className="block text-sm text-slate-600">{section.description}</span>
                  </Link>
                </li>
              ))}
          </ul>
        </Card>
      </div>
    </>
  );
}
