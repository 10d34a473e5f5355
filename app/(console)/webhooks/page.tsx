import { dehydrate, HydrationBoundary, QueryClient } from "@tanstack/react-query";
import type { Metadata } from "next";
import Link from "next/link";
import { PageHeader } from "@/components/shell/page-header";
import { Button } from "@/components/ui/button";
import { webhookDeliveriesQueryOptions, webhookSettingsQueryOptions } from "@/components/webhooks/webhook-queries";
import { WebhooksConsole } from "@/components/webhooks/webhooks-console";
import { requireAdmin } from "@/lib/auth/session";

export const metadata: Metadata = { title: "Webhooks" };

export default async function WebhooksPage() {
  await requireAdmin("/webhooks");
  const queryClient = new QueryClient();
  // Failures are not thrown here: the client shows them with a way to try again.
  await Promise.all([
    queryClient.prefetchQuery(webhookSettingsQueryOptions()),
    queryClient.prefetchQuery(webhookDeliveriesQueryOptions()),
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
        <WebhooksConsole />
      </HydrationBoundary>
    </>
  );
}
