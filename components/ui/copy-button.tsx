"use client";

import { useEffect, useState } from "react";
import { Button, type ButtonProps } from "./button";

export type CopyButtonProps = Omit<ButtonProps, "onClick" | "children" | "value"> & {
  /** What to copy; may be fetched on demand (e.g. a secret that is not in the page). */
  value: string | (() => Promise<string | null>);
  /** Accessible name, e.g. "Copy API token of local". */
  label: string;
};

export function CopyButton({
  value,
  label,
  variant = "secondary",
  size = "sm",
  ...props
}: CopyButtonProps) {
  const [state, setState] = useState<"idle" | "copied" | "failed">("idle");

  useEffect(() => {
    if (state === "idle") return;
    const timer = setTimeout(() => setState("idle"), 2000);
    return () => clearTimeout(timer);
  }, [state]);

  async function copy() {
    try {
      const text = typeof value === "string" ? value : await value();
      if (text === null) throw new Error("nothing to copy");
      await navigator.clipboard.writeText(text);
      setState("copied");
    } catch {
      // Clipboard access needs a secure context (https or localhost) and permission.
      setState("failed");
    }
  }

  return (
    <Button variant={variant} size={size} aria-label={label} onClick={copy} {...props}>
      <span aria-live="polite">
        {state === "copied" ? "Copied" : state === "failed" ? "Copy failed" : "Copy"}
      </span>
    </Button>
  );
}
