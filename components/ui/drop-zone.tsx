"use client";

import { useId, useRef, useState, type ReactNode } from "react";
import { Button } from "@/components/ui/button";
import { classNames } from "@/components/ui/class-names";

export type DropZoneProps = {
  /** The files dropped or chosen: never empty; one unless `multiple`. */
  onFiles: (files: File[]) => void;
  disabled?: boolean;
  multiple?: boolean;
  /** The file input's `accept`. */
  accept: string;
  /** What the zone says above its button ("Drop a file here, or"). */
  prompt: string;
  buttonLabel: string;
  /** The hidden input's accessible name. */
  inputLabel: string;
  /** What can be chosen, and its limits: the button's description. */
  hint: ReactNode;
  testId: string;
};

/**
 * A file input the keyboard reaches by its button, and a drop zone around it for the mouse.
 * The input is cleared after each choice, so choosing the same file again (after fixing it)
 * is seen.
 */
export function DropZone({
  onFiles,
  disabled,
  multiple = false,
  accept,
  prompt,
  buttonLabel,
  inputLabel,
  hint,
  testId,
}: DropZoneProps) {
  const inputRef = useRef<HTMLInputElement>(null);
  const [dragging, setDragging] = useState(false);
  const hintId = useId();
  const take = (list: FileList | null) => {
    const files = [...(list ?? [])];
    if (files.length > 0) onFiles(multiple ? files : files.slice(0, 1));
  };

  return (
    <div
      onDragOver={(event) => {
        event.preventDefault();
        if (!disabled) setDragging(true);
      }}
      onDragLeave={() => setDragging(false)}
      onDrop={(event) => {
        event.preventDefault();
        setDragging(false);
        if (!disabled) take(event.dataTransfer.files);
      }}
      data-testid={testId}
      className={classNames(
        "flex flex-col items-center gap-3 rounded-lg border-2 border-dashed px-6 py-10 text-center",
        dragging ? "border-indigo-500 bg-indigo-50" : "border-slate-300 bg-slate-50",
      )}
    >
      <p className="text-sm font-medium text-slate-900">{prompt}</p>
      <Button
        variant="secondary"
        disabled={disabled}
        onClick={() => inputRef.current?.click()}
        aria-describedby={hintId}
      >
        {buttonLabel}
      </Button>
      <input
        ref={inputRef}
        type="file"
        multiple={multiple}
        aria-label={inputLabel}
        accept={accept}
        className="sr-only"
        tabIndex={-1}
        disabled={disabled}
        onChange={(event) => {
          const files = event.target.files;
          take(files);
          event.target.value = "";
        }}
      />
      <p id={hintId} className="max-w-lg text-xs text-slate-600">
        {hint}
      </p>
    </div>
  );
}
