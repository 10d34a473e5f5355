"use client";

import { useQueryClient } from "@tanstack/react-query";
import { useRouter } from "next/navigation";
import { useCallback, useEffect, useMemo, useReducer, useRef, useState } from "react";
import { Alert } from "@/components/ui/alert";
import { Button } from "@/components/ui/button";
import { Card } from "@/components/ui/card";
import { classNames } from "@/components/ui/class-names";
import { Label } from "@/components/ui/label";
import { ProgressBar } from "@/components/ui/progress-bar";
import { Select } from "@/components/ui/select";
import { useHydratedMarker } from "@/components/ui/use-hydrated-marker";
import { resourceLabels, type ColumnMapping } from "@/lib/imports/fields";
import type { ColumnTransforms } from "@/lib/imports/transforms";
import {
  mappingProblems,
  recallMapping,
  rememberMapping,
  suggestMapping,
} from "@/lib/imports/mapping";
import { PreviewClient } from "@/lib/imports/parse/preview-client";
import type { PreviewCounts, PreviewProgress } from "@/lib/imports/parse/protocol";
import { formatBytes } from "@/lib/imports/parse/sniff";
import { optionsFor } from "@/lib/imports/job-options";
import { importLimits, type ImportResource, type JobOptions } from "@/lib/imports/types";
import { FileStep } from "./file-step";
import { HeaderRowChoice } from "./header-row-choice";
import { MappingStep } from "./mapping-step";
import { OrderNotice, type UnfinishedImports } from "./order-notice";
import { PreviewStep } from "./preview-step";
import { ResourceStep } from "./resource-step";
import { UploadFailed, uploadRows, type ImportUploadActions } from "./upload-rows";
import { invalidatePreview, previewKeys } from "./use-preview-rows";
import { useReferenceCheck } from "./use-reference-check";
import {
  discardDraft,
  discardDraftWork,
  draftOf,
  loadDraft,
  saveDraft,
  saveDraftFile,
  savedFixes,
  draftOptions,
  draftTransforms,
  type ImportDraft,
} from "./wizard-draft";
import {
  hasWork,
  initialWizardState,
  wizardReducer,
  type WizardState,
  type WizardStep,
} from "./wizard-state";
import { counted } from "@/lib/text/counted";

export type ImportWizardProps = {
  /** The server actions that store the rows; null while the server side is not available. */
  actions: ImportUploadActions | null;
  usersImports: number | null;
  /** Imports of the earlier stages not finished yet, for the order warning; null when not known. */
  unfinished?: UnfinishedImports | null;
};

const steps: Array<{ id: WizardStep; label: string }> = [
  { id: "choose", label: "Choose" },
  { id: "upload", label: "Upload" },
  { id: "map", label: "Map columns" },
  { id: "preview", label: "Preview" },
];

const phaseWords: Record<PreviewProgress["phase"], string> = {
  checking: "Checking the file",
  reading: "Reading rows",
  validating: "Validating rows",
};

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : "Something went wrong.";
}

