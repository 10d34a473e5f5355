import type { ComponentProps } from "react";
import { classNames, focusRing } from "./class-names";

export type InputProps = ComponentProps<"input">;

export function Input({ className, ...props }: InputProps) {
  return (
    <input
      className={classNames(
        "block h-9 w-full rounded-md border border-slate-300 bg-white px-3 text-sm text-slate-900 shadow-sm placeholder:text-slate-400 disabled:bg-slate-50 disabled:text-slate-500 aria-invalid:border-red-500",
        focusRing,
        "focus-visible:ring-offset-0",
        className,
      )}
      {...props}
    />
  );
}
