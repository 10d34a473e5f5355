import { randomBytes } from "node:crypto";
import { sql } from "drizzle-orm";
import { beforeAll, describe, expect, it } from "vitest";
import { createApplication, deleteApplication, ensureDefaultApplication } from "@/lib/sandbox";
import { purgeDeliveries } from "@/lib/sandbox/webhooks/deliveries";
import { claimDueEvents, enqueueEvents, recordAttempts } from "@/lib/sandbox/webhooks/outbox";
import type { WebhookPayload } from "@/lib/schemas/webhook-payloads";
import { answeredAttempt, roomCreateSettings } from "../fixtures/webhooks";
import { useTestDatabase } from "./support/test-database";

// webhook_attempts has no foreign key to webhook_events (its per-row check was a fifth of
// PostgreSQL's work per delivery): whatever deletes events must delete their attempts.
describe("deleting webhook deliveries leaves no attempt behind", () => {
  const database = useTestDatabase();
  const settings = roomCreateSettings;
  const answered = answeredAttempt;

  // A worker's key; no other worker runs here, so it need not be held.
  const holder = 2 ** 32 + 1;

  beforeAll(async () => {
    await ensureDefaultApplication(database.db, "local", undefined);
  });

  async function count(query: ReturnType<typeof sql>): Promise<number> {
    const { rows } = (await database.db.execute(query)) as unknown as {
      rows: Array<{ n: number }>;
    };
    return Number(rows[0]!.n);
  }
  const orphans = () =>
    count(sql`select count(*)::int as n from webhook_attempts a
      where not exists (select 1 from webhook_events e where e.id = a.event_id)`);
  const attemptsOf = (appId: string) =>
    count(sql`select count(*)::int as n from webhook_attempts a
      join webhook_events e on e.id = a.event_id where e.app_id = ${appId}`);

  /** Stores `n` events of `appId` and records one answered attempt for each. */
  async function deliver(appId: string, n: number) {
    const payloads = Array.from(
      { length: n },
      (_, i) =>
        ({
          category: "room:create",
          occurred_at: Date.now(),
          room: { room_id: `${appId}-${i}-${randomBytes(3).toString("hex")}` },
        }) as unknown as WebhookPayload,
    );
    await enqueueEvents(database.db, appId, settings, payloads);
    const claimed = await claimDueEvents(database.db, {
      limit: 1_000,
      holder,
      perEndpoint: 1_000,
      inFlight: new Map(),
    });
    await recordAttempts(
      database.db,
      holder,
      claimed.map((event) => ({ event, outcome: answered, at: new Date() })),
    );
    return claimed;
  }

  it("purges old finished deliveries with their attempts, and keeps pending ones", async () => {
    expect(await deliver("local", 3)).toHaveLength(3);
    await enqueueEvents(database.db, "local", settings, [
      { category: "room:create", occurred_at: Date.now(), room: { room_id: "still-pending" } },
    ] as unknown as WebhookPayload[]);
    expect(await attemptsOf("local")).toBe(3);

    expect(await purgeDeliveries(database.db, new Date(Date.now() + 60_000))).toBe(3);
    expect(await attemptsOf("local")).toBe(0);
    expect(await orphans()).toBe(0);
    expect(
      await count(sql`select count(*)::int as n from webhook_events where status = 'pending'`),
    ).toBe(1);
  });

  it("deletes an application's deliveries and their attempts, and no other's", async () => {
    await createApplication(database.db, { id: "scratch", name: "Scratch" });
    // The claim also takes the pending event of "local" left by the test before.
    const claimed = await deliver("scratch", 4);
    expect(claimed.filter((event) => event.appId === "scratch")).toHaveLength(4);
    const kept = await attemptsOf("local");
    expect(kept).toBeGreaterThan(0);

    expect(await deleteApplication(database.db, "scratch")).toBe("deleted");
    expect(await attemptsOf("scratch")).toBe(0);
    expect(await attemptsOf("local")).toBe(kept);
    expect(await orphans()).toBe(0);
  });

  it("records no attempt for an event deleted while it was under way", async () => {
    await createApplication(database.db, { id: "gone", name: "Gone" });
    await enqueueEvents(database.db, "gone", settings, [
      { category: "room:create", occurred_at: Date.now(), room: { room_id: "gone-1" } },
    ] as unknown as WebhookPayload[]);
    const claimed = await claimDueEvents(database.db, {
      limit: 1_000,
      holder,
      perEndpoint: 1_000,
      inFlight: new Map(),
    });
    expect(claimed.some((event) => event.appId === "gone")).toBe(true);
    await deleteApplication(database.db, "gone");

    await recordAttempts(
      database.db,
      holder,
      claimed.map((event) => ({ event, outcome: answered, at: new Date() })),
    );
    expect(await orphans()).toBe(0);
  });
});
