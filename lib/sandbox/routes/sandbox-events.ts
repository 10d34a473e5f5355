import { samplePayload } from "@/lib/schemas/webhook-payloads";
import { deliveriesQuerySchema, emitEventSchema, playDirectCallSchema, playRoomSchema } from "@/lib/schemas/sandbox-events";
import type { SandboxContext, SandboxRouter } from "../context";
import { parseWith, readJsonObject } from "../request";
import { enqueueEvents, listDeliveries } from "../webhooks/outbox";
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
    return c.json({ call_id: payloads[0] && "direct_call" in payloads[0] ? payloads[0].direct_call.call_id : "", events });
  });

  api.post("/v1/sandbox/rooms", async (c) => {
    const input = parseWith(playRoomSchema, await readJsonObject(c));
    const { room, payloads } = playRoom(c.get("app").id, input);
    return c.json({ room_id: room.room_id, events: await accept(c, payloads) });
  });

  api.get("/v1/sandbox/deliveries", async (c) => {
    const query = parseWith(deliveriesQuerySchema, c.req.query());
    const deliveries = await listDeliveries(c.get("db"), c.get("app").id, {
      limit: query.limit,
      category: query.category,
      eventId: query.event_id,
    });
    return c.json({ deliveries });
  });
}

async function accept(c: SandboxContext, payloads: WebhookPayload[]) {
  const app = c.get("app");
  const results = await enqueueEvents(c.get("db"), app.id, app.webhook, payloads);
  if (results.some((result) => result.delivered)) c.get("onEventsAccepted")();
  return results.map((result, index) => ({ ...result, category: payloads[index]!.category }));
}
