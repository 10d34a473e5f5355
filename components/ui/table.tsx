import type { ComponentProps, ReactNode } from "react";
import { classNames } from "./class-names";

export type TableProps = ComponentProps<"table"> & {
  /** The column headings, in order. */
  columns: readonly ReactNode[];
  /** Space between columns: `compact` for dense reports. */
  density?: "regular" | "compact";
};

/** A plain data table: a labelled `<table>` with its heading row; the rows are the children (`<tr>`s). */
export function Table({ columns, density = "regular", className, children, ...props }: TableProps) {
  const gap = density === "compact" ? "pr-3" : "pr-4";
  return (
    <table className={classNames("w-full text-left text-sm", className)} {...props}>
      <thead className="border-b border-slate-200 text-xs text-slate-500 uppercase">
        <tr>
          {columns.map((column, at) => (
            <th key={at} className={classNames("py-2 font-medium", at < columns.length - 1 && gap)}>
              {column}
            </th>
          ))}
        </tr>
      </thead>
      <tbody className="divide-y divide-slate-100">{children}</tbody>
    </table>
  );
}
