"use client";

import { Switch as SwitchPrimitive } from "radix-ui";
import type { ComponentProps } from "react";
import { classNames, focusRing } from "./class-names";

export type SwitchProps = ComponentProps<typeof SwitchPrimitive.Root>;

/** An on/off toggle (role=switch); give it a Label via `id` or an aria-label. */
export function Switch({ className, ...props }: SwitchProps) {
  return (
    <SwitchPrimitive.Root
      className={classNames(
        "relative inline-flex h-5 w-9 shrink-0 cursor-pointer rounded-full bg-slate-300 transition-colors disabled:cursor-not-allowed disabled:opacity-50 data-[state=checked]:bg-indigo-600",
        focusRing,
        className,
      )}
      {...props}
    >
      <SwitchPrimitive.Thumb className="pointer-events-none mt-0.5 ml-0.5 block size-4 rounded-full bg-white shadow transition-transform data-[state=checked]:translate-x-4" />
    </SwitchPrimitive.Root>
  );
}
