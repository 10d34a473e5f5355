"use client";

import { Alert } from "@/components/ui/alert";
import { Badge } from "@/components/ui/badge";
import { Button } from "@/components/ui/button";
import { Input } from "@/components/ui/input";
import { Select } from "@/components/ui/select";
import {
  importFields,
  isMetadataTarget,
  METADATA_PREFIX,
  metadataKeyOf,
  type ColumnMapping,
} from "@/lib/imports/fields";
import {
  mappingProblems,
  matchKind,
  metadataColumnKey,
  metadataKeyFix,
} from "@/lib/imports/mapping";
import type { ColumnProfile } from "@/lib/imports/parse/protocol";
import { detectTimestampUnit } from "@/lib/imports/timestamps";
import type { ImportResource } from "@/lib/imports/types";

export type MappingStepProps = {
  resource: ImportResource;
  columns: string[];
  /** Per column: how many rows have a value and the first few values. */
  profiles: ColumnProfile[];
  /** Rows under the header, for the fill rate. */
  rows: number;
  mapping: ColumnMapping;
  onChange: (mapping: ColumnMapping) => void;
  /** Whether the mapping came from a file with the same headers. */
  remembered: boolean;
};

const METADATA_CHOICE = "__metadata__";

function fillRate(filled: number, rows: number): string {
  if (rows === 0 || filled === 0) return "0%";
  const percent = (filled / rows) * 100;
  if (filled === rows) return "100%";
  return percent < 1 ? "<1%" : percent > 99 ? ">99%" : `${Math.round(percent)}%`;
}

export function MappingStep({
  resource,
  columns,
  profiles,
  rows,
  mapping,
  onChange,
  remembered,
}: MappingStepProps) {
  const fields = importFields[resource];
  const problems = mappingProblems(resource, columns, mapping);

  function choose(column: string, choice: string) {
    const target =
      choice === METADATA_CHOICE
        ? METADATA_PREFIX + (metadataColumnKey(column) ?? column.trim())
        : choice;
    onChange({ ...mapping, [column]: target });
  }

  return (
    <div className="space-y-4">
      <p className="text-sm text-slate-600">
        Columns were matched to fields by name (case, spaces, <code>_</code> and <code>-</code> do
        not matter), common aliases, and likeness for names that are close (check those marked
        &ldquo;similar name&rdquo;).{" "}
        {remembered
          ? "This mapping is the one you used for a file with the same columns."
          : "Your choices are remembered for files with the same columns."}
      </p>
      <div className="overflow-x-auto rounded-lg border border-slate-200">
        <table className="min-w-full divide-y divide-slate-200 text-sm">
          <caption className="sr-only">Columns of the file and the fields they fill</caption>
          <thead className="bg-slate-50 text-left text-xs font-medium text-slate-600 uppercase">
            <tr>
              {["Column in the file", "Filled", "First values", "Field"].map((heading) => (
                <th key={heading} scope="col" className="px-3 py-2">
                  {heading}
                </th>
              ))}
            </tr>
          </thead>
          <tbody className="divide-y divide-slate-100 bg-white">
            {columns.map((column, position) => {
              const target = mapping[column] ?? "";
              const metadata = isMetadataTarget(target);
              const profile = profiles[position] ?? { filled: 0, examples: [] };
              const renamed = metadataKeyFix(target);
              const similar =
                target !== "" && !metadata && matchKind(resource, column, target) === "similar";
              return (
                <tr key={column}>
                  <th scope="row" className="px-3 py-2 text-left font-medium text-slate-900">
                    {column}
                  </th>
                  <td
                    className="px-3 py-2 text-slate-600 tabular-nums"
                    title={`${profile.filled.toLocaleString("en-US")} of ${rows.toLocaleString("en-US")} rows have a value`}
                  >
                    {fillRate(profile.filled, rows)}
                  </td>
                  <td
                    className="max-w-64 truncate px-3 py-2 text-slate-600"
                    title={profile.examples.join(" · ")}
                  >
                    {profile.examples.join(" · ") || (
                      <span className="text-slate-400">every row is empty</span>
                    )}
                  </td>
                  <td className="px-3 py-2">
                    <div className="flex flex-wrap items-center gap-2">
                      <Select
                        aria-label={`Field for column ${column}`}
                        className="mt-0"
                        value={metadata ? METADATA_CHOICE : target}
                        onChange={(event) => choose(column, event.target.value)}
                      >
                        <option value="">Ignore this column</option>
                        {fields.map((field) => (
                          <option key={field.key} value={field.key}>
                            {field.label} ({field.key}){field.required ? " — required" : ""}
                          </option>
                        ))}
                        {resource === "users" && (
                          <option value={METADATA_CHOICE}>Metadata item…</option>
                        )}
                      </Select>
                      {similar && <Badge tone="warning">similar name</Badge>}
                      {fields.find((field) => field.key === target)?.kind === "timestamp" && (
                        <TimestampUnit values={profile.examples} />
                      )}
                      {metadata && (
                        <div className="w-40">
                          <Input
                            aria-label={`Metadata key for column ${column}`}
                            aria-invalid={renamed !== null}
                            value={metadataKeyOf(target)}
                            onChange={(event) =>
                              onChange({
                                ...mapping,
                                [column]: METADATA_PREFIX + event.target.value,
                              })
                            }
                          />
                        </div>
                      )}
                      {renamed !== null && (
                        <p className="basis-full text-xs text-red-700">
                          A metadata key cannot hold a comma.{" "}
                          <Button
                            size="sm"
                            variant="secondary"
                            onClick={() =>
                              onChange({ ...mapping, [column]: METADATA_PREFIX + renamed })
                            }
                          >
                            Rename to &ldquo;{renamed}&rdquo;
                          </Button>
                        </p>
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

/** Which unit a time column holds, as read from its first values. */
function TimestampUnit({ values }: { values: string[] }) {
  const unit = detectTimestampUnit(values);
  return (
    <span
      className={unit ? "text-xs text-slate-600" : "text-xs text-red-700"}
      data-testid="timestamp-unit"
    >
      {unit ? `Read as ${unit}` : "Not a time the console can read"}
    </span>
  );
}
