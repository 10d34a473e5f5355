"use client";

import Link from "next/link";
import { usePathname } from "next/navigation";
import { classNames, focusRing } from "@/components/ui/class-names";
import { consoleSections } from "./console-sections";

function isCurrent(pathname: string, href: string): boolean {
  return href === "/" ? pathname === "/" : pathname === href || pathname.startsWith(`${href}/`);
}

export type ConsoleNavProps = {
  /** Sidebar on wide screens, a row of tabs on narrow ones. */
  orientation: "vertical" | "horizontal";
};

export function ConsoleNav({ orientation }: ConsoleNavProps) {
  const pathname = usePathname();
  const vertical = orientation === "vertical";
  return (
    <ul className={vertical ? "space-y-1" : "flex gap-1 overflow-x-auto"}>
      {consoleSections.map((section) => {
        const current = isCurrent(pathname, section.href);
        return (
          <li key={section.href}>
            <Link
              href={section.href}
              aria-current={current ? "page" : undefined}
              className={classNames(
                "block rounded-md px-3 py-2 text-sm font-medium whitespace-nowrap transition-colors",
                focusRing,
                current
                  ? "bg-indigo-50 text-indigo-700"
                  : "text-slate-700 hover:bg-slate-100 hover:text-slate-900",
              )}
            >
              {section.label}
            </Link>
          </li>
        );
      })}
    </ul>
  );
}
