import { Label as LabelPrimitive } from "radix-ui";
import type { ComponentProps } from "react";
import { classNames } from "./class-names";

export type LabelProps = ComponentProps<typeof LabelPrimitive.Root>;

export function Label({ className, ...props }: LabelProps) {
  return (
    <LabelPrimitive.Root
      className={classNames("block text-sm font-medium text-slate-800", className)}
      {...props}
    />
  );
}
