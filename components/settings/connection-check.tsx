"use client";

import { useQuery } from "@tanstack/react-query";
import { Alert } from "@/components/ui/alert";
import { Button } from "@/components/ui/button";
import { connectionCheckQuery } from "./settings-queries";

/** Asks the platform for its webhook settings, the cheapest authenticated call, and says how it went. */
export function ConnectionCheck() {
  const query = useQuery(connectionCheckQuery());
  // A fresh check on each press; the previous answer stays until the new one arrives.
  const check = { ...query, isPending: query.isFetching, mutate: () => void query.refetch() };

  return (
    <div className="space-y-3">
      <Button variant="secondary" pending={check.isPending} onClick={() => check.mutate()}>
        {check.isPending ? "Checking…" : "Check connection"}
      </Button>
      {check.isError && <Alert tone="error">{check.error.message}</Alert>}
      {check.data?.ok === true && (
        <Alert tone="success" title="Connected">
          The platform answered in {check.data.latencyMs} ms and lists {check.data.categories}{" "}
          webhook categories.
        </Alert>
      )}
      {check.data?.ok === false && (
        <Alert tone="error" title="The platform refused the request">
          {check.data.message}
          {(check.data.status !== undefined || check.data.code !== undefined) && (
            <span className="mt-1 block font-mono text-xs">
              {check.data.status !== undefined && `HTTP ${check.data.status}`}
              {check.data.status !== undefined && check.data.code !== undefined && " · "}
              {check.data.code !== undefined && `code ${check.data.code}`}
            </span>
          )}
        </Alert>
      )}
    </div>
  );
}
