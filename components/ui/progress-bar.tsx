import { Progress as ProgressPrimitive } from "radix-ui";

export type ProgressProps = { label: string; value: number; max: number; className?: string };

/** The bar itself (Radix Progress: role, aria values and states), filled to `value` of `max`. */
export function Progress({ label, value, max, className }: ProgressProps) {
  const safeMax = max > 0 ? max : 1;
  const safeValue = Math.min(Math.max(0, value), safeMax);
  return (
    <ProgressPrimitive.Root
      aria-label={label}
      value={safeValue}
      max={safeMax}
      className={`h-2 overflow-hidden rounded-full bg-slate-100 ${className ?? ""}`}
    >
      <ProgressPrimitive.Indicator
        className="h-full rounded-full bg-indigo-600 transition-[width]"
        style={{ width: `${(safeValue / safeMax) * 100}%` }}
      />
    </ProgressPrimitive.Root>
  );
}

export type ProgressBarProps = { label: string; done: number; total: number };

/** A labelled bar with the numbers spoken out, for reading, validating and uploading. */
export function ProgressBar({ label, done, total }: ProgressBarProps) {
  const percent = total > 0 ? Math.min(100, Math.round((done / total) * 100)) : 0;
  return (
    <div className="space-y-1.5">
      <div className="flex justify-between text-sm text-slate-700">
        <span>{label}</span>
        <span className="tabular-nums">{percent}%</span>
      </div>
      <Progress label={label} value={percent} max={100} />
    </div>
  );
}
