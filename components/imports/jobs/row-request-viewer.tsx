"use client";

import { useState } from "react";
import { Button } from "@/components/ui/button";
import { Input } from "@/components/ui/input";
import { actionErrorMessage } from "@/lib/actions/action-result";
import { showRowRequests } from "@/lib/actions/imports";
import type { RowRequests } from "@/lib/imports/jobs/report";

export type RowRequestViewerProps = { jobId: string; totalRows: number };

/** Opens the exact HTTP requests (method, path, JSON body) any row sends. */
export function RowRequestViewer({ jobId, totalRows }: RowRequestViewerProps) {
  const [rowNumber, setRowNumber] = useState("1");
  const [shown, setShown] = useState<RowRequests | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [pending, setPending] = useState(false);

  async function open(event: React.FormEvent) {
    event.preventDefault();
    setPending(true);
    const result = await showRowRequests({ jobId, rowIndex: Number(rowNumber) - 1 }).finally(() => setPending(false));
    setError(actionErrorMessage(result));
    setShown("data" in result ? result.data : null);
  }

  return (
    <div className="space-y-3">
      <form onSubmit={open} className="flex items-end gap-2" aria-label="Open a row's request">
        <label className="text-sm text-slate-700">
          Row of the file (1–{totalRows.toLocaleString("en")})
          <Input className="mt-1 w-32" inputMode="numeric" value={rowNumber} onChange={(event) => setRowNumber(event.target.value)} />
        </label>
        <Button type="submit" variant="secondary" pending={pending}>
          Show request
        </Button>
      </form>
      {error && (
        <p role="alert" className="text-sm text-red-700">
          {error}
        </p>
      )}
      {shown && (
        <div className="space-y-2" data-testid="row-requests">
          {shown.requests.length === 0 && <p className="text-sm text-slate-700">This row sends nothing: it is {shown.state}.</p>}
          {shown.requests.map((request, i) => (
            <pre key={i} className="overflow-x-auto rounded-md bg-slate-900 p-3 font-mono text-xs text-slate-100">
              {`${request.method} {base_url}${request.path}\ncontent-type: application/json\n\n${JSON.stringify(request.body, null, 2)}`}
            </pre>
          ))}
          {shown.issues.length > 0 && (
            <ul className="list-disc pl-5 text-sm">
              {shown.issues.map((issue, i) => (
                <li key={i} className={issue.severity === "error" ? "text-red-700" : "text-amber-800"}>
                  {issue.field && <code className="font-mono">{issue.field}</code>} {issue.message}
                </li>
              ))}
            </ul>
          )}
        </div>
      )}
    </div>
  );
}
