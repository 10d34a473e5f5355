"use client";

import { useState, type ReactNode } from "react";
import { failureSentence } from "@/lib/actions/action-result";
import { Alert } from "./alert";
import { AlertDialogFrame } from "./alert-dialog-frame";

export type ConfirmDialogProps = {
  /** The element that opens the dialog (a Button). */
  trigger: ReactNode;
  title: string;
  description: ReactNode;
  confirmLabel: string;
  tone?: "danger" | "primary";
  /**
   * Done when it resolves (the dialog then closes); a failure (an ActionFailed from `unwrap`)
   * keeps the dialog open with its sentence.
   */
  onConfirm: () => Promise<unknown>;
};

/** Asks before something that cannot be undone; keeps itself open and shows why if it fails. */
export function ConfirmDialog({ tone = "danger", onConfirm, ...frame }: ConfirmDialogProps) {
  const [open, setOpen] = useState(false);
  const [pending, setPending] = useState(false);
  const [error, setError] = useState<string | null>(null);

  async function confirm() {
    setPending(true);
    setError(null);
    const message = await onConfirm().then(
      () => null,
      (error: unknown) => failureSentence(error),
    );
    setPending(false);
    if (message) setError(message);
    else setOpen(false);
  }

  return (
    <AlertDialogFrame
      {...frame}
      open={open}
      onOpenChange={(next) => {
        setOpen(next);
        if (!next) setError(null);
      }}
      tone={tone}
      pending={pending}
      onConfirm={confirm}
    >
      {error && (
        <Alert tone="error" className="mt-4">
          {error}
        </Alert>
      )}
    </AlertDialogFrame>
  );
}
