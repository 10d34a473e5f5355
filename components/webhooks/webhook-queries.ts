import {
  infiniteQueryOptions,
  queryOptions,
  useInfiniteQuery,
  useMutation,
  useQuery,
  useQueryClient,
} from "@tanstack/react-query";
import { unwrap, type ActionResult } from "@/lib/actions/action-result";
import { readJson } from "@/lib/client/read-json";
import {
  playSandboxDirectCall,
  playSandboxGroupCall,
  resendSelectedDeliveries,
  resendWebhookDelivery,
  saveWebhookSettings,
  sendTestEvent,
} from "@/lib/actions/webhooks";
import type { DeliveryCounts, EndpointHealth } from "@/lib/schemas/sandbox-events";
import {
  hasPendingDeliveries,
  type DeliveryLogFilter,
  type DeliveryLogPage,
} from "@/lib/webhooks/delivery-log";
import type { WebhookSettingsView } from "@/lib/webhooks/reads";

/**
 * The Webhooks page's data: reads through the page's route handlers (GET, admin-checked),
 * mutations through server actions, each mutation invalidating the reads it changes.
 */

/** GET one of the page's route handlers. */
const read = <T>(
  path: string,
  query: Record<string, string | number | undefined> = {},
  signal?: AbortSignal,
) => readJson<T>(`/webhooks/${path}`, { query, signal });

export const DELIVERY_PAGE_SIZE = 25;

export const webhookKeys = {
  all: ["webhooks"] as const,
  settings: () => [...webhookKeys.all, "settings"] as const,
  deliveries: (filter: DeliveryLogFilter = {}) =>
    [...webhookKeys.all, "deliveries", filter] as const,
  counts: (filter: DeliveryLogFilter = {}) => [...webhookKeys.all, "counts", filter] as const,
  health: () => [...webhookKeys.all, "health"] as const,
};

export const webhookSettingsQueryOptions = () =>
  queryOptions({
    queryKey: webhookKeys.settings(),
    queryFn: ({ signal }) => read<WebhookSettingsView>("settings", {}, signal),
  });

/** The settings as the platform holds them now, bypassing the cache (before a save). */
export const fetchFreshSettings = () => read<WebhookSettingsView>("settings");

/** Whether the guard would refuse deliveries to a URL (private, loopback or link-local host). */
export const fetchUrlWarning = (url: string) =>
  read<{ warning: string | null; allowed: boolean }>("url-check", { url });

/** While a delivery may still change, the log asks again every couple of seconds. */
export const DELIVERY_REFRESH_MS = 2_000;

export const webhookDeliveriesQueryOptions = (filter: DeliveryLogFilter = {}) =>
  infiniteQueryOptions({
    queryKey: webhookKeys.deliveries(filter),
    queryFn: ({ pageParam, signal }) =>
      read<DeliveryLogPage>(
        "deliveries",
        { ...filter, limit: DELIVERY_PAGE_SIZE, token: pageParam || undefined },
        signal,
      ),
    initialPageParam: "",
    getNextPageParam: (last) => last.next || undefined,
    refetchInterval: (query) =>
      query.state.data?.pages.some((page) => hasPendingDeliveries(page.entries))
        ? DELIVERY_REFRESH_MS
        : false,
  });

/**
 * The counts per outcome change as deliveries finish: they are asked again, like the log, while
 * they count a pending delivery or the log shows one (`listPending`).
 */
export const deliveryCountsQueryOptions = (filter: DeliveryLogFilter = {}, listPending = false) =>
  queryOptions({
    queryKey: webhookKeys.counts(filter),
    queryFn: ({ signal }) =>
      read<{ counts: DeliveryCounts | null }>("deliveries/counts", filter, signal),
    refetchInterval: (query) =>
      listPending || (query.state.data?.counts?.pending ?? 0) > 0 ? DELIVERY_REFRESH_MS : false,
  });

export const endpointHealthQueryOptions = () =>
  queryOptions({
    queryKey: webhookKeys.health(),
    queryFn: ({ signal }) => read<{ health: EndpointHealth | null }>("health", {}, signal),
    refetchInterval: 30_000,
  });

export const useWebhookSettings = () => useQuery(webhookSettingsQueryOptions());
export const useWebhookDeliveries = (filter: DeliveryLogFilter) =>
  useInfiniteQuery(webhookDeliveriesQueryOptions(filter));
export const useDeliveryCounts = (filter: DeliveryLogFilter, listPending: boolean) =>
  useQuery(deliveryCountsQueryOptions(filter, listPending));
export const useEndpointHealth = () => useQuery(endpointHealthQueryOptions());

/** Anything that emits events makes the log, its counts and the health stale. */
function useEventMutation<I, T>(action: (input: I) => Promise<ActionResult<T>>) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (input: I) => unwrap(action(input)),
    onSuccess: () =>
      Promise.all(
        (["deliveries", "counts", "health"] as const).map((part) =>
          queryClient.invalidateQueries({ queryKey: [...webhookKeys.all, part] }),
        ),
      ),
  });
}

export const useSendTestEvent = () => useEventMutation(sendTestEvent);
export const useResendDelivery = () =>
  useEventMutation((id: string) => resendWebhookDelivery({ id }));
export const useResendSelected = () => useEventMutation(resendSelectedDeliveries);
export const usePlayDirectCall = () => useEventMutation(playSandboxDirectCall);
export const usePlayGroupCall = () => useEventMutation(playSandboxGroupCall);

/**
 * Saving answers the raw result, so the form can put field errors beside their fields; on
 * success the platform's answer becomes the settings the page shows.
 */
export function useSaveWebhookSettings() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (input: Parameters<typeof saveWebhookSettings>[0]) => saveWebhookSettings(input),
    onSuccess: async (result) => {
      if (!("data" in result)) return;
      queryClient.setQueryData(webhookKeys.settings(), (view) =>
        view ? { ...view, settings: result.data.settings } : view,
      );
      await queryClient.invalidateQueries({ queryKey: webhookKeys.settings() });
      await queryClient.invalidateQueries({ queryKey: webhookKeys.health() });
    },
  });
}
