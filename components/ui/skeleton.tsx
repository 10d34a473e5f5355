import { classNames } from "./class-names";

/** A grey placeholder block while data loads; hidden from assistive technology. */
export function Skeleton({ className }: { className?: string }) {
  return (
    <div
      aria-hidden="true"
      className={classNames("animate-pulse rounded bg-slate-200", className)}
    />
  );
}
