"use client";

import { Alert } from "@/components/ui/alert";
import { Button } from "@/components/ui/button";
import { Card } from "@/components/ui/card";
import { Skeleton } from "@/components/ui/skeleton";
import { DeliveryLog } from "./delivery-log";
import { PlayCallsPanel } from "./play-calls-panel";
import { EndpointHealthPanel } from "./endpoint-health";
import { SignatureHelp } from "./signature-help";
import { TestEventPanel, type TestEventPanelProps } from "./test-event-panel";
import { targetNature } from "@/lib/forms/targets";
import { useWebhookSettings } from "./webhook-queries";
import { WebhookSettingsForm } from "./webhook-settings-form";

export type WebhooksConsoleProps = {
  /** The test event's first sample, made on the server (see TestEventPanel). */
  initialTestDraft: TestEventPanelProps["initialDraft"];
};

/** The Webhooks page's sections, all fed by the one settings query. */
export function WebhooksConsole({ initialTestDraft }: WebhooksConsoleProps) {
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
            {view.target.name}: application <span className="font-mono">{view.target.appId}</span>{" "}
            on {targetNature(view.target)}.
          </>
        }
      >
        <WebhookSettingsForm view={view} />
      </Card>
      <Card
        title="Test event"
        description="Send one event of a category, with ids you choose, to the saved endpoint."
      >
        <TestEventPanel view={view} initialDraft={initialTestDraft} />
      </Card>
      <Card
        title="Verifying deliveries"
        description="Every delivery carries x-sendbird-signature, so a receiver can tell the platform from anyone else."
      >
        <SignatureHelp kind={view.target.kind} />
      </Card>
      {view.target.kind === "sandbox" && (
        <Card
          title="Endpoint health"
          description="Attempts to the endpoint configured now, over the last hour and day."
        >
          <EndpointHealthPanel />
        </Card>
      )}
      {view.target.kind === "sandbox" && (
        <Card
          title="Play calls"
          description="Sandbox only: emit the events of a whole call, in order."
        >
          <PlayCallsPanel />
        </Card>
      )}
      <Card
        title="Delivery log"
        description="Newest first, filtered where the log is stored. Open a row for its request, response and payload."
      >
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
