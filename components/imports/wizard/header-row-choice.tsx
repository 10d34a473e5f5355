"use client";

import { Label } from "@/components/ui/label";
import { Select } from "@/components/ui/select";

export type HeaderRowChoiceProps = {
  sample: string[][];
  value: number;
  onChange: (headerRow: number) => void;
  disabled?: boolean;
};

/** For files with a title or notes above the column names. */
export function HeaderRowChoice({ sample, value, onChange, disabled }: HeaderRowChoiceProps) {
  return (
    <div className="max-w-xl">
      <Label htmlFor="import-header-row">Header row</Label>
      <Select
        id="import-header-row"
        className="w-full"
        value={value}
        disabled={disabled}
        onChange={(event) => onChange(Number(event.target.value))}
      >
        {sample.map((record, row) => (
          <option key={row} value={row}>
            Row {row + 1}: {record.slice(0, 4).join(", ").slice(0, 80) || "(empty)"}
          </option>
        ))}
      </Select>
      <p className="mt-1 text-xs text-slate-500">
        The row that names the columns; rows above it are skipped.
      </p>
    </div>
  );
}
