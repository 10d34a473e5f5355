"use client";

import { useQuery } from "@tanstack/react-query";
import { useState } from "react";
import { Button } from "@/components/ui/button";
import { Input } from "@/components/ui/input";
import { rowRequestsQuery } from "./job-queries";

/** `firstRow`: the file's row number of the first data row, as the report numbers rows. */
export type RowRequestViewerProps = { jobId: string; totalRows: number; firstRow: number };

/** Opens the exact HTTP requests (method, path, JSON body) any row sends. */
export function RowRequestViewer({ jobId, totalRows, firstRow }: RowRequestViewerProps) {
  const [rowNumber, setRowNumber] = useState(String(firstRow));
  const [asked, setAsked] = useState<{ row: string } | null>(null);
  const query = useQuery(rowRequestsQuery(jobId, asked?.row ?? null));
  const shown = query.data ?? null;
  const error = query.error?.message ?? null;
  const pending = query.isFetching;

  function open(event: React.FormEvent) {
    event.preventDefault();
    setAsked({ row: rowNumber.trim() });
    if (asked?.row === rowNumber.trim()) void query.refetch();
  }

  return (
    <div className="space-y-3">
      <form onSubmit={open} className="flex items-end gap-2" aria-label="Open a row's request">
        <label className="text-sm text-slate-700">
          Row of the file ({firstRow.toLocaleString("en")}–
          {(firstRow + totalRows - 1).toLocaleString("en")})
          <Input
            className="mt-1 w-32"
            inputMode="numeric"
            value={rowNumber}
            onChange={(event) => setRowNumber(event.target.value)}
          />
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
          {shown.requests.length === 0 && (
            <p className="text-sm text-slate-700">This row sends nothing: it is {shown.state}.</p>
          )}
          {shown.requests.map((request, i) => (
            <pre
              key={i}
              className="overflow-x-auto rounded-md bg-slate-900 p-3 font-mono text-xs text-slate-100"
            >
              {`${request.method} {base_url}${request.path}\ncontent-type: application/json\n\n${JSON.stringify(request.body, null, 2)}`}
            </pre>
          ))}
          {shown.issues.length > 0 && (
            <ul className="list-disc pl-5 text-sm">
              {shown.issues.map((issue, i) => (
                <li
                  key={i}
                  className={issue.severity === "error" ? "text-red-700" : "text-amber-800"}
                >
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
