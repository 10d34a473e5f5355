"use client";

import { useQueries } from "@tanstack/react-query";
import { jobProgressQuery } from "@/components/imports/jobs/job-queries";
import { deltaLabels, exportDelta } from "@/lib/imports/export-flow/delta";
import { flowResources } from "@/lib/imports/export-flow";
import type { CreatedImports } from "./create-imports";

/**
 * What the export adds to the platform, read from its imports' plans as each is made (polled
 * while planning): everything for a first export, only what is new for a newer one.
 */
export function ExportDelta({ jobs }: { jobs: CreatedImports }) {
  const resources = flowResources.filter((resource) => jobs[resource]);
  const progress = useQueries({
    queries: resources.map((resource) => jobProgressQuery(jobs[resource]!)),
  });
  const lines = exportDelta(
    Object.fromEntries(
      resources.map((resource, index) => [resource, progress[index]?.data?.plan ?? null]),
    ),
  );
  return (
    <div className="space-y-1 text-sm text-slate-700" data-testid="export-delta" aria-live="polite">
      <p className="font-medium text-slate-900">What this export adds to the platform</p>
      <ul className="space-y-0.5">
        {lines.map(({ resource, words }, index) => {
          const read = progress[index];
          const problem = read?.data?.error ?? (read?.error ? read.error.message : null);
          return (
            <li key={resource}>
              {deltaLabels[resource]}:{" "}
              {problem && !read?.data?.plan ? (
                <span className="text-red-700">not planned: {problem}</span>
              ) : (
                words
              )}
            </li>
          );
        })}
      </ul>
    </div>
  );
}
