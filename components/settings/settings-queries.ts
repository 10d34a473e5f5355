"use client";

import { queryOptions, useQueryClient } from "@tanstack/react-query";
import { actionErrorMessage } from "@/lib/actions/action-result";
import { deleteSandboxApplication, rotateSandboxApiToken } from "@/lib/actions/settings";
import type { ConnectionCheck } from "@/lib/platform/target";

/**
 * The Settings page's data on the client, in one place: query keys, reads (route handlers
 * under /settings/, behind the administrator check) and the mutations (server actions),
 * which drop what they made stale. The page itself is a server component: the list of
 * applications comes with it and the actions revalidate it.
 */
export const settingsKeys = {
  connection: () => ["settings", "connection"] as const,
  apiToken: (appId: string) => ["settings", "applications", appId, "token"] as const,
};

async function getJson<T>(url: string): Promise<T> {
  const response = await fetch(url, { cache: "no-store" });
  const body = (await response.json().catch(() => ({}))) as T & { error?: string };
  if (!response.ok) throw new Error(body.error ?? `The console answered HTTP ${response.status}.`);
  return body;
}

/** Run on demand (the Check connection button), never in the background. */
export function connectionCheckQuery() {
  return queryOptions({
    queryKey: settingsKeys.connection(),
    queryFn: () => getJson<ConnectionCheck>("/settings/connection"),
    enabled: false,
    retry: false,
    gcTime: 0,
  });
}

/** The full token: fetched when revealed or copied, never kept after. */
export function apiTokenQuery(appId: string) {
  return queryOptions({
    queryKey: settingsKeys.apiToken(appId),
    queryFn: async () =>
      (
        await getJson<{ apiToken: string }>(
          `/settings/applications/${encodeURIComponent(appId)}/token`,
        )
      ).apiToken,
    staleTime: 0,
    gcTime: 0,
    retry: false,
  });
}

/** Rotate and delete, each answering an error message for the confirm dialog (null when done). */
export function useApplicationMutations(appId: string) {
  const queryClient = useQueryClient();
  const forgetToken = () => queryClient.removeQueries({ queryKey: settingsKeys.apiToken(appId) });
  return {
    rotateToken: async () => {
      const message = actionErrorMessage(await rotateSandboxApiToken({ appId }));
      forgetToken();
      return message;
    },
    deleteApplication: async () => {
      const message = actionErrorMessage(await deleteSandboxApplication({ appId }));
      forgetToken();
      return message;
    },
  };
}
