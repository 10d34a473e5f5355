import { sql } from "drizzle-orm";
import { beforeAll, beforeEach, describe, expect, it } from "vitest";
import { acquireHolder } from "@/lib/background/holder";
import type { PoolClient } from "pg";
import { isEmbedded } from "@/lib/db/raw";
import { ensureDefaultApplication } from "@/lib/sandbox";
import {
  claimDueEvents,
  enqueueEvents,
  recordAttempts,
  type ClaimedEvent,
} from "@/lib/sandbox/webhooks/outbox";
import type { WebhookPayload } from "@/lib/schemas/webhook-payloads";
import { waitFor } from "../support/wait";
import { answeredAttempt, roomCreateSettings } from "../fixtures/webhooks";
import { useTestDatabase } from "./support/test-database";

describe("the outbox claim", () => {
  const database = useTestDatabase();
  const settings = roomCreateSettings;
  const answered = answeredAttempt;

  beforeAll(async () => {
    await ensureDefaultApplication(database.db, "local", undefined);
  });
  beforeEach(async () => {
    await database.db.execute(sql`delete from webhook_events`);
    await database.db.execute(sql`delete from webhook_attempts`);
  });

  const enqueue = async (roomId: string) => {
    const [accepted] = await enqueueEvents(database.db, "local", settings, [
      { category: "room:create", occurred_at: Date.now(), room: { room_id: roomId } },
    ] as unknown as WebhookPayload[]);
    return accepted!.event_id;
  };
  const claim = (holder: number) =>
    claimDueEvents(database.db, { limit: 10, holder, perEndpoint: 10, inFlight: new Map() });

  /**
   * Holds the advisory lock `key` during `work`, in a session of its own: a pooled connection
   * on PostgreSQL, PGlite's one connection there. The lock is given up whatever `work` does.
   */
  async function whileLocked(key: bigint, work: () => Promise<void>) {
    const db = database.db;
    const session = isEmbedded(db)
      ? { query: (text: string) => db.execute(sql.raw(text)), release: () => {} }
      : await (db as unknown as { $client: { connect(): Promise<PoolClient> } }).$client.connect();
    try {
      await session.query(`select pg_advisory_lock(${key}::bigint)`);
      try {
        await work();
      } finally {
        await session.query(`select pg_advisory_unlock(${key}::bigint)`);
      }
    } finally {
      session.release();
    }
  }

  async function stateOf(eventId: string) {
    const { rows } = (await database.db.execute(sql`
      select e.status, e.outcome, e.attempt_count,
        (select json_agg(json_build_object('attempt', a.attempt, 'outcome', a.outcome,
          'status', a.status) order by a.attempt)
          from webhook_attempts a where a.event_id = e.id) as attempts
      from webhook_events e where e.id = ${eventId}`)) as unknown as {
      rows: Array<{ status: string; outcome: string; attempt_count: number; attempts: unknown }>;
    };
    return rows[0]!;
  }

  // The event's next_attempt_at comes from the database's now(), in microseconds; a claim that
  // compared it with Node's millisecond clock missed ~6 % of events stored within the same
  // millisecond, and they waited for the next poll.
  it("takes an event stored a moment before, every time", async () => {
    let missed = 0;
    for (let i = 0; i < 200; i += 1) {
      await enqueue(`room-${i}`);
      if ((await claim(2 ** 32 + 1)).length !== 1) missed += 1;
    }
    expect(missed).toBe(0);
  });

  // A lease that ran out while its worker stalled let the event be sent again, and called the
  // first attempt interrupted though it was still under way (issue 27, item 2).
  it("leaves an event to its live holder, however long, and takes it once the holder is gone", async () => {
    const first = await acquireHolder(database.db);
    const second = await acquireHolder(database.db);
    expect(second.key).not.toBe(first.key);
    const eventId = await enqueue("held");
    const [held] = await claim(first.key);
    expect(held).toMatchObject({ id: eventId, attemptCount: 0 });

    // No time runs a claim out: neither the other worker nor the holder itself takes it again.
    await database.db.execute(
      sql`update webhook_events set attempt_started_at = now() - interval '1 hour' where id = ${eventId}`,
    );
    expect(await claim(second.key)).toEqual([]);
    expect(await claim(first.key)).toEqual([]);
    expect(await stateOf(eventId)).toMatchObject({ attempt_count: 0, attempts: null });

    // The holder is gone (its process died): the attempt it had under way is interrupted.
    await first.release();
    const [taken] = await waitFor(
      () => claim(second.key),
      (claimed) => claimed.length > 0,
      { deadline: Date.now() + 10_000, intervalMs: 100, failure: "never taken over" },
    );
    expect(taken).toMatchObject({ id: eventId, attemptCount: 1 });
    expect(await stateOf(eventId)).toMatchObject({
      status: "pending",
      attempt_count: 1,
      attempts: [{ attempt: 1, outcome: "interrupted", status: null }],
    });

    // Should the first holder still record its attempt (it had only lost its session), the log
    // gets the truth in place of "interrupted"; the event stays with the newer attempt.
    const stale: ClaimedEvent = { ...held!, attemptCount: 0 };
    await recordAttempts(database.db, first.key, [
      { event: stale, outcome: answered, at: new Date() },
    ]);
    expect(await stateOf(eventId)).toMatchObject({
      status: "pending",
      attempt_count: 1,
      attempts: [{ attempt: 1, outcome: "delivered", status: 200 }],
    });

    await recordAttempts(database.db, second.key, [
      { event: taken!, outcome: answered, at: new Date() },
    ]);
    expect(await stateOf(eventId)).toMatchObject({
      status: "delivered",
      outcome: "delivered",
      attempt_count: 2,
      attempts: [
        { attempt: 1, outcome: "delivered" },
        { attempt: 2, outcome: "delivered" },
      ],
    });
    await second.release();
  });

  // pg_locks shows a bigint key as two unsigned halves. A high half of 2^31 or more (a negative
  // key, as hashtextextended gives the sandbox's channel locks half the time) overflowed the
  // product that rebuilt the key, and every claim that met an event held by another failed
  // while such a lock was held anywhere on the server (seen on PostgreSQL, beside other tests).
  it("reads a negative advisory key held beside it, and still leaves a held event to its holder", async () => {
    const first = await acquireHolder(database.db);
    const second = await acquireHolder(database.db);
    const eventId = await enqueue("beside-a-negative-key");
    expect((await claim(first.key)).map((event) => event.id)).toEqual([eventId]);
    await whileLocked(-(2n ** 40n) - 5n, async () => {
      expect(await claim(second.key)).toEqual([]);
    });
    await first.release();
    expect((await claim(second.key)).map((event) => event.id)).toEqual([eventId]);
    await second.release();
  });

  it("records an attempt only once, whoever sends its record twice", async () => {
    const holder = await acquireHolder(database.db);
    const eventId = await enqueue("twice");
    const [claimed] = await claim(holder.key);
    const record = { event: claimed!, outcome: { ...answered, status: 503 }, at: new Date() };
    await recordAttempts(database.db, holder.key, [record]);
    await recordAttempts(database.db, holder.key, [{ ...record, outcome: answered }]);
    expect(await stateOf(eventId)).toMatchObject({
      status: "delivered",
      outcome: "failed",
      attempt_count: 1,
      attempts: [{ attempt: 1, outcome: "failed", status: 503 }],
    });
    await holder.release();
  });
});
