"use client";

import { useRouter } from "next/navigation";
import { useEffect, useRef, useState } from "react";
import { Alert } from "@/components/ui/alert";
import { Button } from "@/components/ui/button";
import { Card } from "@/components/ui/card";
import { classNames } from "@/components/ui/class-names";
import { resourceLabels, type ColumnMapping } from "@/lib/imports/fields";
import { autoMap, mappingProblems, recallMapping, rememberMapping } from "@/lib/imports/mapping";
import { PreviewClient } from "@/lib/imports/parse/preview-client";
import type { HeaderChoice, LoadedFile, PreviewCounts, PreviewProgress, RowFilter } from "@/lib/imports/parse/protocol";
import { formatBytes } from "@/lib/imports/parse/sniff";
import { MAX_IMPORT_BYTES, type ImportResource } from "@/lib/imports/types";
import { FileStep } from "./file-step";
import { HeaderRowChoice } from "./header-row-choice";
import { MappingStep } from "./mapping-step";
import { PreviewStep } from "./preview-step";
import { useHydratedMarker } from "@/components/ui/use-hydrated-marker";
import { ProgressBar } from "@/components/ui/progress-bar";
import { ResourceStep } from "./resource-step";
import { UploadFailed, uploadRows, type ImportUploadActions, type UploadState } from "./upload-rows";

export type ImportWizardProps = {
  /** The server actions that store the rows; null while the server side is not available. */
  actions: ImportUploadActions | null;
  usersImports: number | null;
};

type Step = "choose" | "upload" | "map" | "preview";

