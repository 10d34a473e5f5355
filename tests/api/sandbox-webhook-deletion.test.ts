import { randomBytes } from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { sql } from "drizzle-orm";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openDatabase, type Database, type DatabaseHandle } from "@/lib/db/client";
import type { AttemptOutcome } from "@/lib/delivery/post-json";
import { createApplication, deleteApplication, ensureDefaultApplication } from "@/lib/sandbox/apps";
import { purgeDeliveries } from "@/lib/sandbox/webhooks/deliveries";
import { claimDueEvents, enqueueEvents, recordAttempts } from "@/lib/sandbox/webhooks/outbox";
import type { WebhookPayload } from "@/lib/schemas/webhook-payloads";

// webhook_attempts has no foreign key to webhook_events (its per-row check was a fifth of
// PostgreSQL's work per delivery): whatever deletes events must delete their attempts.
describe("deleting webhook deliveries leaves no attempt behind", () => {
  const databaseUrl = process.env.TEST_DATABASE_URL;
  const schemaName = `t_${randomBytes(6).toString("hex")}`;
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "switchboard-deletion-"));
  let handle: DatabaseHandle;
  let db: Database;
  const settings = {
    enabled: true,
    url: "http://127.0.0.1:9/hooks",
    include_members: false,
    enabled_events: ["room:create"],
  };
  const answered: AttemptOutcome = {
    status: 200,
    error: null,
    refused: false,
    latencyMs: 3,
    requestHeaders: { "content-type": "application/json" },
    responseHeaders: { "content-type": "text/plain" },
    responseExcerpt: "ok",
  };

  beforeAll(async () => {
    handle = await openDatabase(databaseUrl ? { url: databaseUrl, schemaName } : { dataDir });
    db = handle.db;
    await ensureDefaultApplication(db, "local", undefined);
  });
  afterAll(async () => {
    await handle?.close();
    fs.rmSync(dataDir, { recursive: true, force: true });
    if (databaseUrl) {
      const client = new pg.Client({ connectionString: databaseUrl });
      await client.connect();
      await client.query(`drop schema if exists ${schemaName} cascade`);
      await client.end();
    }
  });

  async function count(query: ReturnType<typeof sql>): Promise<number> {
    const { rows } = (await db.execute(query)) as unknown as { rows: Array<{ n: number }> };
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
    await enqueueEvents(db, appId, settings, payloads);
    const claimed = await claimDueEvents(db, {
      limit: 1_000,
      lockMs: 60_000,
      perEndpoint: 1_000,
      inFlight: new Map(),
    });
    await recordAttempts(
      db,
      claimed.map((event) => ({ event, outcome: answered, at: new Date() })),
    );
    return claimed;
  }

  it("purges old finished deliveries with their attempts, and keeps pending ones", async () => {
    expect(await deliver("local", 3)).toHaveLength(3);
    await enqueueEvents(db, "local", settings, [
      { category: "room:create", occurred_at: Date.now(), room: { room_id: "still-pending" } },
    ] as unknown as WebhookPayload[]);
    expect(await attemptsOf("local")).toBe(3);

    expect(await purgeDeliveries(db, new Date(Date.now() + 60_000))).toBe(3);
    expect(await attemptsOf("local")).toBe(0);
    expect(await orphans()).toBe(0);
    expect(
      await count(sql`select count(*)::int as n from webhook_events where status = 'pending'`),
    ).toBe(1);
  });

  it("deletes an application's deliveries and their attempts, and no other's", async () => {
    await createApplication(db, { id: "scratch", name: "Scratch" });
    // The claim also takes the pending event of "local" left by the test before.
    const claimed = await deliver("scratch", 4);
    expect(claimed.filter((event) => event.appId === "scratch")).toHaveLength(4);
    const kept = await attemptsOf("local");
    expect(kept).toBeGreaterThan(0);

    expect(await deleteApplication(db, "scratch")).toBe(true);
    expect(await attemptsOf("scratch")).toBe(0);
    expect(await attemptsOf("local")).toBe(kept);
    expect(await orphans()).toBe(0);
  });

  it("records no attempt for an event deleted while it was under way", async () => {
    await createApplication(db, { id: "gone", name: "Gone" });
    await enqueueEvents(db, "gone", settings, [
      { category: "room:create", occurred_at: Date.now(), room: { room_id: "gone-1" } },
    ] as unknown as WebhookPayload[]);
    const claimed = await claimDueEvents(db, {
      limit: 1_000,
      lockMs: 60_000,
      perEndpoint: 1_000,
      inFlight: new Map(),
    });
    expect(claimed.some((event) => event.appId === "gone")).toBe(true);
    await deleteApplication(db, "gone");

    await recordAttempts(
      db,
      claimed.map((event) => ({ event, outcome: answered, at: new Date() })),
    );
    expect(await orphans()).toBe(0);
  });
});
