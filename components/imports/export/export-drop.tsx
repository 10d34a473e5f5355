"use client";

import { DropZone } from "@/components/ui/drop-zone";
import { formatBytes } from "@/lib/imports/parse/sniff";
import { MAX_EXPORT_TEXT_BYTES, MAX_EXPORT_MESSAGES } from "@/lib/imports/sources";

export type ExportDropProps = { onFiles: (files: File[]) => void; disabled?: boolean };

/** Where the export is dropped: one ZIP, or JSON/JSONL files (several at once for Discord). */
export function ExportDrop({ onFiles, disabled }: ExportDropProps) {
  return (
    <DropZone
      onFiles={onFiles}
      disabled={disabled}
      multiple
      accept=".zip,.json,.jsonl,application/zip,application/json"
      prompt="Drop the export here, or"
      buttonLabel="Choose the export"
      inputLabel="Export to import"
      testId="export-drop-zone"
      hint={
        <>
          A Slack workspace export (its ZIP), DiscordChatExporter JSON files (one or several, or a
          ZIP of them), or a Mattermost bulk export (its ZIP, or the JSONL file). It is read here,
          in your browser, a piece at a time: up to {formatBytes(MAX_EXPORT_TEXT_BYTES)} of text and{" "}
          {MAX_EXPORT_MESSAGES.toLocaleString("en-US")} messages.
        </>
      }
    />
  );
}
