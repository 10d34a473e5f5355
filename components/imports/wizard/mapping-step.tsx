"use client";

import { Fragment, useMemo, useState } from "react";
import { Alert } from "@/components/ui/alert";
import { Badge } from "@/components/ui/badge";
import { Button } from "@/components/ui/button";
import { classNames, focusRing } from "@/components/ui/class-names";
import { Input } from "@/components/ui/input";
import { Select } from "@/components/ui/select";
import { valueFit } from "@/lib/imports/column-values";
import {
  findField,
  importFields,
  isMetadataTarget,
  METADATA_PREFIX,
  metadataKeyOf,
  type ColumnMapping,
  type ImportField,
} from "@/lib/imports/fields";
import {
  mappingProblems,
  metadataColumnKey,
  metadataKeyFix,
  suggestMapping,
} from "@/lib/imports/mapping";
import type { ColumnProfile } from "@/lib/imports/parse/protocol";
import {
  detectTimestampUnit,
  type TimestampUnit as TimestampUnitName,
} from "@/lib/imports/timestamps";
import {
  describeTransform,
  isEmptyTransform,
  type ColumnTransform,
  type ColumnTransforms,
} from "@/lib/imports/transforms";
import type { ImportResource } from "@/lib/imports/types";
import { TransformForm } from "./transform-form";

export type MappingStepProps = {
  resource: ImportResource;
  columns: string[];
  /** Per column: how many rows have a value and its first values. */
  profiles: ColumnProfile[];
  /** Rows under the header, for the fill rate. */
  rows: number;
  mapping: ColumnMapping;
  transforms: ColumnTransforms;
  onChange: (mapping: ColumnMapping, transforms: ColumnTransforms) => void;
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
  transforms,
  onChange,
  remembered,
}: MappingStepProps) {
  const fields = importFields[resource];
  const problems = mappingProblems(resource, columns, mapping, transforms);
  const [editing, setEditing] = useState<string | null>(null);
  const suggestion = useMemo(
    () =>
      suggestMapping(
        resource,
        columns,
        profiles.map((profile) => profile.sample),
      ),
    [resource, columns, profiles],
  );
  const transformOf = (column: string) =>
    Object.hasOwn(transforms, column) ? transforms[column] : undefined;
  const mismatches = columns.flatMap((column, position) => {
    const field = findField(resource, mapping[column] ?? "");
    const fit = field && valueFit(field, profiles[position]?.sample ?? [], transformOf(column));
    return fit ? [{ column, field, fit }] : [];
  });

  /** A new field drops the parts of the column's transform the field has no use for. */
  function choose(column: string, choice: string) {
    const target =
      choice === METADATA_CHOICE
        ? METADATA_PREFIX + (metadataColumnKey(column) ?? column.trim())
        : choice;
    const kind = findField(resource, target)?.kind;
    const { [column]: previous, ...others } = transforms;
    const kept: ColumnTransform = target === "" ? {} : { ...previous };
    if (kind !== "boolean") delete kept.invert;
    if (kind !== "timestamp") delete kept.unit;
    onChange(
      { ...mapping, [column]: target },
      isEmptyTransform(kept) ? others : { ...others, [column]: kept },
    );
  }

  function applyTransform(column: string, transform: ColumnTransform | undefined) {
    const { [column]: _previous, ...others } = transforms;
    onChange(mapping, transform ? { ...others, [column]: transform } : others);
    setEditing(null);
  }

  return (
    <div className="space-y-4">
      <p className="text-sm text-slate-600">
        Each column was matched to a field by its name (case, spaces, <code>_</code> and{" "}
        <code>-</code> do not matter, and usual names such as &ldquo;avatar&rdquo; count) and by its
        values: email addresses never fill an image URL, JSON never fills a name. The reason is
        shown under each choice; check those marked &ldquo;similar name&rdquo;.{" "}
        {remembered
          ? "This mapping is the one you used for a file with the same columns."
          : "Your choices are remembered for files with the same columns."}
      </p>
      <ValueMismatches mismatches={mismatches} />
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
              const field = findField(resource, target);
              const profile = profiles[position] ?? { filled: 0, sample: [] };
              const examples = profile.sample.slice(0, 3);
              const renamed = metadataKeyFix(target);
              const transform = transformOf(column);
              const suggested = suggestion.columns[column];
              const reasons =
                target !== "" && suggested?.target === target ? suggested.reasons : [];
              const fit = field ? valueFit(field, profile.sample, transform) : null;
              const described = describeTransform(transform);
              const noteId = `mapping-note-${position}`;
              return (
                <Fragment key={column}>
                  <tr className="align-top">
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
                      title={examples.join(" · ")}
                    >
                      {examples.join(" · ") || (
                        <span className="text-slate-400">every row is empty</span>
                      )}
                    </td>
                    <td className="px-3 py-2">
                      <div className="flex flex-wrap items-center gap-2">
                        <Select
                          aria-label={`Field for column ${column}`}
                          aria-describedby={noteId}
                          className="mt-0"
                          value={metadata ? METADATA_CHOICE : target}
                          onChange={(event) => choose(column, event.target.value)}
                        >
                          <option value="">Ignore this column</option>
                          {fields.map((item) => (
                            <option key={item.key} value={item.key}>
                              {item.label} ({item.key}){item.required ? " — required" : ""}
                            </option>
                          ))}
                          {resource === "users" && (
                            <option value={METADATA_CHOICE}>Metadata item…</option>
                          )}
                        </Select>
                        {reasons.includes("similar name") && (
                          <Badge tone="warning">similar name</Badge>
                        )}
                        {metadata && (
                          <div className="w-40">
                            <Input
                              aria-label={`Metadata key for column ${column}`}
                              aria-invalid={renamed !== null}
                              value={metadataKeyOf(target)}
                              onChange={(event) =>
                                onChange(
                                  { ...mapping, [column]: METADATA_PREFIX + event.target.value },
                                  transforms,
                                )
                              }
                            />
                          </div>
                        )}
                      </div>
                      <div id={noteId} className="mt-1 space-y-1 text-xs">
                        {reasons.length > 0 && (
                          <p className="text-slate-600" data-testid="mapping-reason">
                            Suggested: {reasons.join("; ")}.
                          </p>
                        )}
                        {target === "" && suggested?.passedOver && (
                          <p className="text-slate-600" data-testid="mapping-passed-over">
                            Not suggested. {suggested.passedOver.reason}
                          </p>
                        )}
                        {described.length > 0 && (
                          <p className="text-indigo-800" data-testid="mapping-transform">
                            Transform: {described.join("; ")}.
                          </p>
                        )}
                        {field?.kind === "timestamp" && (
                          <TimestampUnit values={profile.sample} chosen={transform?.unit} />
                        )}
                        {fit && (
                          <p className="text-amber-800" data-testid="mapping-mismatch">
                            {fit.message}
                          </p>
                        )}
                        {renamed !== null && (
                          <p className="text-red-700">
                            A metadata key cannot hold a comma.{" "}
                            <Button
                              size="sm"
                              variant="secondary"
                              onClick={() =>
                                onChange(
                                  { ...mapping, [column]: METADATA_PREFIX + renamed },
                                  transforms,
                                )
                              }
                            >
                              Rename to &ldquo;{renamed}&rdquo;
                            </Button>
                          </p>
                        )}
                      </div>
                      {target !== "" && editing !== column && (
                        <button
                          type="button"
                          className={classNames(
                            "mt-1 rounded text-xs font-medium text-indigo-700 hover:underline",
                            focusRing,
                          )}
                          aria-label={`${transform ? "Change the transform" : "Transform the values"} of column ${column}`}
                          onClick={() => setEditing(column)}
                        >
                          {transform ? "Change the transform…" : "Transform the values…"}
                        </button>
                      )}
                    </td>
                  </tr>
                  {editing === column && target !== "" && (
                    <tr>
                      <td colSpan={4} className="px-3 pb-3">
                        <TransformForm
                          column={column}
                          field={field}
                          sample={profile.sample}
                          transform={transform}
                          onApply={(next) => applyTransform(column, next)}
                          onCancel={() => setEditing(null)}
                        />
                      </td>
                    </tr>
                  )}
                </Fragment>
              );
            })}
          </tbody>
        </table>
      </div>
      <MappingProblems problems={problems} />
    </div>
  );
}

