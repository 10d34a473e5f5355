"use client";

import Link from "next/link";
import { ExportDelta } from "./export-delta";
import { useEffect, useReducer, useRef } from "react";
import { Alert } from "@/components/ui/alert";
import { Button } from "@/components/ui/button";
import { Card } from "@/components/ui/card";
import { ProgressBar } from "@/components/ui/progress-bar";
import { useHydratedMarker } from "@/components/ui/use-hydrated-marker";
import type { ImportUploadActions } from "@/components/imports/wizard/upload-rows";
import {
  defaultExportChoices,
  flowResources,
  type ExportChoices as Choices,
  type ExportForecast as Forecast,
  type FlowResource,
} from "@/lib/imports/export-flow";
import { ExportReaderClient } from "@/lib/imports/parse/export-client";
import type { ExportProgress, ExportReadResult } from "@/lib/imports/parse/export-protocol";
import { formatBytes } from "@/lib/imports/parse/sniff";
import { counted } from "@/lib/text/counted";
import { CommunitySummary } from "./community-summary";
import {
  CreateFailed,
  createImportsFromExport,
  type CreatedImports,
  type CreateProgress,
} from "./create-imports";
import { ExportChoices } from "./export-choices";
import { ExportDrop } from "./export-drop";
import { ExportForecast } from "./export-forecast";

type FlowState = {
  step: "drop" | "reading" | "read" | "creating" | "created";
  files: string;
  progress: ExportProgress | null;
  result: ExportReadResult | null;
  exportName: string;
  choices: Choices;
  forecast: Forecast | null;
  forecasting: boolean;
  creating: CreateProgress | null;
  jobs: CreatedImports;
  error: string | null;
};

type FlowAction =
  | { type: "reading"; files: File[] }
  | { type: "progress"; progress: ExportProgress }
  | { type: "read"; result: ExportReadResult; exportName: string }
  | { type: "failed"; error: string }
  | { type: "choices-changed" }
  | { type: "forecasting"; choices: Choices }
  | { type: "forecast"; forecast: Forecast }
  | { type: "creating"; progress: CreateProgress }
  | { type: "created"; jobs: CreatedImports }
  | { type: "create-failed"; error: string; jobs: CreatedImports }
  | { type: "again" };

const initialState: FlowState = {
  step: "drop",
  files: "",
  progress: null,
  result: null,
  exportName: "",
  choices: defaultExportChoices,
  forecast: null,
  forecasting: false,
  creating: null,
  jobs: {},
  error: null,
};

function flowReducer(state: FlowState, action: FlowAction): FlowState {
  switch (action.type) {
    case "reading":
      return {
        ...initialState,
        step: "reading",
        files: action.files.map((file) => file.name).join(", "),
      };
    case "progress":
      return { ...state, progress: action.progress };
    case "read":
      return { ...state, step: "read", result: action.result, exportName: action.exportName };
    case "failed":
      return state.step === "reading"
        ? { ...initialState, error: action.error }
        : { ...state, forecasting: false, error: action.error };
    case "choices-changed":
      return state.forecast === null ? state : { ...state, forecast: null };
    case "forecasting":
      return { ...state, choices: action.choices, forecasting: true, error: null };
    case "forecast":
      return { ...state, forecast: action.forecast, forecasting: false };
    case "creating":
      return { ...state, step: "creating", creating: action.progress, error: null };
    case "created":
      return { ...state, step: "created", jobs: action.jobs };
    case "create-failed":
      return { ...state, step: "read", jobs: action.jobs, error: action.error };
    case "again":
      return initialState;
  }
}

const resourceNames: Record<FlowResource, string> = {
  users: "Users",
  group_channels: "Group channels",
  messages: "Messages",
};

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : "Something went wrong.";
}

export type ExportFlowProps = { actions: ImportUploadActions };

/**
 * One flow from a dropped Slack, Discord or Mattermost export to the imports (issue 24,
 * item 2): the worker reads the export (progress, cancel), the community's summary, the
 * choices, the forecast, and then the three imports are created and planned.
 */
