import { Alert } from "@/components/ui/alert";
import { Button } from "@/components/ui/button";
import type { ColumnMapping } from "@/lib/imports/fields";
import { mappingProblems } from "@/lib/imports/mapping";
import type { HeaderChoice } from "@/lib/imports/parse/protocol";
import type { ColumnTransforms } from "@/lib/imports/transforms";
import type { ImportResource } from "@/lib/imports/types";
import { counted } from "@/lib/text/counted";
import { MappingStep } from "./mapping-step";
import type { WizardState } from "./wizard-state";
import { StepCard } from "./step-card";
import { WorkProgress } from "./work-progress";

export type MapCardProps = {
  resource: ImportResource;
  header: HeaderChoice;
  state: Pick<
    WizardState,
    "file" | "mapping" | "transforms" | "remembered" | "problem" | "progress"
  >;
  busy: boolean;
  onChange: (mapping: ColumnMapping, transforms: ColumnTransforms) => void;
  onBack: () => void;
  onValidate: () => void;
};

/** The mapping step: a field per column, validated as a whole when it has no problem left. */
export function MapCard({
  resource,
  header,
  state,
  busy,
  onChange,
  onBack,
  onValidate,
}: MapCardProps) {
  const problems = mappingProblems(resource, header.columns, state.mapping, state.transforms);
  return (
    <StepCard
      title="Map columns"
      description={`Choose the field each column of ${state.file?.name ?? "the file"} fills.`}
      onBack={onBack}
      busy={busy}
    >
      <MappingStep
        resource={resource}
        columns={header.columns}
        profiles={header.profiles}
        rows={header.rows}
        mapping={state.mapping}
        transforms={state.transforms}
        onChange={onChange}
        remembered={state.remembered}
      />
      {busy && <WorkProgress progress={state.progress} />}
      {state.problem && <Alert tone="error">{state.problem}</Alert>}
      <div className="flex justify-end">
        <Button disabled={problems.length > 0 || busy} pending={busy} onClick={onValidate}>
          Validate {counted(header.rows, "row")}
        </Button>
      </div>
    </StepCard>
  );
}
