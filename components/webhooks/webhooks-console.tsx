"use client";

import { Alert } from "@/components/ui/alert";
import { Button } from "@/components/ui/button";
import { Card } from "@/components/ui/card";
import { Skeleton } from "@/components/ui/skeleton";
import { DeliveryLog } from "./delivery-log";
import { PlayCallsPanel } from "./play-calls-panel";
import { TestEventPanel } from "./test-event-panel";
import { useWebhookSettings } from "./webhook-queries";
import { WebhookSettingsForm } from "./webhook-settings-form";

/** The Webhooks page's sections, all fed by the one settings query. */
export function WebhooksConsole() {
  const settings = useWebhookSettings();

  if (settings.isPending) return <WebhooksConsoleSkeleton />;
  if (settings.isError) {
    return (
      <Alert tone="error" title="The webhook settings could not be read">
        <p>{settings.error.message}</p>
        <Button variant="secondary" size="sm" className="mt-2" onClick={() => settings.refetch()}>
          Try again
        </Button>
      </Alert>
    );
  }
  const view = settings.data;
  return (
    <div className="space-y-6">
      <Card
        title="Endpoint and events"
        description={
          <>
            Application <span className="font-mono">{view.target.appId}</span> on the{" "}
            {view.target.kind === "sandbox" ? "embedded sandbox" : "remote platform"}.
          </>
        }
      >
        <WebhookSettingsForm view={view} />
      </Card>
      <Card title="Test event" description="Send one event of a category, with ids you choose, to the saved endpoint.">
        <TestEventPanel view={view} />
      </Card>
      {view.target.kind === "sandbox" && (
        <Card title="Play calls" description="Sandbox only: emit the events of a whole call, in order.">
          <PlayCallsPanel />
        </Card>
      )}
      <Card title="Delivery log" description="Newest first. Open a row for its payload and every attempt.">
        <DeliveryLog allCategories={view.allCategories} />
      </Card>
    </div>
  );
}

export function WebhooksConsoleSkeleton() {
  return (
    <div className="space-y-6" role="status" aria-label="Loading webhook settings">
      <Skeleton className="h-72" />
      <Skeleton className="h-48" />
    </div>
  );
}