const steps: Array<{ id: Step; label: string }> = [
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

export function ImportWizard({ actions, usersImports }: ImportWizardProps) {
  const router = useRouter();
  const wizardRef = useHydratedMarker<HTMLDivElement>();
  const clientRef = useRef<PreviewClient | null>(null);
  const [client, setClient] = useState<PreviewClient | null>(null);
  const [resource, setResource] = useState<ImportResource | null>(null);
  const [step, setStep] = useState<Step>("choose");
  const [file, setFile] = useState<{ name: string; size: number } | null>(null);
  const [loaded, setLoaded] = useState<LoadedFile | null>(null);
  const [headerRow, setHeaderRow] = useState(0);
  const [header, setHeader] = useState<HeaderChoice | null>(null);
  const [mapping, setMapping] = useState<ColumnMapping>({});
  const [remembered, setRemembered] = useState(false);
  const [counts, setCounts] = useState<PreviewCounts | null>(null);
  const [progress, setProgress] = useState<PreviewProgress | null>(null);
  const [problem, setProblem] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const [filter, setFilter] = useState<RowFilter>("all");
  const [version, setVersion] = useState(0);
  const [upload, setUpload] = useState<UploadState | null>(null);
  const [uploadError, setUploadError] = useState<string | null>(null);

  // The worker starts with the first file and ends with the page.
  useEffect(() => () => clientRef.current?.terminate(), []);
  function workerClient(): PreviewClient {
    if (!clientRef.current) {
      clientRef.current = new PreviewClient(setProgress);
      setClient(clientRef.current);
    }
    return clientRef.current;
  }

  async function run<T>(work: () => Promise<T>): Promise<T | undefined> {
    setBusy(true);
    setProblem(null);
    try {
      return await work();
    } catch (error) {
      setProblem(error instanceof Error ? error.message : "Something went wrong.");
      return undefined;
    } finally {
      setBusy(false);
      setProgress(null);
    }
  }

  async function chooseHeader(worker: PreviewClient, row: number, kind: ImportResource) {
    setHeaderRow(row);
    setHeader(null);
    const choice = await worker.request({ type: "header", headerRow: row });
    const recalled = recallMapping(window.localStorage, kind, choice.columns);
    setMapping(recalled ?? autoMap(kind, choice.columns));
    setRemembered(recalled !== null);
    setHeader(choice);
  }

  async function onFile(picked: File) {
    if (!resource) return;
    const client = workerClient();
    setFile({ name: picked.name, size: picked.size });
    setLoaded(null);
    setHeader(null);
    setCounts(null);
    if (picked.size > MAX_IMPORT_BYTES) {
      setProblem(`The file is ${formatBytes(picked.size)}; the console imports files of up to ${formatBytes(MAX_IMPORT_BYTES)}. Split it and import the parts one after another.`);
      return;
    }
    await run(async () => {
      const result = await client.request({ type: "load", file: picked, resource });
      setLoaded(result);
      await chooseHeader(client, result.suggestedHeaderRow, resource);
    });
  }

  async function validate() {
    if (!client || !resource || !header) return;
    rememberMapping(window.localStorage, resource, header.columns, mapping);
    const result = await run(() => client.request({ type: "validate", mapping }));
    if (result) {
      setCounts(result);
      setFilter(result.errors > 0 ? "errors" : "all");
      setVersion((value) => value + 1);
      setStep("preview");
    }
  }

  async function edit(index: number, column: number, value: string) {
    if (!client) return;
    const result = await run(() => client.request({ type: "edit", index, column, value }));
    if (result) {
      setCounts(result.counts);
      setVersion((current) => current + 1);
    }
  }

  async function exclude(index: number, excluded: boolean) {
    if (!client) return;
    const result = await run(() => client.request({ type: "exclude", index, excluded }));
    if (result) {
      setCounts(result.counts);
      setVersion((current) => current + 1);
    }
  }

  async function sendRows() {
    if (!client || !actions || !resource || !header || !file || !counts) return;
    const start = upload ?? { jobId: null, sent: 0, total: counts.rows };
    setUpload(start);
    setUploadError(null);
    setBusy(true);
    try {
      const jobId = await uploadRows(client, actions, { resource, fileName: file.name, columns: header.columns, mapping, firstRow: header.firstRow }, start, setUpload);
      router.push(`/imports/${jobId}`);
    } catch (error) {
      if (error instanceof UploadFailed) setUpload(error.state);
      setUploadError(error instanceof Error ? error.message : "The rows could not be sent.");
      setBusy(false);
    }
  }

  function restart() {
    setStep("upload");
    setFile(null);
    setLoaded(null);
    setHeader(null);
    setCounts(null);
    setUpload(null);
    setUploadError(null);
    setProblem(null);
  }

  const problems = resource && header ? mappingProblems(resource, header.columns, mapping) : [];
  const currentStep = steps.findIndex((item) => item.id === step);

  return (
    <div ref={wizardRef} data-testid="import-wizard" className="space-y-6">
      <nav aria-label="Import steps">
        <ol className="flex flex-wrap gap-2 text-sm">
          {steps.map((item, position) => (
            <li
              key={item.id}
              aria-current={item.id === step ? "step" : undefined}
              className={classNames(
                "rounded-full px-3 py-1",
                item.id === step ? "bg-indigo-600 text-white" : position < currentStep ? "bg-indigo-50 text-indigo-700" : "bg-slate-100 text-slate-500",
              )}
            >
              {position + 1}. {item.label}
            </li>
          ))}
        </ol>
      </nav>

      {step === "choose" && (
        <Card title="What are you importing?">
          <ResourceStep value={resource} onChange={setResource} usersImports={usersImports} />
          <div className="mt-5 flex justify-end">
            <Button disabled={!resource} onClick={() => setStep("upload")}>
              Continue
            </Button>
          </div>
        </Card>
      )}

      {step === "upload" && resource && (
        <Card
          title={`Upload ${resourceLabels[resource].plural.toLowerCase()}`}
          actions={<Button variant="ghost" size="sm" onClick={() => setStep("choose")} disabled={busy}>Back</Button>}
        >
          <div className="space-y-4">
            <FileStep onFile={(picked) => void onFile(picked)} disabled={busy} />
            {busy && progress && <ProgressBar label={phaseWords[progress.phase]} done={progress.done} total={progress.total} />}
            {busy && !progress && <p role="status" className="text-sm text-slate-600">Reading {file?.name}…</p>}
            {problem && (
              <Alert tone="error" title={file ? `${file.name} cannot be imported` : "The file cannot be imported"}>
                {problem}
              </Alert>
            )}
            {loaded && file && (
              <p role="status" className="text-sm text-slate-700">
                {file.name}: {loaded.format.toUpperCase()}, {formatBytes(file.size)}
                {header && `, ${header.rows.toLocaleString("en-US")} rows and ${header.columns.length} columns`}.
              </p>
            )}
            {loaded && !loaded.headerFixed && (
              <HeaderRowChoice
                sample={loaded.sample}
                value={headerRow}
                disabled={busy}
                onChange={(row) => void run(() => chooseHeader(workerClient(), row, resource))}
              />
            )}
            <div className="flex justify-end">
              <Button disabled={!header || busy} onClick={() => setStep("map")}>
                Continue to mapping
              </Button>
            </div>
          </div>
        </Card>
      )}

      {step === "map" && resource && header && loaded && (
        <Card
          title="Map columns"
          description={`Choose the field each column of ${file?.name ?? "the file"} fills.`}
          actions={<Button variant="ghost" size="sm" onClick={() => setStep("upload")} disabled={busy}>Back</Button>}
        >
          <div className="space-y-4">
            <MappingStep
              resource={resource}
              columns={header.columns}
              examples={loaded.sample.slice(headerRow + 1, headerRow + 4)}
              mapping={mapping}
              onChange={(next) => {
                setMapping(next);
                setRemembered(false);
              }}
              remembered={remembered}
            />
            {busy && progress && <ProgressBar label={phaseWords[progress.phase]} done={progress.done} total={progress.total} />}
            {problem && <Alert tone="error">{problem}</Alert>}
            <div className="flex justify-end">
              <Button disabled={problems.length > 0 || busy} pending={busy} onClick={() => void validate()}>
                Validate {header.rows.toLocaleString("en-US")} rows
              </Button>
            </div>
          </div>
        </Card>
      )}

      {step === "preview" && resource && header && counts && client && (
        <PreviewStep
          client={client}
          resource={resource}
          columns={header.columns}
          mapping={mapping}
          counts={counts}
          filter={filter}
          onFilter={setFilter}
          version={version}
          onEdit={edit}
          onExclude={exclude}
          busy={busy}
          problem={problem}
          onBack={() => setStep("map")}
          onRestart={restart}
          canUpload={actions !== null}
          upload={upload}
          uploadError={uploadError}
          onUpload={() => void sendRows()}
        />
      )}
    </div>
  );
}