export function ImportWizard({ actions, usersImports, unfinished = null }: ImportWizardProps) {
  const router = useRouter();
  const queryClient = useQueryClient();
  const wizardRef = useHydratedMarker<HTMLDivElement>();
  const [state, dispatch] = useReducer(wizardReducer, initialWizardState);
  const clientRef = useRef<PreviewClient | null>(null);
  const [client, setClient] = useState<PreviewClient | null>(null);
  // The file itself stays out of the reducer: it is only read by the worker and saved with the draft.
  const [sourceFile, setSourceFile] = useState<File | null>(null);
  const [draftReady, setDraftReady] = useState(false);
  const [savedDraft, setSavedDraft] = useState<ImportDraft | null>(null);
  const [failedDraft, setFailedDraft] = useState<ImportDraft | null>(null);
  // The file in the draft store, and the one the store refused.
  const [storedFile, setStoredFile] = useState<File | null>(null);
  const [failedFile, setFailedFile] = useState<File | null>(null);
  const [editorOpen, setEditorOpen] = useState(false);
  const { resource, step, header, loaded, file, counts, activity } = state;
  const busy = activity !== null;
  const references = useReferenceCheck(
    state.session,
    useCallback(
      (checked: PreviewCounts) => {
        dispatch({ type: "references-checked", counts: checked });
        void queryClient.invalidateQueries({ queryKey: previewKeys.all });
      },
      [queryClient],
    ),
  );
  /** Looks up what the rows name, beside whatever the administrator does next. */
  function checkReferences(worker = client, kind = resource) {
    if (worker && kind) void references.run(worker, kind);
  }

  // The worker starts with the first file and ends with the page.
  useEffect(() => () => clientRef.current?.terminate(), []);
  function workerClient(): PreviewClient {
    if (!clientRef.current) {
      clientRef.current = new PreviewClient((progress) => dispatch({ type: "progress", progress }));
      setClient(clientRef.current);
    }
    return clientRef.current;
  }

  async function readFile(
    worker: PreviewClient,
    picked: File,
    kind: ImportResource,
    sheet: string | null,
  ) {
    queryClient.removeQueries({ queryKey: previewKeys.all });
    const result = await worker.request({ type: "load", file: picked, resource: kind, sheet });
    dispatch({ type: "file-loaded", loaded: result });
    return result;
  }

  async function chooseHeader(worker: PreviewClient, row: number, kind: ImportResource) {
    // A row that cannot be the header still shows as chosen, beside the reason it cannot.
    dispatch({ type: "header-asked", headerRow: row });
    const choice = await worker.request({ type: "header", headerRow: row });
    const recalled = recallMapping(window.localStorage, kind, choice.columns);
    const suggested =
      recalled ??
      suggestMapping(
        kind,
        choice.columns,
        choice.profiles.map((profile) => profile.sample),
      );
    dispatch({
      type: "header-chosen",
      headerRow: row,
      header: choice,
      mapping: suggested.mapping,
      transforms: suggested.transforms,
      remembered: recalled !== null,
    });
  }

  // A saved draft is read once, on arrival: the file is read again and every fix replayed.
  useEffect(() => {
    let cancelled = false;
    async function restore() {
      const draft = await loadDraft().catch(() => null);
      if (cancelled) return;
      if (!draft?.file) {
        setDraftReady(true);
        return;
      }
      dispatch({
        type: "file-chosen",
        file: { name: draft.file.name, size: draft.file.size },
        sheet: draft.sheet,
      });
      dispatch({ type: "resource-chosen", resource: draft.resource });
      dispatch({ type: "work-started", activity: "restoring" });
      try {
        const worker = workerClient();
        setSourceFile(draft.file);
        setStoredFile(draft.file);
        await readFile(worker, draft.file, draft.resource, draft.sheet);
        const choice = await worker.request({ type: "header", headerRow: draft.headerRow });
        const transforms = draftTransforms(draft);
        const options = draftOptions(draft);
        const restored: Partial<WizardState> = {
          resource: draft.resource,
          headerRow: draft.headerRow,
          header: choice,
          mapping: draft.mapping,
          transforms,
          options,
          step: draft.step === "preview" ? "map" : draft.step,
        };
        if (
          draft.step === "preview" &&
          mappingProblems(draft.resource, choice.columns, draft.mapping, transforms).length === 0
        ) {
          await worker.request({
            type: "validate",
            mapping: draft.mapping,
            transforms,
            options,
          });
          const restoredCounts = await worker.request({
            type: "apply-fixes",
            fixes: savedFixes(draft.fixes),
          });
          Object.assign(restored, {
            step: "preview",
            counts: restoredCounts,
            fixes: draft.fixes,
            filter: draft.filter,
          });
        }
        if (!cancelled) {
          dispatch({ type: "draft-restored", state: restored, savedAt: draft.savedAt });
          if (restored.step === "preview") checkReferences(worker, draft.resource);
        }
      } catch (error) {
        if (cancelled) return;
        dispatch({ type: "step-shown", step: "upload" });
        dispatch({
          type: "work-failed",
          problem: `The saved import could not be restored: ${messageOf(error)} Choose the file again.`,
        });
      } finally {
        if (!cancelled) setDraftReady(true);
      }
    }
    void restore();
    return () => {
      cancelled = true;
    };
    // Once per visit: the draft is the state of the last one.
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, []);

  // Every change to the work is saved as the draft, once the previous draft has been read.
  const restoring = activity === "restoring";
  const draft = useMemo(
    () => draftOf(state),
    // The fields a draft holds; progress and activity changes are not work.
    // eslint-disable-next-line react-hooks/exhaustive-deps
    [
      state.resource,
      state.file,
      state.step,
      state.sheet,
      state.headerRow,
      state.header,
      state.mapping,
      state.transforms,
      state.options,
      state.filter,
      state.fixes,
    ],
  );
  useEffect(() => {
    if (!draftReady || restoring) return;
    let current = true;
    (draft ? saveDraft(draft) : discardDraftWork())
      .then(() => current && setSavedDraft(draft))
      .catch(() => current && setFailedDraft(draft));
    return () => {
      current = false;
    };
  }, [draftReady, restoring, draft]);
  // The file is stored once per file, apart from the work, which changes with every fix.
  useEffect(() => {
    if (!draftReady || restoring || sourceFile === storedFile) return;
    let current = true;
    (sourceFile ? saveDraftFile(sourceFile) : discardDraft())
      .then(() => current && setStoredFile(sourceFile))
      .catch(() => current && setFailedFile(sourceFile));
    return () => {
      current = false;
    };
  }, [draftReady, restoring, sourceFile, storedFile]);
  const save =
    savedDraft === draft && storedFile === sourceFile
      ? "saved"
      : failedDraft === draft || (failedFile !== null && failedFile === sourceFile)
        ? "failed"
        : "saving";

  // Leaving asks first when the work is not safely in the draft yet (or a cell is being edited).
  const unsaved = hasWork(state) && (save !== "saved" || editorOpen) && activity !== "uploading";
  useEffect(() => {
    if (!unsaved) return;
    const onBeforeUnload = (event: BeforeUnloadEvent) => event.preventDefault();
    const onClick = (event: MouseEvent) => {
      const link = (event.target as Element | null)?.closest?.("a[href]");
      if (!link || event.defaultPrevented) return;
      if (
        !window.confirm("Your import has changes that are not saved yet. Leave this page anyway?")
      ) {
        event.preventDefault();
        event.stopPropagation();
      }
    };
    window.addEventListener("beforeunload", onBeforeUnload);
    document.addEventListener("click", onClick, true);
    return () => {
      window.removeEventListener("beforeunload", onBeforeUnload);
      document.removeEventListener("click", onClick, true);
    };
  }, [unsaved]);

  async function run(activityName: "reading" | "validating" | "fixing", work: () => Promise<void>) {
    dispatch({ type: "work-started", activity: activityName });
    try {
      await work();
    } catch (error) {
      dispatch({ type: "work-failed", problem: messageOf(error) });
    }
  }

  async function onFile(picked: File, sheet: string | null = null) {
    if (!resource) return;
    const summary = { name: picked.name, size: picked.size };
    const maxBytes = importLimits(resource).bytes;
    if (picked.size > maxBytes) {
      dispatch({
        type: "file-refused",
        file: summary,
        problem: `The file is ${formatBytes(picked.size)}; the console imports files of up to ${formatBytes(maxBytes)}. Split it and import the parts one after another.`,
      });
      return;
    }
    const worker = workerClient();
    setSourceFile(picked);
    dispatch({ type: "file-chosen", file: summary, sheet });
    await run("reading", async () => {
      const result = await readFile(worker, picked, resource, sheet);
      await chooseHeader(worker, result.suggestedHeaderRow, resource);
      dispatch({ type: "work-done" });
    });
  }

  async function validate() {
    if (!client || !resource || !header) return;
    rememberMapping(window.localStorage, resource, header.columns, state.mapping, state.transforms);
    await run("validating", async () => {
      const result = await client.request({
        type: "validate",
        mapping: state.mapping,
        transforms: state.transforms,
        options: state.options,
      });
      await invalidatePreview(queryClient, state.session);
      dispatch({ type: "validated", counts: result });
      checkReferences();
    });
  }

  async function edit(index: number, column: number, value: string) {
    if (!client) return;
    await run("fixing", async () => {
      const result = await client.request({ type: "edit", index, column, value });
      dispatch({ type: "cell-fixed", counts: result.counts, edits: [[index, column, value]] });
      await invalidatePreview(queryClient, state.session);
      checkReferences();
    });
  }

  async function exclude(index: number, excluded: boolean) {
    if (!client) return;
    await run("fixing", async () => {
      const result = await client.request({ type: "exclude", index, excluded });
      dispatch({ type: "rows-excluded", counts: result.counts, rows: [[index, excluded]] });
      await invalidatePreview(queryClient, state.session);
      if (!excluded) checkReferences();
    });
  }

  async function excludeErrors() {
    if (!client) return;
    await run("fixing", async () => {
      const result = await client.request({ type: "exclude-errors" });
      dispatch({
        type: "rows-excluded",
        counts: result.counts,
        rows: result.rows.map((index) => [index, true]),
      });
      await invalidatePreview(queryClient, state.session);
    });
  }

  async function replace(
    column: number,
    find: string,
    replacement: string,
    wholeCell: boolean,
  ): Promise<number> {
    if (!client) return 0;
    let changed = 0;
    await run("fixing", async () => {
      const result = await client.request({
        type: "replace",
        column,
        find,
        replacement,
        wholeCell,
      });
      changed = result.edits.length;
      dispatch({ type: "cell-fixed", counts: result.counts, edits: result.edits });
      await invalidatePreview(queryClient, state.session);
      checkReferences();
    });
    return changed;
  }

  /** A new choice beyond the mapping: the preview checks the rows it changes again. */
  async function chooseOptions(options: JobOptions) {
    if (!client) return;
    await run("fixing", async () => {
      const result = await client.request({ type: "options", options });
      dispatch({ type: "options-changed", options, counts: result });
      await invalidatePreview(queryClient, state.session);
    });
  }

  async function sendRows() {
    if (!client || !actions || !resource || !header || !file || !counts) return;
    const start = state.upload ?? { jobId: null, sent: 0, total: counts.rows };
    dispatch({ type: "upload-progress", upload: start });
    try {
      const jobId = await uploadRows(
        client,
        actions,
        {
          resource,
          fileName: file.name,
          columns: header.columns,
          mapping: state.mapping,
          transforms: state.transforms,
          firstRow: header.firstRow,
          options: optionsFor(resource, state.options),
        },
        start,
        (upload) => dispatch({ type: "upload-progress", upload }),
      );
      // The rows are on the server now: the job, not the draft, holds the work.
      await discardDraft().catch(() => undefined);
      router.push(`/imports/${jobId}`);
    } catch (error) {
      dispatch({
        type: "upload-failed",
        upload: error instanceof UploadFailed ? error.state : null,
        problem: error instanceof Error ? error.message : "The rows could not be sent.",
      });
    }
  }

  function restart() {
    setSourceFile(null);
    queryClient.removeQueries({ queryKey: previewKeys.all });
    dispatch({ type: "restarted" });
  }

  const problems =
    resource && header
      ? mappingProblems(resource, header.columns, state.mapping, state.transforms)
      : [];
  const currentStep = steps.findIndex((item) => item.id === step);
  const progress = state.progress;

  return (
    <div ref={wizardRef} data-testid="import-wizard" className="space-y-6">
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
        {hasWork(state) && (
          <p role="status" className="text-xs text-slate-600" data-testid="draft-status">
            {save === "saving"
              ? "Saving draft…"
              : save === "failed"
                ? "The draft could not be saved in this browser."
                : "Draft saved in this browser"}
          </p>
        )}
      </nav>

      {activity === "restoring" && (
        <Card title="Resuming your import">
          <div className="space-y-3">
            <p role="status" className="text-sm text-slate-700">
              Reading {file?.name} again and applying your mapping and fixes…
            </p>
            {progress && (
              <ProgressBar
                label={phaseWords[progress.phase]}
                done={progress.done}
                total={progress.total}
              />
            )}
          </div>
        </Card>
      )}

      {state.resumed && activity !== "restoring" && (
        <Alert tone="info" title="Your unfinished import is back">
          {file?.name}, as you left it {new Date(state.resumed.savedAt).toLocaleString("en-US")}.{" "}
          <button type="button" className="font-medium underline" onClick={restart}>
            Start over with another file
          </button>
        </Alert>
      )}

      {step === "choose" && activity !== "restoring" && (
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

      {step === "upload" && resource && activity !== "restoring" && (
        <Card
          title={`Upload ${resourceLabels[resource].plural.toLowerCase()}`}
          actions={
            <Button
              variant="ghost"
              size="sm"
              onClick={() => dispatch({ type: "step-shown", step: "choose" })}
              disabled={busy}
            >
              Back
            </Button>
          }
        >
          <div className="space-y-4">
            <FileStep
              onFile={(picked) => void onFile(picked)}
              disabled={busy}
              limits={importLimits(resource)}
            />
            {busy && progress && (
              <ProgressBar
                label={phaseWords[progress.phase]}
                done={progress.done}
                total={progress.total}
              />
            )}
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
                  onChange={(event) => void onFile(sourceFile, event.target.value)}
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
                onChange={(row) =>
                  void run("reading", async () => {
                    await chooseHeader(workerClient(), row, resource);
                    dispatch({ type: "work-done" });
                  })
                }
              />
            )}
            <div className="flex justify-end">
              <Button
                disabled={!header || busy}
                onClick={() => dispatch({ type: "step-shown", step: "map" })}
              >
                Continue to mapping
              </Button>
            </div>
          </div>
        </Card>
      )}

      {step === "map" && resource && header && loaded && activity !== "restoring" && (
        <Card
          title="Map columns"
          description={`Choose the field each column of ${file?.name ?? "the file"} fills.`}
          actions={
            <Button
              variant="ghost"
              size="sm"
              onClick={() => dispatch({ type: "step-shown", step: "upload" })}
              disabled={busy}
            >
              Back
            </Button>
          }
        >
          <div className="space-y-4">
            <MappingStep
              resource={resource}
              columns={header.columns}
              profiles={header.profiles}
              rows={header.rows}
              mapping={state.mapping}
              transforms={state.transforms}
              onChange={(next: ColumnMapping, transforms: ColumnTransforms) =>
                dispatch({ type: "mapping-changed", mapping: next, transforms })
              }
              remembered={state.remembered}
            />
            {busy && progress && (
              <ProgressBar
                label={phaseWords[progress.phase]}
                done={progress.done}
                total={progress.total}
              />
            )}
            {state.problem && <Alert tone="error">{state.problem}</Alert>}
            <div className="flex justify-end">
              <Button
                disabled={problems.length > 0 || busy}
                pending={busy}
                onClick={() => void validate()}
              >
                Validate {counted(header.rows, "row")}
              </Button>
            </div>
          </div>
        </Card>
      )}

      {step !== "choose" && activity !== "restoring" && (
        <OrderNotice resource={resource} unfinished={unfinished} />
      )}

      {step === "preview" && resource && header && counts && client && activity !== "restoring" && (
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
          onEdit={edit}
          onExclude={exclude}
          onExcludeErrors={excludeErrors}
          onReplace={replace}
          onEditorOpen={setEditorOpen}
          busy={busy}
          problem={state.problem}
          onBack={() => dispatch({ type: "step-shown", step: "map" })}
          onRestart={restart}
          canUpload={actions !== null}
          upload={state.upload}
          uploadError={state.uploadError}
          onUpload={() => void sendRows()}
          references={references.check}
          onRetryReferences={() => checkReferences()}
          createUnknownSenders={state.options.createUnknownSenders === true}
          onCreateUnknownSenders={(checked) =>
            void chooseOptions({ ...state.options, createUnknownSenders: checked })
          }
        />
      )}
    </div>
  );
}
