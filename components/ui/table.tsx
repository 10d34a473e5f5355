import type { ComponentProps, ReactNode } from "react";
import { classNames } from "./class-names";

export type TableProps = ComponentProps<"table"> & {
  /** The column headings, in order. */
  columns: readonly ReactNode[];
  /**
   * Space between columns: `compact` for dense reports, `dense` (smaller text too) for a table
   * nested in a panel or dialog.
   */
  density?: "regular" | "compact" | "dense";
  /** Names the table for screen readers, where no visible heading does. */
  caption?: string;
};

const densities = {
  regular: { text: "text-sm", cell: "py-2", gap: "pr-4" },
  compact: { text: "text-sm", cell: "py-2", gap: "pr-3" },
  dense: { text: "text-xs", cell: "py-1", gap: "pr-3" },
};

/** A plain data table: a labelled `<table>` with its heading row; the rows are the children (`<tr>`s). */
export function Table({
  columns,
  density = "regular",
  caption,
  className,
  children,
  ...props
}: TableProps) {
  const { text, cell, gap } = densities[density];
  // Wider than the screen (a phone), the table scrolls by itself; the page does not.
  return (
    <div className="max-w-full overflow-x-auto">
      <table className={classNames("w-full text-left", text, className)} {...props}>
        {caption && <caption className="sr-only">{caption}</caption>}
        <thead className="border-b border-slate-200 text-xs text-slate-500 uppercase">
          <tr>
            {columns.map((column, at) => (
              <th
                key={at}
                scope="col"
                className={classNames(cell, "font-medium", at < columns.length - 1 && gap)}
              >
                {column}
              </th>
            ))}
          </tr>
        </thead>
        <tbody className="divide-y divide-slate-100">{children}</tbody>
      </table>
    </div>
  );
}
