"use client";

import { zodResolver } from "@hookform/resolvers/zod";
import { useId, useState } from "react";
import { useForm } from "react-hook-form";
import { Button } from "@/components/ui/button";
import { Label } from "@/components/ui/label";
import { Select } from "@/components/ui/select";
import { TextField } from "@/components/ui/text-field";
import {
  findReplaceSchema,
  type FindReplace,
  type FindReplaceValues,
} from "@/lib/imports/find-replace";
import { counted } from "@/lib/text/counted";

/** Replaces in every row of the file; resolves with the number of cells changed. */
export type ReplaceInColumn = (
  column: number,
  find: string,
  replacement: string,
  wholeCell: boolean,
) => Promise<number>;

export type FindReplaceFormProps = { columns: string[]; busy: boolean; onReplace: ReplaceInColumn };

/** One value replaced in one column, in every row of the file (not only those shown). */
export function FindReplaceForm({ columns, busy, onReplace }: FindReplaceFormProps) {
  const id = useId();
  const [result, setResult] = useState<string | null>(null);
  const form = useForm<FindReplaceValues, unknown, FindReplace>({
    resolver: zodResolver(findReplaceSchema(columns.length)),
    defaultValues: { column: "0", find: "", replacement: "", wholeCell: false },
  });
  const { errors, isSubmitting } = form.formState;

  const onSubmit = form.handleSubmit(async ({ column, find, replacement, wholeCell }) => {
    const changed = await onReplace(column, find, replacement, wholeCell);
    const name = columns[column];
    setResult(
      changed === 0
        ? `No cell of ${name} matches.`
        : `Replaced in ${counted(changed, "cell")} of ${name}.`,
    );
  });

  return (
    <form
      id={id}
      aria-label="Find and replace in a column"
      onSubmit={(event) => void onSubmit(event)}
      noValidate
      className="flex flex-wrap items-start gap-3 rounded-md border border-slate-200 bg-slate-50 p-3"
    >
      <div className="flex flex-col gap-1">
        <Label htmlFor={`${id}-column`}>Column</Label>
        <Select id={`${id}-column`} className="mt-0" {...form.register("column")}>
          {columns.map((name, position) => (
            <option key={name} value={position}>
              {name}
            </option>
          ))}
        </Select>
      </div>
      <TextField
        id={`${id}-find`}
        label="Find"
        className="w-48"
        autoComplete="off"
        spellCheck={false}
        error={errors.find?.message}
        {...form.register("find")}
      />
      <TextField
        id={`${id}-replace`}
        label="Replace with"
        className="w-48"
        autoComplete="off"
        spellCheck={false}
        error={errors.replacement?.message}
        {...form.register("replacement")}
      />
      <label className="mt-7 flex items-center gap-2 text-sm text-slate-700">
        <input type="checkbox" {...form.register("wholeCell")} />
        Match whole cells only (empty matches empty cells)
      </label>
      <Button type="submit" size="sm" className="mt-6" disabled={busy} pending={isSubmitting}>
        Replace all
      </Button>
      {result && (
        <p role="status" className="basis-full text-sm text-slate-700">
          {result}
        </p>
      )}
    </form>
  );
}
