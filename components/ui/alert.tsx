import type { ReactNode } from "react";
import { classNames } from "./class-names";

const tones = {
  error: "border-red-200 bg-red-50 text-red-800",
  success: "border-emerald-200 bg-emerald-50 text-emerald-800",
  info: "border-sky-200 bg-sky-50 text-sky-900",
  warning: "border-amber-200 bg-amber-50 text-amber-900",
} as const;

export type AlertProps = {
  tone: keyof typeof tones;
  title?: string;
  children: ReactNode;
  className?: string;
};

/** A message box; errors are announced at once (role=alert), others politely (role=status). */
export function Alert({ tone, title, children, className }: AlertProps) {
  return (
    <div
      role={tone === "error" ? "alert" : "status"}
      className={classNames("rounded-md border px-3.5 py-2.5 text-sm", tones[tone], className)}
    >
      {title && <p className="font-medium">{title}</p>}
      <div>{children}</div>
    </div>
  );
}
