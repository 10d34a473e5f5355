"use client";

import { DropZone } from "@/components/ui/drop-zone";
import { formatBytes } from "@/lib/imports/parse/sniff";
import { MAX_IMPORT_BYTES, MAX_IMPORT_ROWS } from "@/lib/imports/types";

export type FileStepProps = {
  onFile: (file: File) => void;
  disabled?: boolean;
  /** The kind's limits (`importLimits`); messages take larger files. */
  limits?: { bytes: number; rows: number };
};

/** The wizard's first step: one file, dropped or chosen. */
export function FileStep({
  onFile,
  disabled,
  limits = { bytes: MAX_IMPORT_BYTES, rows: MAX_IMPORT_ROWS },
}: FileStepProps) {
  return (
    <DropZone
      onFiles={([file]) => onFile(file!)}
      disabled={disabled}
      accept=".csv,.tsv,.tab,.txt,.json,.ndjson,.jsonl,.xlsx,text/csv,text/tab-separated-values,application/json,application/vnd.openxmlformats-officedocument.spreadsheetml.sheet"
      prompt="Drop a file here, or"
      buttonLabel="Choose a file"
      inputLabel="File to import"
      testId="import-drop-zone"
      hint={
        <>
          CSV, TSV, JSON (an array of objects), NDJSON (all UTF-8) or an Excel workbook (.xlsx), up
          to {formatBytes(limits.bytes)} and {limits.rows.toLocaleString("en-US")} rows. In CSV, TSV
          and workbooks a header row names the columns (the console finds it, and you can choose
          another); in JSON and NDJSON, each object&apos;s keys do.
        </>
      }
    />
  );
}
