import { Badge } from "@/components/ui/badge";
import { Skeleton } from "@/components/ui/skeleton";
import type { SandboxApplicationView } from "@/lib/sandbox";
import { ApiTokenField } from "./api-token-field";
import { DeleteApplicationButton } from "./delete-application-button";
import { RateLimitForm } from "./rate-limit-form";

export type SandboxApplicationListProps = { applications: SandboxApplicationView[] };

export function SandboxApplicationList({ applications }: SandboxApplicationListProps) {
  if (applications.length === 0) {
    return (
      <p className="rounded-md border border-dashed border-slate-300 px-4 py-6 text-center text-sm text-slate-600">
        The sandbox has no applications yet. It creates its default one at start-up; restart the
        console if it is missing.
      </p>
    );
  }
  return (
    <ul className="divide-y divide-slate-100">
      {applications.map((app) => (
        <li key={app.id} aria-label={`Application ${app.id}`} className="py-4 first:pt-0 last:pb-0">
          <div className="flex flex-wrap items-start justify-between gap-2">
            <div className="min-w-0">
              <h3 className="flex flex-wrap items-center gap-2 font-medium text-slate-900">
                <span className="font-mono">{app.id}</span>
                {app.isDefault && <Badge tone="accent">Default</Badge>}
                <span className="font-normal text-slate-600">{app.name}</span>
              </h3>
              <p className="mt-1 font-mono text-sm break-all text-slate-600">{app.baseUrl}</p>
            </div>
            {!app.isDefault && <DeleteApplicationButton appId={app.id} name={app.name} />}
          </div>
          <div className="mt-3 space-y-3">
            <div>
              <p className="mb-1 text-xs font-medium text-slate-600">API token</p>
              <ApiTokenField appId={app.id} maskedToken={app.maskedToken} />
            </div>
            <RateLimitForm appId={app.id} rateLimit={app.rateLimit} />
          </div>
        </li>
      ))}
    </ul>
  );
}

export function SandboxApplicationListSkeleton() {
  return (
    <div role="status" className="space-y-6">
      <span className="sr-only">Loading the sandbox applications…</span>
      {[0, 1].map((row) => (
        <div key={row} className="space-y-2">
          <Skeleton className="h-5 w-56" />
          <Skeleton className="h-4 w-80 max-w-full" />
          <Skeleton className="h-8 w-full" />
        </div>
      ))}
    </div>
  );
}
