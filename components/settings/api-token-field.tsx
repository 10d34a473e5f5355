"use client";

import { useQueryClient } from "@tanstack/react-query";
import { useState } from "react";
import { Button } from "@/components/ui/button";
import { ConfirmDialog } from "@/components/ui/confirm-dialog";
import { CopyButton } from "@/components/ui/copy-button";
import { apiTokenQuery, useApplicationMutations } from "./settings-queries";

export type ApiTokenFieldProps = {
  appId: string;
  maskedToken: string;
};

/** The token stays on the server until asked for: reveal and copy fetch it, rotate replaces it. */
export function ApiTokenField({ appId, maskedToken }: ApiTokenFieldProps) {
  const [revealed, setRevealed] = useState<string | null>(null);
  const [pending, setPending] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const queryClient = useQueryClient();
  const { rotateToken } = useApplicationMutations(appId);

  async function fetchToken(): Promise<string | null> {
    try {
      return await queryClient.fetchQuery(apiTokenQuery(appId));
    } catch (failure) {
      setError(failure instanceof Error ? failure.message : "The token could not be fetched.");
      return null;
    }
  }

  async function toggle() {
    if (revealed) return setRevealed(null);
    setPending(true);
    setError(null);
    setRevealed(await fetchToken().catch(() => null));
    setPending(false);
  }

  const tokenId = `api-token-${appId}`;
  return (
    <div>
      <div className="flex flex-wrap items-center gap-2">
        <code
          id={tokenId}
          data-testid="api-token"
          className="min-w-0 flex-1 rounded-md bg-slate-100 px-2.5 py-1.5 font-mono text-sm break-all text-slate-900"
        >
          {revealed ?? maskedToken}
        </code>
        <Button
          variant="secondary"
          size="sm"
          pending={pending}
          aria-controls={tokenId}
          aria-pressed={revealed !== null}
          aria-label={`${revealed ? "Hide" : "Reveal"} API token of ${appId}`}
          onClick={toggle}
        >
          {revealed ? "Hide" : "Reveal"}
        </Button>
        <CopyButton
          label={`Copy API token of ${appId}`}
          value={() => (revealed ? Promise.resolve(revealed) : fetchToken())}
        />
        <ConfirmDialog
          title={`Rotate the API token of ${appId}?`}
          description={
            <p>
              A new token replaces the current one at once. Every client still using the old token
              gets HTTP 401 until it is given the new one.
            </p>
          }
          confirmLabel="Rotate token"
          onConfirm={async () => {
            await rotateToken();
            setRevealed(null);
          }}
          trigger={
            <Button variant="ghost" size="sm" aria-label={`Rotate API token of ${appId}`}>
              Rotate
            </Button>
          }
        />
      </div>
      {error && (
        <p role="alert" className="mt-1 text-sm text-red-700">
          {error}
        </p>
      )}
    </div>
  );
}
