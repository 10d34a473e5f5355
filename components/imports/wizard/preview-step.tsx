"use client";

import { useId, useState } from "react";
import { Alert } from "@/components/ui/alert";
import { Button } from "@/components/ui/button";
import { Card } from "@/components/ui/card";
import { classNames, focusRing } from "@/components/ui/class-names";
import type { ColumnMapping } from "@/lib/imports/fields";
import type { PreviewClient } from "@/lib/imports/parse/preview-client";
import type { PreviewCounts, RowFilter } from "@/lib/imports/parse/protocol";
import type { ColumnTransforms } from "@/lib/imports/transforms";
import type { ImportResource } from "@/lib/imports/types";
import { FindReplaceForm, type ReplaceInColumn } from "./find-replace-form";
import { PreviewGrid } from "./preview-grid";
import { ProgressBar } from "@/components/ui/progress-bar";
import type { UploadState } from "./upload-rows";
import { UnknownSendersChoice } from "./unknown-senders-choice";
import type { ReferenceCheck } from "./use-reference-check";
import { counted } from "@/lib/text/counted";

export type PreviewStepProps = {
  client: PreviewClient;
  session: number;
  resource: ImportResource;
  columns: string[];
  mapping: ColumnMapping;
  transforms: ColumnTransforms;
  counts: PreviewCounts;
  filter: RowFilter;
  onFilter: (filter: RowFilter) => void;
  onEdit: (index: number, column: number, value: string) => Promise<void>;
  onExclude: (index: number, excluded: boolean) => Promise<void>;
  onExcludeErrors: () => Promise<void>;
  onReplace: ReplaceInColumn;
  onEditorOpen: (open: boolean) => void;
  busy: boolean;
  problem: string | null;
  onBack: () => void;
  onRestart: () => void;
  canUpload: boolean;
  upload: UploadState | null;
  uploadError: string | null;
  onUpload: () => void;
  /** The look-up of the channels and users the rows name (not for users imports). */
  references: ReferenceCheck;
  onRetryReferences: () => void;
  /** Messages: whether unknown senders are created as deactivated users, and changing it. */
  createUnknownSenders: boolean;
  onCreateUnknownSenders: (checked: boolean) => void;
};

const filters: Array<{ id: RowFilter; label: string; count: (counts: PreviewCounts) => number }> = [
  { id: "all", label: "All rows", count: (counts) => counts.rows },
  { id: "errors", label: "With errors", count: (counts) => counts.errors },
  { id: "warnings", label: "With warnings", count: (counts) => counts.warnings },
  { id: "excluded", label: "Excluded", count: (counts) => counts.excluded },
];

export function PreviewStep(props: PreviewStepProps) {
  const { counts, filter, onFilter, busy, upload, uploadError } = props;
  const uploading = upload !== null && uploadError === null;
  const stats: Array<{ label: string; value: number; tone: string }> = [
    { label: "Rows", value: counts.rows, tone: "text-slate-900" },
    { label: "Valid", value: counts.valid, tone: "text-emerald-700" },
    { label: "With errors", value: counts.errors, tone: "text-red-700" },
    { label: "With warnings", value: counts.warnings, tone: "text-amber-700" },
    { label: "Excluded", value: counts.excluded, tone: "text-slate-600" },
  ];
  return (
    <Card
      title="Preview"
      description="Every row checked against the platform's rules. Fix a cell by selecting it, or exclude the row; rows with errors are not sent."
      actions={
        <>
          <Button variant="ghost" size="sm" onClick={props.onBack} disabled={busy}>
            Back to mapping
          </Button>
          <Button variant="ghost" size="sm" onClick={props.onRestart} disabled={busy}>
            Choose another file
          </Button>
        </>
      }
    >
      <div className="space-y-4">
        <dl aria-label="Row counts" className="grid grid-cols-2 gap-3 sm:grid-cols-5">
          {stats.map((stat) => (
            <div key={stat.label} className="rounded-md border border-slate-200 px-3 py-2">
              <dt className="text-xs text-slate-600">{stat.label}</dt>
              <dd
                className={classNames("text-lg font-semibold tabular-nums", stat.tone)}
                data-testid={`count-${stat.label.toLowerCase().replaceAll(" ", "-")}`}
              >
                {stat.value.toLocaleString("en-US")}
              </dd>
            </div>
          ))}
        </dl>
        <div
          role="group"
          aria-label="Show rows"
          className="inline-flex flex-wrap rounded-md border border-slate-200 p-0.5"
        >
          {filters.map((item) => (
            <button
              key={item.id}
              type="button"
              aria-pressed={filter === item.id}
              onClick={() => onFilter(item.id)}
              className={classNames(
                "rounded px-3 py-1 text-sm",
                focusRing,
                filter === item.id
                  ? "bg-slate-900 text-white"
                  : "text-slate-700 hover:bg-slate-100",
              )}
            >
              {item.label} ({item.count(counts).toLocaleString("en-US")})
            </button>
          ))}
        </div>
        <BulkActions
          counts={counts}
          columns={props.columns}
          busy={busy || uploading}
          onExcludeErrors={props.onExcludeErrors}
          onReplace={props.onReplace}
        />
        {props.problem && <Alert tone="error">{props.problem}</Alert>}
        <ReferenceStatus
          resource={props.resource}
          check={props.references}
          onRetry={props.onRetryReferences}
        />
        {props.resource === "messages" && (
          <UnknownSendersChoice
            checked={props.createUnknownSenders}
            onChange={props.onCreateUnknownSenders}
            disabled={busy || uploading}
          />
        )}
        <PreviewGrid
          client={props.client}
          session={props.session}
          resource={props.resource}
          columns={props.columns}
          mapping={props.mapping}
          transforms={props.transforms}
          filter={filter}
          expectedTotal={filters.find((item) => item.id === filter)!.count(counts)}
          onEdit={props.onEdit}
          onExclude={props.onExclude}
          onEditorOpen={props.onEditorOpen}
          busy={busy || uploading}
        />
        {upload && <ProgressBar label="Sending rows" done={upload.sent} total={upload.total} />}
        {uploadError && (
          <Alert tone="error" title="The upload stopped">
            {uploadError} Retrying continues from row {(upload?.sent ?? 0) + 1}; rows already sent
            are not sent twice.
          </Alert>
        )}
        <div className="flex flex-wrap items-center justify-end gap-3">
          {props.canUpload ? (
            <>
              <p className="text-sm text-slate-600">
                {counted(counts.valid, "row")} will be planned; {leftOut(counts)}.
              </p>
              <Button
                onClick={props.onUpload}
                disabled={busy || counts.valid === 0}
                pending={uploading}
              >
                {uploadError ? "Retry upload" : "Continue to plan"}
              </Button>
            </>
          ) : (
            <p className="text-sm text-slate-600">
              Planning and running imports is not available on this console yet.
            </p>
          )}
        </div>
      </div>
    </Card>
  );
}