/** Columns whose first values do not fit the field they fill: worth a second look. */
function ValueMismatches({
  mismatches,
}: {
  mismatches: Array<{ column: string; field: ImportField }>;
}) {
  if (mismatches.length === 0) return null;
  return (
    <Alert tone="warning" title="Check these columns: some values do not fit their field">
      <ul className="list-disc pl-5">
        {mismatches.map(({ column, field }) => (
          <li key={column}>
            &ldquo;{column}&rdquo; fills {field.label}
          </li>
        ))}
      </ul>
      <p className="mt-1">
        Rows with such values are marked in the preview. Choose another field, or transform the
        values.
      </p>
    </Alert>
  );
}

/** What keeps the mapping from being validated. */
function MappingProblems({ problems }: { problems: string[] }) {
  if (problems.length === 0) return null;
  return (
    <Alert tone="error" title="Finish the mapping">
      <ul className="list-disc pl-5">
        {problems.map((problem) => (
          <li key={problem}>{problem}</li>
        ))}
      </ul>
    </Alert>
  );
}

/** Which unit a time column holds: the one chosen, or as read from its first values. */
function TimestampUnit({ values, chosen }: { values: string[]; chosen?: TimestampUnitName }) {
  const unit = chosen ?? detectTimestampUnit(values);
  return (
    <p className={unit ? "text-slate-600" : "text-red-700"} data-testid="timestamp-unit">
      {chosen
        ? `Read as ${chosen}, as chosen`
        : unit
          ? `Read as ${unit}`
          : "Not a time the console can read"}
    </p>
  );
}
