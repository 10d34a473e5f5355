import { randomBytes } from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openDatabase, type Database, type DatabaseHandle } from "@/lib/db/client";
import { ensureDefaultApplication } from "@/lib/sandbox/apps";
import { claimDueEvents, enqueueEvents } from "@/lib/sandbox/webhooks/outbox";
import type { WebhookPayload } from "@/lib/schemas/webhook-payloads";

describe("the outbox claim", () => {
  const databaseUrl = process.env.TEST_DATABASE_URL;
  const schemaName = `t_${randomBytes(6).toString("hex")}`;
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "switchboard-claim-"));
  let handle: DatabaseHandle;
  let db: Database;

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
      await enqueueEvents(db, "local", settings, [
        { category: "room:create", occurred_at: Date.now(), room: { room_id: `room-${i}` } },
      ] as unknown as WebhookPayload[]);
      const claimed = await claimDueEvents(db, {
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
