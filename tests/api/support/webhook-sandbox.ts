import { afterAll, beforeAll, beforeEach, expect } from "vitest";
import { startWebhookReceiver, type WebhookReceiver } from "../../support/webhook-receiver";
import { call } from "./http";
import { startSandboxServer, type SandboxServer } from "./sandbox-server";

export type WebhookSandbox = {
  readonly sandbox: SandboxServer;
  readonly receiver: WebhookReceiver;
  /** The application's webhook settings, as the platform interface names them. */
  settingsPath: () => string;
  /** Turns webhooks on for `events`, sent to `url` (the receiver unless told). */
  subscribe: (events: string[], url?: string) => Promise<void>;
};

/**
 * A sandbox server and a webhook receiver for the surrounding describe block: started before
 * its tests, stopped after, and the receiver emptied and answering 200 before each test.
 */
export function useWebhookSandbox(env: Record<string, string> = {}): WebhookSandbox {
  const started = {} as { sandbox: SandboxServer; receiver: WebhookReceiver };
  beforeAll(async () => {
    started.sandbox = await startSandboxServer(env);
    started.receiver = await startWebhookReceiver();
  });
  afterAll(async () => {
    await started.receiver?.stop();
    await started.sandbox?.stop();
  });
  beforeEach(() => {
    started.receiver.received.length = 0;
    started.receiver.setBehaviour({ mode: "answer", status: 200 });
  });
  const settingsPath = () => `/v1/applications/${started.sandbox.appId}/settings/webhook`;
  return {
    get sandbox() {
      return started.sandbox;
    },
    get receiver() {
      return started.receiver;
    },
    settingsPath,
    async subscribe(events, url = started.receiver.url) {
      const response = await call(started.sandbox, "PUT", settingsPath(), {
        application_id: started.sandbox.appId,
        enabled: true,
        url,
        enabled_events: events,
      });
      expect(response.status).toBe(200);
    },
  };
}
