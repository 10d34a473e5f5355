"use client";

import { useQueryClient } from "@tanstack/react-query";
import { useCallback, useEffect, useRef, useState, type Dispatch } from "react";
import { PreviewClient } from "@/lib/imports/parse/preview-client";
import type { PreviewCounts } from "@/lib/imports/parse/protocol";
import type { ImportResource } from "@/lib/imports/types";
import { previewCommands, type PreviewCommands, type PreviewWorker } from "./preview-commands";
import { invalidatePreview, previewKeys } from "./use-preview-rows";
import { useReferenceCheck, type ReferenceCheck } from "./use-reference-check";
import type { WizardEvent, WizardState } from "./wizard-state";

export type PreviewWorkerHandle = PreviewCommands & {
  /** The running worker, for the preview's pages; null before the first file. */
  client: PreviewClient | null;
  /** Where the look-up of the names in the rows stands. */
  references: ReferenceCheck;
  checkReferences: () => void;
};

/**
 * The preview worker for one visit of the wizard: started with the first file, ended with the
 * page, its progress reported to the reducer, and the commands the wizard sends it
 * (preview-commands.ts). `keepFile` holds the chosen file beside the draft.
 */
export function usePreviewWorker(
  state: WizardState,
  dispatch: Dispatch<WizardEvent>,
  keepFile: (file: File | null) => void,
): PreviewWorkerHandle {
  const queryClient = useQueryClient();
  const clientRef = useRef<PreviewClient | null>(null);
  const [client, setClient] = useState<PreviewClient | null>(null);
  useEffect(() => () => clientRef.current?.terminate(), []);
  function startWorker(): PreviewClient {
    if (!clientRef.current) {
      clientRef.current = new PreviewClient((progress) => dispatch({ type: "progress", progress }));
      setClient(clientRef.current);
    }
    return clientRef.current;
  }

  const references = useReferenceCheck(
    state.session,
    useCallback(
      (checked: PreviewCounts) => {
        dispatch({ type: "references-checked", counts: checked });
        void queryClient.invalidateQueries({ queryKey: previewKeys.all });
      },
      [dispatch, queryClient],
    ),
  );
  function checkReferences(
    worker: PreviewWorker | null = client,
    kind: ImportResource | null = state.resource,
  ) {
    if (worker && kind) void references.run(worker, kind);
  }

  const commands = previewCommands({
    state,
    dispatch,
    client,
    startWorker,
    pages: {
      remove: () => queryClient.removeQueries({ queryKey: previewKeys.all }),
      refresh: (session) => invalidatePreview(queryClient, session),
    },
    keepFile,
    checkReferences,
    storage: () => window.localStorage,
  });
  return {
    ...commands,
    client,
    references: references.check,
    checkReferences: () => checkReferences(),
  };
}
