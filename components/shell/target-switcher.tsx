"use client";

import { useQueryClient } from "@tanstack/react-query";
import { useRouter } from "next/navigation";
import { useState, useTransition } from "react";
import { Badge } from "@/components/ui/badge";
import { Select } from "@/components/ui/select";
import { actionErrorMessage } from "@/lib/actions/action-result";
import { chooseTarget } from "@/lib/actions/targets";
import { targetNature, type TargetNaming } from "@/lib/forms/targets";

/** A target as the switcher lists it: never its token. */
export type TargetChoice = TargetNaming & { id: string; fixed: boolean };

export type TargetSwitcherProps = { targets: TargetChoice[]; currentId: string | undefined };

/**
 * Which target the console works on, in the header of every page. Choosing another one
 * stores it in this sign-in's session and reloads what the page shows.
 */
export function TargetSwitcher({ targets, currentId }: TargetSwitcherProps) {
  const router = useRouter();
  const queryClient = useQueryClient();
  const [pending, startTransition] = useTransition();
  const [error, setError] = useState<string | null>(null);
  const current = targets.find((target) => target.id === currentId);
  const badge = current && (
    <Badge tone={current.environment === "production" ? "danger" : "accent"}>
      {current.environment === "production" ? "Production" : "Sandbox"}
    </Badge>
  );
  if (current?.fixed)
    return (
      <p
        className="flex min-w-0 items-center gap-2 text-sm text-slate-700"
        data-testid="target-fixed"
        title={`Fixed by PLATFORM_CHAT_URL: ${current.name}, application ${current.appId} (${targetNature(current)})`}
      >
        {badge}
        <span className="truncate">Target fixed by PLATFORM_CHAT_URL: {current.appId}</span>
      </p>
    );
  const groups = [
    { label: "Embedded sandbox", items: targets.filter((target) => target.kind === "sandbox") },
    { label: "Remote platforms", items: targets.filter((target) => target.kind === "remote") },
  ].filter((group) => group.items.length > 0);
  return (
    <div className="flex min-w-0 items-center gap-2">
      {badge}
      <label className="sr-only" htmlFor="target-switcher">
        Target
      </label>
      <Select
        id="target-switcher"
        className="mt-0 w-36 min-w-0 sm:w-64"
        value={currentId ?? ""}
        disabled={pending}
        aria-describedby={error ? "target-switcher-error" : undefined}
        data-pending={pending ? "true" : undefined}
        onChange={(event) => {
          const targetId = event.target.value;
          setError(null);
          startTransition(async () => {
            const message = actionErrorMessage(await chooseTarget({ targetId }));
            if (message) return setError(message);
            // Every cached read was the previous target's.
            queryClient.removeQueries();
            router.refresh();
          });
        }}
      >
        {currentId === undefined && <option value="">Choose a target</option>}
        {groups.map((group) => (
          <optgroup key={group.label} label={group.label}>
            {group.items.map((target) => (
              <option key={target.id} value={target.id}>
                {target.name} ({target.appId}
                {target.kind === "remote" ? `, ${targetNature(target)}` : ""})
              </option>
            ))}
          </optgroup>
        ))}
      </Select>
      {error && (
        <p id="target-switcher-error" role="alert" className="text-xs text-red-700">
          {error}
        </p>
      )}
    </div>
  );
}
