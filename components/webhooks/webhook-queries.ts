import { queryOptions, useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { actionErrorMessage, type ActionResult } from "@/lib/actions/action-result";
import {
  getWebhookSettings,
  listWebhookDeliveries,
  playSandboxDirectCall,
  playSandboxGroupCall,
  resendWebhookDelivery,
  saveWebhookSettings,
  sendTestEvent,
} from "@/lib/actions/webhooks";
import { hasPendingDeliveries, type DeliveryOutcome } from "@/lib/webhooks/delivery-log";

/** The data of a successful result; a failed one becomes an Error with the sentence to show. */
export async function unwrap<T>(result: Promise<ActionResult<T>>): Promise<T> {
  const settled = await result;
  if ("data" in settled) return settled.data;
  throw new Error(actionErrorMessage(settled) ?? "The request failed.");
}

export type DeliveryFilter = { category?: string; outcome?: DeliveryOutcome };

export const webhookKeys = {
  all: ["webhooks"] as const,
  settings: () => [...webhookKeys.all, "settings"] as const,
  deliveries: (filter: DeliveryFilter = {}) =>
    [...webhookKeys.all, "deliveries", filter.category ?? "", filter.outcome ?? ""] as const,
};

export const webhookSettingsQueryOptions = () =>
  queryOptions({
    queryKey: webhookKeys.settings(),
    queryFn: () => unwrap(getWebhookSettings({})),
  });

/** While a delivery may still change, the log asks again every couple of seconds. */
export const DELIVERY_REFRESH_MS = 2_000;

export const webhookDeliveriesQueryOptions = (filter: DeliveryFilter = {}) =>
  queryOptions({
    queryKey: webhookKeys.deliveries(filter),
    queryFn: () => unwrap(listWebhookDeliveries(filter)),
    refetchInterval: (query) =>
      query.state.data && hasPendingDeliveries(query.state.data.entries) ? DELIVERY_REFRESH_MS : false,
  });

export function useWebhookSettings() {
  return useQuery(webhookSettingsQueryOptions());
}

export function useWebhookDeliveries(filter: DeliveryFilter) {
  return useQuery(webhookDeliveriesQueryOptions(filter));
}

/** Anything that emits events makes the log stale: it is read again as soon as the call returns. */
function useEventMutation<I, T>(action: (input: I) => Promise<ActionResult<T>>) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (input: I) => unwrap(action(input)),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: [...webhookKeys.all, "deliveries"] }),
  });
}

export const useSendTestEvent = () => useEventMutation(sendTestEvent);
export const useResendDelivery = () => useEventMutation((id: string) => resendWebhookDelivery({ id }));
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
    },
  });
}
