import Link from "next/link";
import type { ReactNode } from "react";
import { focusRing } from "@/components/ui/class-names";
import { ConsoleNav } from "./console-nav";
import { SignOutButton } from "./sign-out-button";
import { TargetSwitcher, type TargetSwitcherProps } from "./target-switcher";

export type ConsoleShellProps = { children: ReactNode; targets: TargetSwitcherProps };

export function ConsoleShell({ children, targets }: ConsoleShellProps) {
  return (
    <div className="flex min-h-dvh flex-col">
      <a
        href="#main"
        className="sr-only z-50 rounded-md bg-white px-3 py-2 text-sm font-medium text-indigo-700 shadow focus:not-sr-only focus:fixed focus:top-2 focus:left-2"
      >
        Skip to content
      </a>
      <header className="sticky top-0 z-30 border-b border-slate-200 bg-white/95 backdrop-blur">
        <div className="flex h-14 items-center justify-between gap-4 px-4 md:px-6">
          <Link
            href="/"
            className={`flex items-center gap-2 rounded-md font-semibold text-slate-900 ${focusRing}`}
          >
            <span
              aria-hidden="true"
              className="grid size-7 place-items-center rounded-md bg-indigo-600 text-sm text-white"
            >
              S
            </span>
            <span className="hidden sm:inline">Switchboard</span>
          </Link>
          <div className="flex min-w-0 items-center gap-3">
            <TargetSwitcher {...targets} />
            <SignOutButton />
          </div>
        </div>
        <nav
          aria-label="Console sections"
          className="border-t border-slate-100 px-2 py-1.5 md:hidden"
        >
          <ConsoleNav orientation="horizontal" />
        </nav>
      </header>
      <div className="flex flex-1">
        <nav
          aria-label="Console"
          className="hidden w-56 shrink-0 border-r border-slate-200 bg-white p-3 md:block"
        >
          <ConsoleNav orientation="vertical" />
        </nav>
        <main
          id="main"
          tabIndex={-1}
          className="min-w-0 flex-1 px-4 py-6 outline-none md:px-8 md:py-8"
        >
          <div className="mx-auto max-w-5xl">{children}</div>
        </main>
      </div>
    </div>
  );
}
