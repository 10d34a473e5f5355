"use client";

import { useQuery } from "@tanstack/react-query";
import { useState } from "react";
import { Button } from "@/components/ui/button";
import type { RowState } from "@/lib/imports/types";
import { jobRowsQuery } from "./job-queries";
import { Select } from "@/components/ui/select";
import { Table } from "@/components/ui/table";

export type ReportTableProps = { jobId: string; version: string };

const filters: Array<{ value: RowState | "all"; label: string }> = [
  { value: "failed", label: "Failed" },
  { value: "invalid", label: "Invalid" },
  { value: "created", label: "Created" },
  { value: "existed", label: "Existed" },
  { value: "excluded", label: "Excluded" },
  { value: "pending", label: "Not sent yet" },
  { value: "all", label: "All rows" },
];

const stateLabels: Record<RowState, string> = {
  pending: "not sent yet",
  created: "created",
  existed: "existed",
  failed: "failed",
  invalid: "invalid",
  excluded: "excluded",
};

/** The per-row report, a page of 100 at a time, filtered by outcome. */
export function ReportTable({ jobId, version }: ReportTableProps) {
  const [state, setState] = useState<RowState | "all">("failed");
  const [pages, setPages] = useState<number[]>([-1]);
  const after = pages[pages.length - 1]!;
  const { data, isPending, error } = useQuery(jobRowsQuery(jobId, state, after, version));

  return (
    <div className="space-y-3">
      <label className="flex items-center gap-2 text-sm text-slate-700">
        Show
        <Select
          value={state}
          onChange={(event) => {
            setState(event.target.value as RowState | "all");
            setPages([-1]);
          }}
        >
          {filters.map((filter) => (
            <option key={filter.value} value={filter.value}>
              {filter.label}
            </option>
          ))}
        </Select>
      </label>
      {error && (
        <p role="alert" className="text-sm text-red-700">
          {error.message}
        </p>
      )}
      {isPending ? (
        <p className="text-sm text-slate-500">Loading…</p>
      ) : data && data.rows.length === 0 ? (
        <p className="text-sm text-slate-600">No rows.</p>
      ) : (
        <Table aria-label="Report" density="compact" columns={["Row", "Key", "Outcome", "Reason"]}>
          {data?.rows.map((row) => (
            <tr key={row.rowIndex}>
              <td className="py-1.5 pr-3 tabular-nums">{row.rowNumber}</td>
              <td className="py-1.5 pr-3 font-mono text-xs">{row.key}</td>
              <td className="py-1.5 pr-3">
                {stateLabels[row.state]}
                {row.followUpState === "failed" && ", follow-up failed"}
              </td>
              <td className="py-1.5 text-slate-700">
                {row.message}
                {row.code !== null && ` (code ${row.code})`}
                {row.issues.map((issue, i) => (
                  <span
                    key={i}
                    className={
                      issue.severity === "error" ? "block text-red-700" : "block text-amber-800"
                    }
                  >
                    {issue.field && `${issue.field}: `}
                    {issue.message}
                  </span>
                ))}
              </td>
            </tr>
          ))}
        </Table>
      )}
      <div className="flex gap-2">
        {pages.length > 1 && (
          <Button variant="ghost" size="sm" onClick={() => setPages(pages.slice(0, -1))}>
            Previous
          </Button>
        )}
        {data?.nextAfter != null && (
          <Button variant="ghost" size="sm" onClick={() => setPages([...pages, data.nextAfter!])}>
            Next 100
          </Button>
        )}
      </div>
    </div>
  );
}
