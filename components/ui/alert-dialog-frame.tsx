"use client";

import { AlertDialog } from "radix-ui";
import type { ReactNode } from "react";
import { Button } from "./button";

export type AlertDialogFrameProps = {
  open: boolean;
  onOpenChange: (open: boolean) => void;
  /** The element that opens the dialog, when the dialog owns its trigger. */
  trigger?: ReactNode;
  title: string;
  description: ReactNode;
  /** What the dialog shows between the description and its buttons. */
  children?: ReactNode;
  confirmLabel: string;
  tone?: "danger" | "primary";
  /** While true the dialog cannot be closed and the confirm button shows progress. */
  pending: boolean;
  /** The confirm button is off until the dialog's questions are answered. */
  confirmDisabled?: boolean;
  onConfirm: () => void;
  size?: "md" | "lg";
};

/** The frame of every "are you sure?" dialog: Cancel, and a confirm button that stays until the work is done. */
export function AlertDialogFrame({
  open,
  onOpenChange,
  trigger,
  title,
  description,
  children,
  confirmLabel,
  tone = "primary",
  pending,
  confirmDisabled = false,
  onConfirm,
  size = "md",
}: AlertDialogFrameProps) {
  return (
    <AlertDialog.Root open={open} onOpenChange={(next) => !pending && onOpenChange(next)}>
      {trigger && <AlertDialog.Trigger asChild>{trigger}</AlertDialog.Trigger>}
      <AlertDialog.Portal>
        <AlertDialog.Overlay className="fixed inset-0 z-40 bg-slate-900/40" />
        <AlertDialog.Content
          className={`fixed top-1/2 left-1/2 z-50 max-h-[90vh] w-[calc(100vw-2rem)] -translate-x-1/2 -translate-y-1/2 overflow-y-auto rounded-lg bg-white p-6 shadow-xl focus:outline-none ${size === "lg" ? "max-w-lg" : "max-w-md"}`}
        >
          <AlertDialog.Title className="text-lg font-semibold text-slate-900">
            {title}
          </AlertDialog.Title>
          <AlertDialog.Description asChild>
            <div className="mt-2 text-sm text-slate-600">{description}</div>
          </AlertDialog.Description>
          {children}
          <div className="mt-6 flex justify-end gap-2">
            <AlertDialog.Cancel asChild>
              <Button variant="secondary" disabled={pending}>
                Cancel
              </Button>
            </AlertDialog.Cancel>
            {/* Not AlertDialog.Action: that would close the dialog before the request finishes. */}
            <Button variant={tone} pending={pending} disabled={confirmDisabled} onClick={onConfirm}>
              {confirmLabel}
            </Button>
          </div>
        </AlertDialog.Content>
      </AlertDialog.Portal>
    </AlertDialog.Root>
  );
}
