"use client";

import { zodResolver } from "@hookform/resolvers/zod";
import { useEffect, useId } from "react";
import { useForm, useWatch } from "react-hook-form";
import { Button } from "@/components/ui/button";
import { Label } from "@/components/ui/label";
import { Select } from "@/components/ui/select";
import { TextField } from "@/components/ui/text-field";
import { sentAs } from "@/lib/imports/column-values";
import type { ImportField } from "@/lib/imports/fields";
import {
  isEmptyTransform,
  timestampUnits,
  transformFormSchema,
  transformFormValues,
  type ColumnTransform,
  type TransformFormValues,
} from "@/lib/imports/transforms";

export type TransformFormProps = {
  column: string;
  /** The field the column fills; undefined for a metadata item. */
  field: ImportField | undefined;
  /** The column's first values, shown before and after. */
  sample: string[];
  transform: ColumnTransform | undefined;
  onApply: (transform: ColumnTransform | undefined) => void;
  onCancel: () => void;
};

/**
 * What is done to one column's values before they are read: find and replace with a pattern,
 * and, by the field's kind, invert true/false or the unit of a time. The first values show
 * what they will be sent as while the form is filled in.
 */
export function TransformForm({
  column,
  field,
  sample,
  transform,
  onApply,
  onCancel,
}: TransformFormProps) {
  const id = useId();
  const form = useForm<TransformFormValues, unknown, ColumnTransform>({
    resolver: zodResolver(transformFormSchema),
    defaultValues: transformFormValues(transform),
    mode: "onChange",
  });
  const { errors } = form.formState;
  // Opened from the keyboard, the form takes the focus; Escape closes it unchanged.
  useEffect(() => form.setFocus("pattern"), [form]);
  const values = useWatch({ control: form.control });
  // The preview follows what is typed, once it reads as a transform.
  const parsed = transformFormSchema.safeParse({ ...transformFormValues(undefined), ...values });
  const preview = parsed.success ? parsed.data : transform;
  const examples = [...new Set(sample)].slice(0, 4);

  const onSubmit = form.handleSubmit((next) => onApply(isEmptyTransform(next) ? undefined : next));

  return (
    <form
      onSubmit={onSubmit}
      onKeyDown={(event) => {
        if (event.key === "Escape") onCancel();
      }}
      noValidate
      aria-label={`Transform the values of column ${column}`}
      className="space-y-3 rounded-md border border-indigo-200 bg-indigo-50/40 p-3"
    >
      <p className="text-sm font-medium text-slate-900">
        Transform the values of &ldquo;{column}&rdquo; before they are read
        {field ? ` as ${field.label}` : ""}
      </p>
      <div className="flex flex-wrap items-start gap-3">
        <TextField
          id={`${id}-pattern`}
          label="Find (a pattern)"
          className="w-56"
          placeholder="e.g. ^U(\d+)$"
          hint={
            <>
              A regular expression; <code>^$</code> finds empty cells.
            </>
          }
          autoComplete="off"
          spellCheck={false}
          error={errors.pattern?.message}
          {...form.register("pattern")}
        />
        <TextField
          id={`${id}-replacement`}
          label="Replace with"
          className="w-56"
          placeholder="e.g. slack-$1"
          hint={
            <>
              <code>$1</code> is the first group in brackets.
            </>
          }
          autoComplete="off"
          spellCheck={false}
          error={errors.replacement?.message}
          {...form.register("replacement")}
        />
        <label className="mt-7 flex items-center gap-2 text-sm text-slate-700">
          <input type="checkbox" {...form.register("ignoreCase")} />
          Ignore case
        </label>
      </div>
      {field?.kind === "boolean" && (
        <label className="flex items-center gap-2 text-sm text-slate-700">
          <input type="checkbox" {...form.register("invert")} />
          Invert: true becomes false and false becomes true, for a column that says the opposite of
          &ldquo;{field.label}&rdquo; (such as &ldquo;deleted&rdquo;)
        </label>
      )}
      {field?.kind === "timestamp" && (
        <div className="max-w-xs">
          <Label htmlFor={`${id}-unit`}>The values are in</Label>
          <Select id={`${id}-unit`} className="w-full" {...form.register("unit")}>
            <option value="">Detect from each value</option>
            {timestampUnits.map((unit) => (
              <option key={unit} value={unit}>
                {unit === "ISO 8601"
                  ? "ISO 8601 dates (2024-03-01T09:30:00Z)"
                  : `${unit} since 1970`}
              </option>
            ))}
          </Select>
        </div>
      )}
      {examples.length > 0 && (
        <table className="text-xs">
          <caption className="sr-only">First values of {column}, before and after</caption>
          <thead className="text-left text-slate-500">
            <tr>
              <th scope="col" className="pr-4 font-medium">
                In the file
              </th>
              <th scope="col" className="font-medium">
                Sent as
              </th>
            </tr>
          </thead>
          <tbody>
            {examples.map((example) => {
              const after = sentAs(field, example, preview);
              return (
                <tr key={example}>
                  <td className="max-w-64 truncate pr-4 text-slate-600">{example}</td>
                  <td
                    className={
                      after.fits ? "max-w-80 truncate text-slate-900" : "max-w-80 text-amber-800"
                    }
                  >
                    {after.text}
                  </td>
                </tr>
              );
            })}
          </tbody>
        </table>
      )}
      <div className="flex flex-wrap gap-2">
        <Button type="submit" size="sm">
          Apply
        </Button>
        <Button type="button" size="sm" variant="secondary" onClick={onCancel}>
          Cancel
        </Button>
        {transform && (
          <Button type="button" size="sm" variant="ghost" onClick={() => onApply(undefined)}>
            Remove the transform
          </Button>
        )}
      </div>
    </form>
  );
}
