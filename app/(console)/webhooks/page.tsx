import { dehydrate, HydrationBoundary, QueryClient } from "@tanstack/react-query";
import type { Metadata } from "next";
import Link from "next/link";
import { PageHeader } from "@/components/shell/page-header";
import { Button } from "@/components/ui/button";
import { DELIVERY_PAGE_SIZE, webhookKeys } from "@/components/webhooks/webhook-queries";
import { WebhooksConsole } from "@/components/webhooks/webhooks-console";
import { requireAdmin } from "@/lib/auth/session";
import { readDeliveryLog, readWebhookSettings } from "@/lib/webhooks/reads";
import { newTestEventDraft } from "@/lib/webhooks/test-event";

export const metadata: Metadata = { title: "Webhooks" };

export default async function WebhooksPage() {
  await requireAdmin("/webhooks");
  const queryClient = new QueryClient();
  // Failures are not thrown here: the client shows them with a way to try again.
  // The same keys as the page's queries, read here directly rather than through the routes.
  await Promise.all([
    queryClient.prefetchQuery({ queryKey: webhookKeys.settings(), queryFn: readWebhookSettings }),
    queryClient.prefetchInfiniteQuery({
      queryKey: webhookKeys.deliveries({}),
      queryFn: () => readDeliveryLog({ limit: DELIVERY_PAGE_SIZE }),
      initialPageParam: "",
    }),
  ]);
  return (
    <>
      <PageHeader
        title="Webhooks"
        description="Where the calls platform sends its events, which ones, and what it sent."
        actions={
          <Button variant="secondary" asChild>
            <Link href="/webhooks/reference">Payload reference</Link>
          </Button>
        }
      />
      <HydrationBoundary state={dehydrate(queryClient)}>
        <WebhooksConsole initialTestDraft={newTestEventDraft()} />
      </HydrationBoundary>
    </>
  );
}
