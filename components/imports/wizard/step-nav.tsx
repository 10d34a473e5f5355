import { classNames } from "@/components/ui/class-names";
import type { DraftSave } from "./use-draft-persistence";
import type { WizardStep } from "./wizard-state";

const steps: Array<{ id: WizardStep; label: string }> = [
  { id: "choose", label: "Choose" },
  { id: "upload", label: "Upload" },
  { id: "map", label: "Map columns" },
  { id: "preview", label: "Preview" },
];

export type StepNavProps = {
  step: WizardStep;
  /** Where saving the draft stands; null while there is no work to save. */
  save: DraftSave | null;
};

/** The wizard's steps, the current one marked, beside whether the draft is saved. */
export function StepNav({ step, save }: StepNavProps) {
  const currentStep = steps.findIndex((item) => item.id === step);
  return (
    <nav aria-label="Import steps" className="flex flex-wrap items-center justify-between gap-3">
      <ol className="flex flex-wrap gap-2 text-sm">
        {steps.map((item, position) => (
          <li
            key={item.id}
            aria-current={item.id === step ? "step" : undefined}
            className={classNames(
              "rounded-full px-3 py-1",
              item.id === step
                ? "bg-indigo-600 text-white"
                : position < currentStep
                  ? "bg-indigo-50 text-indigo-700"
                  : "bg-slate-100 text-slate-500",
            )}
          >
            {position + 1}. {item.label}
          </li>
        ))}
      </ol>
      {save && (
        <p role="status" className="text-xs text-slate-600" data-testid="draft-status">
          {save === "saving"
            ? "Saving draft…"
            : save === "failed"
              ? "The draft could not be saved in this browser."
              : "Draft saved in this browser"}
        </p>
      )}
    </nav>
  );
}
