"use client";

import { useRouter } from "next/navigation";
import { useReducer, useState } from "react";
import { Button } from "@/components/ui/button";
import { Card } from "@/components/ui/card";
import { useHydratedMarker } from "@/components/ui/use-hydrated-marker";
import { MapCard } from "./map-card";
import { OrderNotice, type UnfinishedImports } from "./order-notice";
import { PreviewStep } from "./preview-step";
import { ResourceStep } from "./resource-step";
import { ResumedNotice, ResumingCard } from "./resume-notices";
import { StepNav } from "./step-nav";
import { UploadCard } from "./upload-card";
import type { ImportUploadActions } from "./upload-rows";
import { useDraftPersistence } from "./use-draft-persistence";
import { useLeaveGuard, workAtRisk } from "./use-leave-guard";
import { usePreviewWorker } from "./use-preview-worker";
import { discardDraft } from "./wizard-draft";
import { hasWork, initialWizardState, wizardReducer } from "./wizard-state";

export type ImportWizardProps = {
  /** The server actions that store the rows; null while the server side is not available. */
  actions: ImportUploadActions | null;
  usersImports: number | null;
  /** Imports of the earlier stages not finished yet, for the order warning; null when not known. */
  unfinished?: UnfinishedImports | null;
};

/**
 * The import wizard: choose what to import, upload a file, map its columns, preview and fix the
 * rows, send them. Its state is one reducer (wizard-state.ts); each concern around it is a hook:
 * the preview worker and its commands (use-preview-worker.ts), the draft kept across reloads
 * (use-draft-persistence.ts) and the question before leaving with unsaved work
 * (use-leave-guard.ts). The steps themselves are the cards this composes.
 */
export function ImportWizard({ actions, usersImports, unfinished = null }: ImportWizardProps) {
  const router = useRouter();
  const wizardRef = useHydratedMarker<HTMLDivElement>();
  const [state, dispatch] = useReducer(wizardReducer, initialWizardState);
  // The file itself stays out of the reducer: it is only read by the worker and saved with the draft.
  const [sourceFile, setSourceFile] = useState<File | null>(null);
  const [editorOpen, setEditorOpen] = useState(false);
  const preview = usePreviewWorker(state, dispatch, setSourceFile);
  const save = useDraftPersistence(state, sourceFile, {
    dispatch,
    keepFile: setSourceFile,
    restore: preview.restore,
    onRestored: preview.afterRestore,
  });
  useLeaveGuard(workAtRisk(state, save, editorOpen));

  const { resource, step, header, loaded, file, counts, activity } = state;
  const busy = activity !== null;
  const restoring = activity === "restoring";
  const client = preview.client;

  async function sendRows() {
    if (!actions) return;
    const jobId = await preview.send(actions);
    if (jobId === null) return;
    // The rows are on the server now: the job, not the draft, holds the work.
    await discardDraft().catch(() => undefined);
    router.push(`/imports/${jobId}`);
  }

  return (
    <div ref={wizardRef} data-testid="import-wizard" className="space-y-6">
      <StepNav step={step} save={hasWork(state) ? save : null} />

      {restoring && <ResumingCard fileName={file?.name} progress={state.progress} />}

      {state.resumed && !restoring && (
        <ResumedNotice
          fileName={file?.name}
          savedAt={state.resumed.savedAt}
          onRestart={preview.restart}
        />
      )}

      {step === "choose" && !restoring && (
        <Card title="What are you importing?">
          <ResourceStep
            value={resource}
            onChange={(kind) => dispatch({ type: "resource-chosen", resource: kind })}
            usersImports={usersImports}
          />
          <OrderNotice resource={resource} unfinished={unfinished} />
          <div className="mt-5 flex justify-end">
            <Button
              disabled={!resource}
              onClick={() => dispatch({ type: "step-shown", step: "upload" })}
            >
              Continue
            </Button>
          </div>
        </Card>
      )}

      {step === "upload" && resource && !restoring && (
        <UploadCard
          resource={resource}
          state={state}
          busy={busy}
          sourceFile={sourceFile}
          onFile={(picked, sheet) => void preview.openFile(picked, sheet)}
          onHeaderRow={(row) => void preview.pickHeaderRow(row)}
          onBack={() => dispatch({ type: "step-shown", step: "choose" })}
          onContinue={() => dispatch({ type: "step-shown", step: "map" })}
        />
      )}

      {step === "map" && resource && header && loaded && !restoring && (
        <MapCard
          resource={resource}
          header={header}
          state={state}
          busy={busy}
          onChange={(mapping, transforms) =>
            dispatch({ type: "mapping-changed", mapping, transforms })
          }
          onBack={() => dispatch({ type: "step-shown", step: "upload" })}
          onValidate={() => void preview.validate()}
        />
      )}

      {step !== "choose" && !restoring && (
        <OrderNotice resource={resource} unfinished={unfinished} />
      )}

      {step === "preview" && resource && header && counts && client && !restoring && (
        <PreviewStep
          client={client}
          session={state.session}
          resource={resource}
          columns={header.columns}
          mapping={state.mapping}
          transforms={state.transforms}
          counts={counts}
          filter={state.filter}
          onFilter={(filter) => dispatch({ type: "filter-changed", filter })}
          onEdit={preview.edit}
          onExclude={preview.exclude}
          onExcludeErrors={preview.excludeErrors}
          onReplace={preview.replace}
          onEditorOpen={setEditorOpen}
          busy={busy}
          problem={state.problem}
          onBack={() => dispatch({ type: "step-shown", step: "map" })}
          onRestart={preview.restart}
          canUpload={actions !== null}
          upload={state.upload}
          uploadError={state.uploadError}
          onUpload={() => void sendRows()}
          references={preview.references}
          onRetryReferences={preview.checkReferences}
          createUnknownSenders={state.options.createUnknownSenders === true}
          onCreateUnknownSenders={(checked) =>
            void preview.chooseOptions({ ...state.options, createUnknownSenders: checked })
          }
        />
      )}
    </div>
  );
}
