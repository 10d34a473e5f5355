import { Alert } from "@/components/ui/alert";
import { Button } from "@/components/ui/button";
import { Label } from "@/components/ui/label";
import { Select } from "@/components/ui/select";
import { resourceLabels } from "@/lib/imports/fields";
import { formatBytes } from "@/lib/imports/parse/sniff";
import { importLimits, type ImportResource } from "@/lib/imports/types";
import { counted } from "@/lib/text/counted";
import { FileStep } from "./file-step";
import { HeaderRowChoice } from "./header-row-choice";
import type { WizardState } from "./wizard-state";
import { StepCard } from "./step-card";
import { WorkProgress } from "./work-progress";

export type UploadCardProps = {
  resource: ImportResource;
  state: Pick<WizardState, "file" | "loaded" | "header" | "headerRow" | "problem" | "progress">;
  busy: boolean;
  /** The chosen file, read again when another sheet of it is chosen. */
  sourceFile: File | null;
  onFile: (file: File, sheet?: string | null) => void;
  onHeaderRow: (row: number) => void;
  onBack: () => void;
  onContinue: () => void;
};

/** The upload step: the file, what was read of it, its sheet and its header row. */
export function UploadCard({
  resource,
  state,
  busy,
  sourceFile,
  onFile,
  onHeaderRow,
  onBack,
  onContinue,
}: UploadCardProps) {
  const { file, loaded, header, progress } = state;
  return (
    <StepCard
      title={`Upload ${resourceLabels[resource].plural.toLowerCase()}`}
      onBack={onBack}
      busy={busy}
    >
      <FileStep
        onFile={(picked) => onFile(picked)}
        disabled={busy}
        limits={importLimits(resource)}
      />
      {busy && <WorkProgress progress={progress} />}
      {busy && !progress && (
        <p role="status" className="text-sm text-slate-600">
          Reading {file?.name}…
        </p>
      )}
      {state.problem && (
        <Alert
          tone="error"
          title={file ? `${file.name} cannot be imported` : "The file cannot be imported"}
        >
          {state.problem}
        </Alert>
      )}
      {loaded && file && (
        <p role="status" className="text-sm text-slate-700">
          {file.name}: {loaded.format.toUpperCase()}, {formatBytes(file.size)}
          {loaded.sheet && `, sheet "${loaded.sheet}"`}
          {header &&
            `, ${counted(header.rows, "row")} and ${counted(header.columns.length, "column")}`}
          .
        </p>
      )}
      {loaded?.sheets && loaded.sheets.length > 1 && sourceFile && (
        <div className="max-w-xl">
          <Label htmlFor="import-sheet">Sheet</Label>
          <Select
            id="import-sheet"
            className="w-full"
            value={loaded.sheet}
            disabled={busy}
            onChange={(event) => onFile(sourceFile, event.target.value)}
          >
            {loaded.sheets.map((name) => (
              <option key={name} value={name}>
                {name}
              </option>
            ))}
          </Select>
          <p className="mt-1 text-xs text-slate-500">
            The workbook has {loaded.sheets.length} sheets; the rows come from this one.
          </p>
        </div>
      )}
      {loaded && !loaded.headerFixed && (
        <HeaderRowChoice
          sample={loaded.sample}
          value={state.headerRow}
          disabled={busy}
          onChange={onHeaderRow}
        />
      )}
      <div className="flex justify-end">
        <Button disabled={!header || busy} onClick={onContinue}>
          Continue to mapping
        </Button>
      </div>
    </StepCard>
  );
}
