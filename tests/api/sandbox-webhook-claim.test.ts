import { beforeAll, describe, expect, it } from "vitest";
import { ensureDefaultApplication } from "@/lib/sandbox/apps";
import { claimDueEvents, enqueueEvents } from "@/lib/sandbox/webhooks/outbox";
import type { WebhookPayload } from "@/lib/schemas/webhook-payloads";
import { useTestDatabase } from "./support/test-database";

describe("the outbox claim", () => {
  const database = useTestDatabase();

  beforeAll(async () => {
    await ensureDefaultApplication(database.db, "local", undefined);
  });

  // The event's next_attempt_at comes from the database's now(), in microseconds; a claim that
  // compared it with Node's millisecond clock missed ~6 % of events stored within the same
  // millisecond, and they waited for the next poll.
  it("takes an event stored a moment before, every time", async () => {
    const settings = {
      enabled: true,
      url: "http://127.0.0.1:9/hooks",
      include_members: false,
      enabled_events: ["room:create"],
    };
    let missed = 0;
    for (let i = 0; i < 200; i += 1) {
      await enqueueEvents(database.db, "local", settings, [
        { category: "room:create", occurred_at: Date.now(), room: { room_id: `room-${i}` } },
      ] as unknown as WebhookPayload[]);
      const claimed = await claimDueEvents(database.db, {
        limit: 10,
        lockMs: 60_000,
        perEndpoint: 10,
        inFlight: new Map(),
      });
      if (claimed.length !== 1) missed += 1;
    }
    expect(missed).toBe(0);
  });
});
