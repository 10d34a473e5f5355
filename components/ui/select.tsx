import type { ComponentProps } from "react";
import { classNames, focusRing } from "./class-names";

export type SelectProps = ComponentProps<"select">;

/** The native select: keyboard, screen readers and mobile pickers work as users expect. */
export function Select({ className, ...props }: SelectProps) {
  return (
    <select
      className={classNames(
        "mt-1 block h-9 rounded-md border border-slate-300 bg-white px-2 text-sm text-slate-900 shadow-sm",
        focusRing,
        "focus-visible:ring-offset-0",
        className,
      )}
      {...props}
    />
  );
}
