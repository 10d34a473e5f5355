"use client";

import { useEffect } from "react";
import type { DraftSave } from "./use-draft-persistence";
import { hasWork, type WizardState } from "./wizard-state";

export const LEAVE_QUESTION =
  "Your import has changes that are not saved yet. Leave this page anyway?";

/**
 * Whether leaving now would lose work: the administrator has worked on a file and that work is
 * not safely in the draft yet, or a cell editor holds text not applied yet. Once the rows are
 * being sent the job holds them, and the page moves on by itself.
 */
export function workAtRisk(state: WizardState, save: DraftSave, editorOpen: boolean): boolean {
  return hasWork(state) && (save !== "saved" || editorOpen) && state.activity !== "uploading";
}

type LinkClick = Pick<MouseEvent, "defaultPrevented" | "preventDefault" | "stopPropagation"> & {
  target: EventTarget | null;
};

/**
 * The two ways out of the page while work is at risk: closing or reloading it (the browser asks
 * in its own words) and following a link inside the console, which a client-side navigation
 * would otherwise take without asking.
 */
export function leaveListeners(confirm: (question: string) => boolean) {
  return {
    beforeUnload(event: Pick<Event, "preventDefault">) {
      event.preventDefault();
    },
    click(event: LinkClick) {
      const link = (event.target as Element | null)?.closest?.("a[href]");
      if (!link || event.defaultPrevented) return;
      if (!confirm(LEAVE_QUESTION)) {
        event.preventDefault();
        event.stopPropagation();
      }
    },
  };
}

/** Listens on `page` (the window) and `links` (the document, capturing); returns the undo. */
export function guardLeaving(
  page: EventTarget,
  links: EventTarget,
  confirm: (question: string) => boolean,
): () => void {
  const listeners = leaveListeners(confirm);
  const onClick = (event: Event) => listeners.click(event as MouseEvent);
  page.addEventListener("beforeunload", listeners.beforeUnload);
  links.addEventListener("click", onClick, true);
  return () => {
    page.removeEventListener("beforeunload", listeners.beforeUnload);
    links.removeEventListener("click", onClick, true);
  };
}

/** Asks before the page is left while `atRisk` holds. */
export function useLeaveGuard(atRisk: boolean): void {
  useEffect(() => {
    if (!atRisk) return;
    return guardLeaving(window, document, (question) => window.confirm(question));
  }, [atRisk]);
}
