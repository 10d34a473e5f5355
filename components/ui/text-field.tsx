import type { ReactNode } from "react";
import { FieldError } from "./field-error";
import { Input, type InputProps } from "./input";
import { Label } from "./label";

export type TextFieldProps = Omit<InputProps, "id" | "className"> & {
  id: string;
  label: string;
  /** Help below the field, read out with it. */
  hint?: ReactNode;
  /** The field's error message; marks the input invalid. */
  error?: string;
  className?: string;
  labelClassName?: string;
  inputClassName?: string;
};

/** Label, input, hint and error wired together, so a form cannot forget aria-describedby. */
export function TextField({
  id,
  label,
  hint,
  error,
  className,
  labelClassName,
  inputClassName,
  ...inputProps
}: TextFieldProps) {
  const hintId = `${id}-hint`;
  const errorId = `${id}-error`;
  return (
    <div className={className}>
      <Label htmlFor={id} className={labelClassName}>
        {label}
      </Label>
      <Input
        id={id}
        className={`mt-1 ${inputClassName ?? ""}`}
        aria-invalid={error ? true : undefined}
        aria-describedby={hint ? `${hintId} ${errorId}` : errorId}
        {...inputProps}
      />
      {hint && (
        <p id={hintId} className="mt-1 text-xs text-slate-500">
          {hint}
        </p>
      )}
      <FieldError id={errorId} message={error} />
    </div>
  );
}
