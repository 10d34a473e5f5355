"use client";

import { queryOptions, useQueryClient } from "@tanstack/react-query";
import { unwrap } from "@/lib/actions/action-result";
import { readJson } from "@/lib/client/read-json";
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

/** Run on demand (the Check connection button), never in the background. */
export function connectionCheckQuery() {
  return queryOptions({
    queryKey: settingsKeys.connection(),
    queryFn: ({ signal }) => readJson<ConnectionCheck>("/settings/connection", { signal }),
    enabled: false,
    retry: false,
    gcTime: 0,
  });
}

/** The full token: fetched when revealed or copied, never kept after. */
export function apiTokenQuery(appId: string) {
  return queryOptions({
    queryKey: settingsKeys.apiToken(appId),
    queryFn: async ({ signal }) =>
      (
        await readJson<{ apiToken: string }>(
          `/settings/applications/${encodeURIComponent(appId)}/token`,
          { signal },
        )
      ).apiToken,
    staleTime: 0,
    gcTime: 0,
    retry: false,
  });
}

/** Rotate and delete, for the confirm dialogs: each fails with the sentence to show. */
export function useApplicationMutations(appId: string) {
  const queryClient = useQueryClient();
  const forgetToken = () => queryClient.removeQueries({ queryKey: settingsKeys.apiToken(appId) });
  return {
    rotateToken: () => unwrap(rotateSandboxApiToken({ appId })).finally(forgetToken),
    deleteApplication: () => unwrap(deleteSandboxApplication({ appId })).finally(forgetToken),
  };
}
