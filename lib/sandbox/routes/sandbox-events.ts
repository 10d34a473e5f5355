import { samplePayload } from "@/lib/schemas/webhook-payloads";
import {
  deliveriesQuerySchema,
  deliveryFilterSchema,
  emitEventSchema,
  playDirectCallSchema,
  playRoomSchema,
} from "@/lib/schemas/sandbox-events";
import type { SandboxContext, SandboxRouter } from "../context";
import { ErrorCode, SandboxError } from "../errors";
import { parseWith, readJsonObject } from "../request";
import {
  countDeliveries,
  endpointHealth,
  listDeliveries,
  resendDeliveries,
} from "../webhooks/deliveries";
import { enqueueEvents } from "../webhooks/outbox";
import { playDirectCall, playRoom } from "../webhooks/simulator";
import type { WebhookPayload } from "@/lib/schemas/webhook-payloads";

/** Sandbox-only operations: emit events, play calls, read deliveries. */
export function registerSandboxEventRoutes(api: SandboxRouter): void {
  api.post("/v1/sandbox/events", async (c) => {
    const { category, ...overrides } = parseWith(emitEventSchema, await readJsonObject(c));
    const [result] = await accept(c, [samplePayload(category, c.get("app").id, overrides)]);
    return c.json(result);
  });

  api.post("/v1/sandbox/direct_calls", async (c) => {
    const input = parseWith(playDirectCallSchema, await readJsonObject(c));
    const payloads = playDirectCall(c.get("app").id, input);
    const events = await accept(c, payloads);
    return c.json({
      call_id: payloads[0] && "direct_call" in payloads[0] ? payloads[0].direct_call.call_id : "",
      events,
    });
  });

  api.post("/v1/sandbox/rooms", async (c) => {
    const input = parseWith(playRoomSchema, await readJsonObject(c));
    const { room, payloads } = playRoom(c.get("app").id, input);
    return c.json({ room_id: room.room_id, events: await accept(c, payloads) });
  });

  api.get("/v1/sandbox/deliveries", async (c) => {
    const query = parseWith(deliveriesQuerySchema, c.req.query());
    return c.json(await listDeliveries(c.get("db"), c.get("app").id, query));
  });

  api.get("/v1/sandbox/deliveries/counts", async (c) => {
    const filter = parseWith(deliveryFilterSchema, c.req.query());
    return c.json({ counts: await countDeliveries(c.get("db"), c.get("app").id, filter) });
  });

  api.get("/v1/sandbox/deliveries/health", async (c) => {
    const app = c.get("app");
    return c.json({ health: await endpointHealth(c.get("db"), app.id, app.webhook.url) });
  });

  // "Send again" for every delivery a filter selects, to the endpoint configured now.
  api.post("/v1/sandbox/deliveries/resend", async (c) => {
    const filter = parseWith(deliveryFilterSchema, await readJsonObject(c));
    const app = c.get("app");
    if (!app.webhook.enabled || app.webhook.url === "") {
      throw new SandboxError(
        ErrorCode.invalidValue,
        "Webhooks are off or have no URL: there is nowhere to send again.",
      );
    }
    const result = await resendDeliveries(
      c.get("db"),
      app.id,
      app.webhook.url,
      app.webhook.enabled_events,
      filter,
    );
    if (result.count > 0) c.get("onEventsAccepted")();
    return c.json(result);
  });
}

async function accept(c: SandboxContext, payloads: WebhookPayload[]) {
  const app = c.get("app");
  const results = await enqueueEvents(c.get("db"), app.id, app.webhook, payloads);
  if (results.some((result) => result.delivered)) c.get("onEventsAccepted")();
  return results.map((result, index) => ({ ...result, category: payloads[index]!.category }));
}
