"use client";

import { useId, useRef, useState, type DragEvent } from "react";
import { Button } from "@/components/ui/button";
import { classNames } from "@/components/ui/class-names";
import { formatBytes } from "@/lib/imports/parse/sniff";
import { MAX_IMPORT_BYTES, MAX_IMPORT_ROWS } from "@/lib/imports/types";

export type FileStepProps = {
  onFile: (file: File) => void;
  disabled?: boolean;
  /** The kind's limits (`importLimits`); messages take larger files. */
  limits?: { bytes: number; rows: number };
};

/** A file input the keyboard reaches by its button, and a drop zone around it for the mouse. */
export function FileStep({
  onFile,
  disabled,
  limits = { bytes: MAX_IMPORT_BYTES, rows: MAX_IMPORT_ROWS },
}: FileStepProps) {
  const inputRef = useRef<HTMLInputElement>(null);
  const [dragging, setDragging] = useState(false);
  const hintId = useId();

  function onDrop(event: DragEvent) {
    event.preventDefault();
    setDragging(false);
    const file = event.dataTransfer.files[0];
    if (file && !disabled) onFile(file);
  }

  return (
    <div
      onDragOver={(event) => {
        event.preventDefault();
        if (!disabled) setDragging(true);
      }}
      onDragLeave={() => setDragging(false)}
      onDrop={onDrop}
      data-testid="import-drop-zone"
      className={classNames(
        "flex flex-col items-center gap-3 rounded-lg border-2 border-dashed px-6 py-10 text-center",
        dragging ? "border-indigo-500 bg-indigo-50" : "border-slate-300 bg-slate-50",
      )}
    >
      <p className="text-sm font-medium text-slate-900">Drop a file here, or</p>
      <Button
        variant="secondary"
        disabled={disabled}
        onClick={() => inputRef.current?.click()}
        aria-describedby={hintId}
      >
        Choose a file
      </Button>
      <input
        ref={inputRef}
        type="file"
        aria-label="File to import"
        accept=".csv,.tsv,.tab,.txt,.json,.ndjson,.jsonl,.xlsx,text/csv,text/tab-separated-values,application/json,application/vnd.openxmlformats-officedocument.spreadsheetml.sheet"
        className="sr-only"
        tabIndex={-1}
        disabled={disabled}
        onChange={(event) => {
          const file = event.target.files?.[0];
          // Cleared so that choosing the same file again (after fixing it) is seen.
          event.target.value = "";
          if (file) onFile(file);
        }}
      />
      <p id={hintId} className="max-w-md text-xs text-slate-600">
        CSV, TSV, JSON (an array of objects), NDJSON (all UTF-8) or an Excel workbook (.xlsx), up to{" "}
        {formatBytes(limits.bytes)} and {limits.rows.toLocaleString("en-US")} rows. In CSV, TSV and
        workbooks a header row names the columns (the console finds it, and you can choose another);
        in JSON and NDJSON, each object&apos;s keys do.
      </p>
    </div>
  );
}
