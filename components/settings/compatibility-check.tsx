"use client";

import { useMutation } from "@tanstack/react-query";
import { Alert } from "@/components/ui/alert";
import { Badge } from "@/components/ui/badge";
import { Button } from "@/components/ui/button";
import { Table } from "@/components/ui/table";
import { unwrap } from "@/lib/actions/action-result";
import { checkCompatibility } from "@/lib/actions/settings";
import type { CompatibilityOutcome, CompatibilityResult } from "@/lib/conformance/compatibility";

const outcomeBadge: Record<
  CompatibilityOutcome,
  { tone: "success" | "danger" | "neutral"; label: string }
> = {
  pass: { tone: "success", label: "As expected" },
  fail: { tone: "danger", label: "Unexpected" },
  skipped: { tone: "neutral", label: "Not tried" },
};

/**
 * Runs read-only operations against the target (sandbox or remote) and lists which answered
 * as the console expects; an unexpected answer names the operation and the field.
 */
export function CompatibilityCheck() {
  const check = useMutation({
    mutationFn: () => unwrap(checkCompatibility({})),
  });

  return (
    <div className="space-y-3">
      <p className="text-sm text-slate-600">
        Reads users, metadata, channels, members and messages from the platform, nothing written,
        and checks every answer against what the console relies on. For the full read-and-write
        scenario, run{" "}
        <code className="font-mono">npm run conformance -- &lt;base_url&gt; &lt;api_token&gt;</code>
        .
      </p>
      <Button variant="secondary" pending={check.isPending} onClick={() => check.mutate()}>
        {check.isPending ? "Checking compatibility…" : "Check compatibility"}
      </Button>
      {check.isError && <Alert tone="error">{check.error.message}</Alert>}
      {check.data && <CompatibilityResults results={check.data} />}
    </div>
  );
}

/** What each read-only operation answered (Settings' check, and the check of a target being added). */
export function CompatibilityResults({ results }: { results: CompatibilityResult[] }) {
  const failed = results.filter((row) => row.outcome === "fail").length;
  return (
    <>
      <p role="status" className="text-sm text-slate-700">
        {failed === 0
          ? `Every operation tried answered as expected (${results.length} checked).`
          : `${failed} of ${results.length} operations answered something unexpected.`}
      </p>
      <Table
        aria-label="Compatibility check results"
        density="compact"
        columns={["Operation", "Result", "Detail"]}
      >
        {results.map((row) => (
          <tr key={row.operation}>
            <td className="py-1.5 pr-3 font-mono text-xs">{row.operation}</td>
            <td className="py-1.5 pr-3">
              <Badge tone={outcomeBadge[row.outcome].tone}>{outcomeBadge[row.outcome].label}</Badge>
            </td>
            <td className="py-1.5 text-slate-700">{row.detail}</td>
          </tr>
        ))}
      </Table>
    </>
  );
}
