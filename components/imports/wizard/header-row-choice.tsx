"use client";

import { Label } from "@/components/ui/label";

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
      <select
        id="import-header-row"
        className="mt-1 block h-9 w-full rounded-md border border-slate-300 bg-white px-2 text-sm"
        value={value}
        disabled={disabled}
        onChange={(event) => onChange(Number(event.target.value))}
      >
        {sample.map((record, row) => (
          <option key={row} value={row}>
            Row {row + 1}: {record.slice(0, 4).join(", ").slice(0, 80) || "(empty)"}
          </option>
        ))}
      </select>
      <p className="mt-1 text-xs text-slate-500">The row that names the columns; rows above it are skipped.</p>
    </div>
  );
}