export function ExportFlow({ actions }: ExportFlowProps) {
  const hydrated = useHydratedMarker<HTMLDivElement>();
  const [state, dispatch] = useReducer(flowReducer, initialState);
  const clientRef = useRef<ExportReaderClient | null>(null);

  useEffect(() => {
    const client = new ExportReaderClient();
    clientRef.current = client;
    return () => client.terminate();
  }, []);

  // Leaving while the imports are being made would leave them half filled.
  useEffect(() => {
    if (state.step !== "creating") return;
    const warn = (event: BeforeUnloadEvent) => event.preventDefault();
    window.addEventListener("beforeunload", warn);
    return () => window.removeEventListener("beforeunload", warn);
  }, [state.step]);

  async function read(files: File[]) {
    const client = clientRef.current;
    if (!client) return;
    dispatch({ type: "reading", files });
    try {
      const result = await client.read(files, (progress) =>
        dispatch({ type: "progress", progress }),
      );
      const exportName = result.summary.name ?? files[0]!.name.replace(/\.(zip|jsonl?|json)$/i, "");
      dispatch({ type: "read", result, exportName });
    } catch (error) {
      dispatch({ type: "failed", error: messageOf(error) });
    }
  }

  async function forecast(choices: Choices) {
    const client = clientRef.current;
    if (!client) return;
    dispatch({ type: "forecasting", choices });
    try {
      dispatch({ type: "forecast", forecast: await client.forecast(choices) });
    } catch (error) {
      dispatch({ type: "failed", error: messageOf(error) });
    }
  }

  async function create() {
    const client = clientRef.current;
    if (!client || !state.forecast) return;
    const forecastNow = state.forecast;
    dispatch({
      type: "creating",
      progress: {
        jobs: {},
        sent: { users: 0, group_channels: 0, messages: 0 },
        total: forecastNow.rows,
      },
    });
    try {
      const jobs = await createImportsFromExport(
        client,
        actions,
        { exportName: state.exportName, choices: state.choices, forecast: forecastNow },
        (progress) => dispatch({ type: "creating", progress }),
      );
      dispatch({ type: "created", jobs });
    } catch (error) {
      dispatch({
        type: "create-failed",
        error: messageOf(error),
        jobs: error instanceof CreateFailed ? error.jobs : {},
      });
    }
  }

  const { result, progress } = state;
  return (
    <div className="space-y-6" ref={hydrated} data-testid="export-flow">
      {state.error && (
        <Alert tone="error" title="That did not work">
          {state.error}
        </Alert>
      )}

      {state.step === "drop" && (
        <Card
          title="Drop the export"
          description="Nothing is sent while the export is read: the console shows what it holds, your choices and what will carry over first."
        >
          <ExportDrop onFiles={read} />
        </Card>
      )}

      {state.step === "reading" && (
        <Card
          title="Reading the export"
          description={state.files}
          actions={
            <Button variant="secondary" onClick={() => clientRef.current?.cancel()}>
              Cancel
            </Button>
          }
        >
          <div className="space-y-3">
            <ProgressBar
              label={progress?.phase === "reading" ? "Reading the records" : "Telling the format"}
              done={progress?.done ?? 0}
              total={progress?.total ?? 1}
            />
            <p className="text-sm text-slate-600 tabular-nums">
              {formatBytes(progress?.done ?? 0)} of {formatBytes(progress?.total ?? 0)}
              {progress?.summary &&
                ` — so far ${counted(progress.summary.people.total, "person", "people")}, ${counted(progress.summary.messages.total, "message")}`}
            </p>
          </div>
        </Card>
      )}

      {result && state.step !== "reading" && state.step !== "drop" && (
        <>
          <Card
            title="The community"
            actions={
              state.step === "read" && (
                <Button variant="secondary" onClick={() => dispatch({ type: "again" })}>
                  Drop another export
                </Button>
              )
            }
          >
            <CommunitySummary summary={result.summary} />
          </Card>
          <Card
            title="Choices"
            description="Each has the default that keeps the most of the community. The forecast below counts what they mean for this export."
          >
            <ExportChoices
              format={result.format}
              defaults={state.choices}
              pending={state.forecasting}
              locked={state.step !== "read"}
              onChange={() => dispatch({ type: "choices-changed" })}
              onForecast={forecast}
            />
          </Card>
        </>
      )}

      {state.forecast && state.step !== "drop" && (
        <Card
          title="Forecast"
          description="What the imports will hold, before anything is sent."
          actions={
            state.step === "read" && (
              <Button
                onClick={create}
                disabled={
                  state.forecast.rows.users === 0 &&
                  state.forecast.rows.group_channels === 0 &&
                  state.forecast.rows.messages === 0
                }
              >
                Create the imports
              </Button>
            )
          }
        >
          <ExportForecast forecast={state.forecast} />
        </Card>
      )}

      {state.step === "creating" && state.creating && (
        <Card
          title="Creating the imports"
          description="The export is read once more and its rows are sent in chunks."
        >
          <div className="space-y-3">
            {flowResources
              .filter((resource) => state.creating!.total[resource] > 0)
              .map((resource) => (
                <ProgressBar
                  key={resource}
                  label={`${resourceNames[resource]}: ${state.creating!.sent[resource].toLocaleString("en-US")} of ${counted(state.creating!.total[resource], "row")}`}
                  done={state.creating!.sent[resource]}
                  total={state.creating!.total[resource]}
                />
              ))}
          </div>
        </Card>
      )}

      {(state.step === "created" || Object.keys(state.jobs).length > 0) && (
        <Card
          title={
            state.step === "created" ? "The imports are created" : "Imports made before the failure"
          }
          description={
            state.step === "created"
              ? "Each is being planned against the platform. Open them in order — users, then group channels, then messages — to rehearse and run them; the migration overview shows them all."
              : "Cancel these from their pages, or keep them and create the imports again."
          }
        >
          {state.step === "created" && <ExportDelta jobs={state.jobs} />}
          <ul className="mt-3 space-y-1 text-sm" data-testid="created-imports">
            {flowResources.map((resource) =>
              state.jobs[resource] ? (
                <li key={resource}>
                  <Link
                    className="text-indigo-700 underline"
                    href={`/imports/${state.jobs[resource]}`}
                  >
                    {resourceNames[resource]} import
                  </Link>
                </li>
              ) : null,
            )}
            <li>
              <Link className="text-indigo-700 underline" href="/imports/migration">
                The migration at a glance
              </Link>
            </li>
          </ul>
        </Card>
      )}
    </div>
  );
}
