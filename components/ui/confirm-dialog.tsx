"use client";

import { useState, type ReactNode } from "react";
import { Alert } from "./alert";
import { AlertDialogFrame } from "./alert-dialog-frame";

export type ConfirmDialogProps = {
  /** The element that opens the dialog (a Button). */
  trigger: ReactNode;
  title: string;
  description: ReactNode;
  confirmLabel: string;
  tone?: "danger" | "primary";
  /** Resolves to an error message to show, or null when done (the dialog then closes). */
  onConfirm: () => Promise<string | null>;
};

/** Asks before something that cannot be undone; keeps itself open and shows why if it fails. */
export function ConfirmDialog({ tone = "danger", onConfirm, ...frame }: ConfirmDialogProps) {
  const [open, setOpen] = useState(false);
  const [pending, setPending] = useState(false);
  const [error, setError] = useState<string | null>(null);

  async function confirm() {
    setPending(true);
    setError(null);
    const message = await onConfirm().catch(
      () => "The request did not reach the server. Try again.",
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
