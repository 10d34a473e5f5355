import { randomBytes } from "node:crypto";
import { describe, expect, it } from "vitest";
import { listRows, rowCounts } from "@/lib/imports/jobs/store/jobs";
import type { FetchLike } from "@/lib/platform/client";
import { messagesFile, messagesMapping, usersFile, usersMapping } from "@/tests/fixtures/imports";
import { sharedSandbox } from "./support/http";
import { clientFor, createPlannedJob, runJob, useJobDatabase } from "./imports-harness";

/** The sandbox, except that every request to a path containing `refused` is answered 429. */
function alwaysRateLimited(refused: string, counted: { requests: number }): FetchLike {
  return async (url, init) => {
    if (init?.method !== "POST" || !url.includes(refused)) return fetch(url, init);
    counted.requests++;
    return Response.json(
      { error: true, code: 500910, message: "Too many requests." },
      { status: 429, headers: { "Retry-After": "0" } },
    );
  };
}

describe("an import against a platform that answers 429 forever", () => {
  const sandbox = sharedSandbox();
  const jobs = useJobDatabase();

  /** Runs the job with 2 tries per row and 3 free 429s, every POST to `refused` answered 429. */
  async function runRefused(jobId: string, refused: string) {
    const counted = { requests: 0 };
    const { job } = await runJob(jobs.handle, sandbox, jobId, {
      maxAttempts: 2,
      freeRateLimitedTries: 3,
      createClient: async (hooks) =>
        clientFor(sandbox, { ...hooks, fetch: alwaysRateLimited(refused, counted) }),
    });
    return { job, requests: counted.requests };
  }

  it("gives the users up after the free 429s and their tries, saying it was the rate limit", async () => {
    const prefix = `limited_${randomBytes(4).toString("hex")}`;
    const planned = await createPlannedJob(
      jobs.handle,
      sandbox,
      "users",
      usersFile(3, prefix),
      usersMapping,
    );
    const { job, requests } = await runRefused(planned.id, "/v3/users");

    expect(job.status).toBe("completed");
    expect(await rowCounts(jobs.handle.db, job.id)).toMatchObject({ failed: 3, pending: 0 });
    expect(requests).toBe(3 * (3 + 2));
    for (const row of await listRows(jobs.handle.db, job.id, { limit: 10 })) {
      expect(row).toMatchObject({ state: "failed", attempts: 2, rateLimitedTries: 5 });
      expect(row.resultMessage).toBe(
        "Gave up after 5 tries: the platform kept answering 429 (rate limited): Too many requests.",
      );
    }
  });

  it("gives a channel's messages up the same way", async () => {
    const prefix = `limited_${randomBytes(4).toString("hex")}`;
    const client = clientFor(sandbox);
    const sender = `${prefix}_ann`;
    const channel = `${prefix}_open`;
    await client.users.create({ user_id: sender, nickname: sender, profile_url: "" });
    await client.openChannels.create({ channel_url: channel });
    const planned = await createPlannedJob(
      jobs.handle,
      sandbox,
      "messages",
      messagesFile([channel], [sender], 4, { prefix }),
      messagesMapping,
    );
    const { job, requests } = await runRefused(planned.id, "/v3/migration/");

    expect(job.status).toBe("completed");
    const rows = await listRows(jobs.handle.db, job.id, { limit: 10 });
    expect(await rowCounts(jobs.handle.db, job.id)).toMatchObject({
      failed: rows.length,
      pending: 0,
    });
    // One request carries the channel's messages: 3 free 429s, then 2 tries.
    expect(requests).toBe(3 + 2);
    for (const row of rows) {
      expect(row.state).toBe("failed");
      expect(row.resultMessage).toMatch(
        /^Gave up after 5 tries of the request of \d+ messages to .*: the platform kept answering 429 \(rate limited\): Too many requests\.$/,
      );
    }
  });
});
