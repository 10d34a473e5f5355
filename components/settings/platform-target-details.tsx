import { Badge } from "@/components/ui/badge";
import type { PlatformTarget } from "@/lib/platform";

export type PlatformTargetDetailsProps = { target: PlatformTarget };

/** Which platform the console talks to; the token only ever arrives here masked. */
export function PlatformTargetDetails({ target }: PlatformTargetDetailsProps) {
  const rows = [
    ["Application id", target.appId],
    ["Chat base URL", target.chatBaseUrl],
    ["Calls base URL", target.callsBaseUrl],
    ["API token", target.maskedToken],
  ] as const;
  return (
    <div>
      <p className="flex flex-wrap items-center gap-2 text-sm text-slate-700">
        {target.kind === "sandbox" ? (
          <>
            <Badge tone="accent">Embedded sandbox</Badge>
            Requests go to {target.name}, an application of the sandbox served by this console, not
            to the real platform.
          </>
        ) : (
          <>
            <Badge tone="success">Remote platform</Badge>
            <Badge tone={target.environment === "production" ? "danger" : "accent"}>
              {target.environment === "production" ? "Production" : "Sandbox"}
            </Badge>
            {target.fixed
              ? "Requests go to the platform configured by PLATFORM_CHAT_URL."
              : `Requests go to ${target.name}, added on this page.`}
          </>
        )}
      </p>
      <dl className="mt-4 grid gap-x-6 gap-y-3 text-sm sm:grid-cols-[max-content_1fr]">
        {rows.map(([term, value]) => (
          <div key={term} className="contents">
            <dt className="font-medium text-slate-600">{term}</dt>
            <dd className="min-w-0 font-mono break-all text-slate-900">{value}</dd>
          </div>
        ))}
      </dl>
    </div>
  );
}
