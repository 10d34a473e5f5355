"use client";

import { Alert } from "@/components/ui/alert";
import { Input } from "@/components/ui/input";
import {
  importFields,
  isMetadataTarget,
  METADATA_PREFIX,
  metadataKeyOf,
  type ColumnMapping,
} from "@/lib/imports/fields";
import { mappingProblems, metadataColumnKey } from "@/lib/imports/mapping";
import type { ImportResource } from "@/lib/imports/types";
import { Select } from "@/components/ui/select";

export type MappingStepProps = {
  resource: ImportResource;
  columns: string[];
  /** The first data rows, to show what each column holds. */
  examples: string[][];
  mapping: ColumnMapping;
  onChange: (mapping: ColumnMapping) => void;
  /** Whether the mapping came from a file with the same headers. */
  remembered: boolean;
};

const METADATA_CHOICE = "__metadata__";

export function MappingStep({ resource, columns, examples, mapping, onChange, remembered }: MappingStepProps) {
  const fields = importFields[resource];
  const problems = mappingProblems(resource, columns, mapping);

  function choose(column: string, choice: string) {
    const target = choice === METADATA_CHOICE ? METADATA_PREFIX + (metadataColumnKey(column) ?? column.trim()) : choice;
    onChange({ ...mapping, [column]: target });
  }

  return (
    <div className="space-y-4">
      <p className="text-sm text-slate-600">
        Columns were matched to fields by name (case, spaces, <code>_</code> and <code>-</code> do not matter) and common
        aliases.{" "}
        {remembered ? "This mapping is the one you used for a file with the same columns." : "Your choices are remembered for files with the same columns."}
      </p>
      <div className="overflow-x-auto rounded-lg border border-slate-200">
        <table className="min-w-full divide-y divide-slate-200 text-sm">
          <caption className="sr-only">Columns of the file and the fields they fill</caption>
          <thead className="bg-slate-50 text-left text-xs font-medium text-slate-600 uppercase">
            <tr>
              <th scope="col" className="px-3 py-2">Column in the file</th>
              <th scope="col" className="px-3 py-2">First values</th>
              <th scope="col" className="px-3 py-2">Field</th>
            </tr>
          </thead>
          <tbody className="divide-y divide-slate-100 bg-white">
            {columns.map((column, position) => {
              const target = mapping[column] ?? "";
              const metadata = isMetadataTarget(target);
              return (
                <tr key={column}>
                  <th scope="row" className="px-3 py-2 text-left font-medium text-slate-900">{column}</th>
                  <td className="max-w-64 truncate px-3 py-2 text-slate-600">
                    {examples.map((row) => row[position] ?? "").filter(Boolean).slice(0, 3).join(" · ") || <span className="text-slate-400">empty</span>}
                  </td>
                  <td className="px-3 py-2">
                    <div className="flex flex-wrap items-center gap-2">
                      <Select
                        aria-label={`Field for column ${column}`}
                        value={metadata ? METADATA_CHOICE : target}
                        onChange={(event) => choose(column, event.target.value)}
                      >
                        <option value="">Ignore this column</option>
                        {fields.map((field) => (
                          <option key={field.key} value={field.key}>
                            {field.label} ({field.key}){field.required ? " — required" : ""}
                          </option>
                        ))}
                        {resource === "users" && <option value={METADATA_CHOICE}>Metadata item…</option>}
                      </Select>
                      {metadata && (
                        <div className="w-40">
                          <Input
                            aria-label={`Metadata key for column ${column}`}
                            value={metadataKeyOf(target)}
                            onChange={(event) => onChange({ ...mapping, [column]: METADATA_PREFIX + event.target.value })}
                          />
                        </div>
                      )}
                    </div>
                  </td>
                </tr>
              );
            })}
          </tbody>
        </table>
      </div>
      {problems.length > 0 && (
        <Alert tone="error" title="Finish the mapping">
          <ul className="list-disc pl-5">
            {problems.map((problem) => (
              <li key={problem}>{problem}</li>
            ))}
          </ul>
        </Alert>
      )}
    </div>
  );
}
