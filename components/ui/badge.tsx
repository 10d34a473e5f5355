import type { ReactNode } from "react";
import { classNames } from "./class-names";

const tones = {
  neutral: "bg-slate-100 text-slate-700 ring-slate-200",
  success: "bg-emerald-50 text-emerald-700 ring-emerald-200",
  warning: "bg-amber-50 text-amber-800 ring-amber-200",
  danger: "bg-red-50 text-red-700 ring-red-200",
  accent: "bg-indigo-50 text-indigo-700 ring-indigo-200",
} as const;

export type BadgeProps = { tone?: keyof typeof tones; children: ReactNode };

export function Badge({ tone = "neutral", children }: BadgeProps) {
  return (
    <span
      className={classNames(
        "inline-flex items-center rounded-full px-2 py-0.5 text-xs font-medium ring-1 ring-inset",
        tones[tone],
      )}
    >
      {children}
    </span>
  );
}
