"use client";

import { useRouter } from "next/navigation";
import { Badge } from "@/components/ui/badge";
import { Button } from "@/components/ui/button";
import { ConfirmDialog } from "@/components/ui/confirm-dialog";
import { actionErrorMessage } from "@/lib/actions/action-result";
import { removeRemoteTarget } from "@/lib/actions/targets";
import { targetNature } from "@/lib/forms/targets";

/** A remote target as Settings lists it: never its token. */
export type RemoteTargetView = {
  id: string;
  name: string;
  kind: "remote";
  environment: "sandbox" | "production";
  appId: string;
  chatBaseUrl: string;
  callsBaseUrl: string;
  encrypted: boolean;
};

export type RemoteTargetListProps = { targets: RemoteTargetView[]; currentId: string | undefined };

export function RemoteTargetList({ targets, currentId }: RemoteTargetListProps) {
  const router = useRouter();
  if (targets.length === 0)
    return <p className="text-sm text-slate-600">No remote platform has been added.</p>;
  return (
    <ul className="divide-y divide-slate-100">
      {targets.map((target) => (
        <li
          key={target.id}
          aria-label={`Remote platform ${target.name}`}
          className="py-4 first:pt-0 last:pb-0"
        >
          <div className="flex flex-wrap items-center justify-between gap-2">
            <p className="flex flex-wrap items-center gap-2 font-medium text-slate-900">
              {target.name}
              <Badge tone={target.environment === "production" ? "danger" : "accent"}>
                {target.environment === "production" ? "Production" : "Sandbox"}
              </Badge>
              {target.id === currentId && <Badge tone="success">Current target</Badge>}
            </p>
            <ConfirmDialog
              title={`Remove ${target.name}?`}
              description={
                <p>
                  {target.name} (application <code className="font-mono">{target.appId}</code>,{" "}
                  {targetNature(target)}) stops being a target and its stored token is deleted.
                  Nothing on the platform changes; its imports stay listed under it.
                </p>
              }
              confirmLabel="Remove target"
              onConfirm={async () => {
                const message = actionErrorMessage(
                  await removeRemoteTarget({ targetId: target.id }),
                );
                if (!message) router.refresh();
                return message;
              }}
              trigger={
                <Button
                  variant="ghost"
                  size="sm"
                  className="text-red-700 hover:bg-red-50"
                  aria-label={`Remove remote platform ${target.name}`}
                >
                  Remove
                </Button>
              }
            />
          </div>
          <dl className="mt-2 grid gap-x-6 gap-y-1 text-sm sm:grid-cols-[max-content_1fr]">
            <dt className="text-slate-600">Application id</dt>
            <dd className="min-w-0 font-mono break-all">{target.appId}</dd>
            <dt className="text-slate-600">Chat base URL</dt>
            <dd className="min-w-0 font-mono break-all">{target.chatBaseUrl}</dd>
            <dt className="text-slate-600">Calls base URL</dt>
            <dd className="min-w-0 font-mono break-all">{target.callsBaseUrl}</dd>
            <dt className="text-slate-600">API token</dt>
            <dd className="min-w-0">
              {target.encrypted
                ? "Stored on the server, encrypted with SWITCHBOARD_SECRET_KEY"
                : "Stored on the server unencrypted: set SWITCHBOARD_SECRET_KEY to encrypt tokens added from then on"}
            </dd>
          </dl>
        </li>
      ))}
    </ul>
  );
}