type BulkActionsProps = Pick<
  PreviewStepProps,
  "counts" | "columns" | "onExcludeErrors" | "onReplace"
> & { busy: boolean };

/** Changes to many rows at once: every row with an error left out, or one value replaced in a column. */
function BulkActions({ counts, columns, busy, onExcludeErrors, onReplace }: BulkActionsProps) {
  const [open, setOpen] = useState(false);
  const formId = useId();

  return (
    <div className="space-y-3">
      <div className="flex flex-wrap items-center gap-2">
        <Button
          size="sm"
          variant="secondary"
          disabled={busy || counts.errors === 0}
          onClick={() => void onExcludeErrors()}
        >
          Exclude all {counted(counts.errors, "row")} with errors
        </Button>
        <Button
          size="sm"
          variant="secondary"
          aria-expanded={open}
          aria-controls={formId}
          onClick={() => setOpen((value) => !value)}
        >
          Find and replace
        </Button>
      </div>
      {open && (
        <div id={formId}>
          <FindReplaceForm columns={columns} busy={busy} onReplace={onReplace} />
        </div>
      )}
    </div>
  );
}

const referenceWords: Record<ImportResource, string> = {
  users: "",
  open_channels: "operators",
  group_channels: "members and operators",
  messages: "channels and senders",
};

/** Where the look-up of what the rows name stands: running, done, or failed (the plan checks again). */
function ReferenceStatus({
  resource,
  check,
  onRetry,
}: {
  resource: ImportResource;
  check: ReferenceCheck;
  onRetry: () => void;
}) {
  const words = referenceWords[resource];
  if (resource === "users" || check.state === "idle") return null;
  if (check.state === "failed") {
    return (
      <Alert tone="warning" title={`The ${words} could not be checked`}>
        {check.message} You can go on: the plan checks them again before anything is sent.{" "}
        <button type="button" className="font-medium underline" onClick={onRetry}>
          Try again
        </button>
      </Alert>
    );
  }
  return (
    <p role="status" data-testid="reference-check" className="text-sm text-slate-600">
      {check.state === "running"
        ? `Checking that the ${words} exist, on the platform or in an import of this console… ${check.done.toLocaleString("en-US")} of ${check.total.toLocaleString("en-US")}`
        : `The ${words} were checked on the platform and in this console's imports; a row naming a missing one shows the error beside the cell.`}
      {check.state === "done" &&
        check.notChecked > 0 &&
        ` ${check.notChecked.toLocaleString("en-US")} more were not checked here: the plan checks them.`}
    </p>
  );
}

/** "1 is left out", "2 are left out": the rows with errors and the excluded ones. */
function leftOut(counts: PreviewCounts): string {
  const count = counts.errors + counts.excluded;
  return `${count.toLocaleString("en-US")} ${count === 1 ? "is" : "are"} left out`;
}
