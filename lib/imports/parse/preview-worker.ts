/// <reference lib="webworker" />
import { PreviewSession } from "./preview-session";
import type { PreviewProgress, PreviewRequest, WorkerInbound, WorkerOutbound } from "./protocol";
import { FileProblem, readRecords } from "./read-file";
import { suggestHeaderRow, HEADER_SEARCH_ROWS } from "./records";
import { importLimits } from "../types";

/**
 * The preview's worker: reads, holds and validates the file's rows off the main thread, and
 * answers the page's requests one at a time, in the order they came.
 */

const scope = self as unknown as DedicatedWorkerGlobalScope;
let session: PreviewSession | null = null;
let queue: Promise<void> = Promise.resolve();

function post(message: WorkerOutbound): void {
  scope.postMessage(message);
}

let lastProgress = 0;
function progress(value: PreviewProgress): void {
  // A message per slice is plenty; more would only flood the page.
  const now = performance.now();
  if (value.done < value.total && now - lastProgress < 50) return;
  lastProgress = now;
  post({ kind: "progress", progress: value });
}

function activeSession(): PreviewSession {
  if (!session) throw new FileProblem("Choose a file first.");
  return session;
}

async function handle(request: PreviewRequest): Promise<unknown> {
  switch (request.type) {
    case "load": {
      session = null;
      const { format, records, headerFixed, sheets, sheet } = await readRecords(
        request.file,
        (done, total, phase) => progress({ phase, done, total }),
        importLimits(request.resource),
        request.sheet ?? null,
      );
      if (records.length === 0) throw new FileProblem("The file holds no rows.");
      session = new PreviewSession(request.resource, records, {}, !headerFixed);
      return {
        format,
        sample: records.slice(0, HEADER_SEARCH_ROWS),
        records: records.length,
        suggestedHeaderRow: headerFixed ? 0 : suggestHeaderRow(records),
        headerFixed,
        ...(sheets ? { sheets, sheet } : {}),
      };
    }
    case "header":
      return activeSession().chooseHeader(request.headerRow);
    case "validate":
      return activeSession().validate(
        request.mapping,
        (done, total) => progress({ phase: "validating", done, total }),
        request.transforms,
        request.options,
      );
    case "rows":
      return activeSession().rows(request.filter, request.start, request.end);
    case "edit":
      return activeSession().edit(request.index, request.column, request.value);
    case "exclude":
      return { counts: activeSession().exclude(request.index, request.excluded) };
    case "upload-rows":
      return { rows: activeSession().uploadRows(request.start, request.size, request.maxBytes) };
    case "apply-fixes":
      return activeSession().applyFixes(request.fixes);
    case "exclude-errors":
      return activeSession().excludeErrors();
    case "replace":
      return activeSession().replace(
        request.column,
        request.find,
        request.replacement,
        request.wholeCell,
      );
    case "unchecked-references":
      return activeSession().uncheckedReferences(request.limit);
    case "references-checked":
      return activeSession().referencesChecked(request.asked, request.missing);
    case "options":
      return activeSession().setOptions(request.options);
  }
}

scope.addEventListener("message", (event: MessageEvent<WorkerInbound>) => {
  const { id, request } = event.data;
  queue = queue.then(async () => {
    try {
      post({ kind: "result", id, ok: true, result: await handle(request) });
    } catch (error) {
      if (!(error instanceof FileProblem)) console.error("[import preview]", error);
      const message =
        error instanceof FileProblem
          ? error.message
          : "The file could not be read: an unexpected error occurred. Try again, or try another file.";
      post({ kind: "result", id, ok: false, message });
    }
  });
});
