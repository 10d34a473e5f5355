"use client";

import { useId, useRef, useState, type DragEvent } from "react";
import { Button } from "@/components/ui/button";
import { classNames } from "@/components/ui/class-names";
import { formatBytes } from "@/lib/imports/parse/sniff";
import { MAX_EXPORT_TEXT_BYTES, MAX_EXPORT_MESSAGES } from "@/lib/imports/sources";

export type ExportDropProps = { onFiles: (files: File[]) => void; disabled?: boolean };

/** Where the export is dropped: one ZIP, or JSON/JSONL files (several at once for Discord). */
export function ExportDrop({ onFiles, disabled }: ExportDropProps) {
  const inputRef = useRef<HTMLInputElement>(null);
  const [dragging, setDragging] = useState(false);
  const hintId = useId();

  function onDrop(event: DragEvent) {
    event.preventDefault();
    setDragging(false);
    const files = [...event.dataTransfer.files];
    if (files.length > 0 && !disabled) onFiles(files);
  }

  return (
    <div
      onDragOver={(event) => {
        event.preventDefault();
        if (!disabled) setDragging(true);
      }}
      onDragLeave={() => setDragging(false)}
      onDrop={onDrop}
      data-testid="export-drop-zone"
      className={classNames(
        "flex flex-col items-center gap-3 rounded-lg border-2 border-dashed px-6 py-10 text-center",
        dragging ? "border-indigo-500 bg-indigo-50" : "border-slate-300 bg-slate-50",
      )}
    >
      <p className="text-sm font-medium text-slate-900">Drop the export here, or</p>
      <Button
        variant="secondary"
        disabled={disabled}
        onClick={() => inputRef.current?.click()}
        aria-describedby={hintId}
      >
        Choose the export
      </Button>
      <input
        ref={inputRef}
        type="file"
        multiple
        aria-label="Export to import"
        accept=".zip,.json,.jsonl,application/zip,application/json"
        className="sr-only"
        tabIndex={-1}
        disabled={disabled}
        onChange={(event) => {
          const files = [...(event.target.files ?? [])];
          event.target.value = "";
          if (files.length > 0) onFiles(files);
        }}
      />
      <p id={hintId} className="max-w-lg text-xs text-slate-600">
        A Slack workspace export (its ZIP), DiscordChatExporter JSON files (one or several, or a ZIP
        of them), or a Mattermost bulk export (its ZIP, or the JSONL file). It is read here, in your
        browser, a piece at a time: up to {formatBytes(MAX_EXPORT_TEXT_BYTES)} of text and{" "}
        {MAX_EXPORT_MESSAGES.toLocaleString("en-US")} messages.
      </p>
    </div>
  );
}
