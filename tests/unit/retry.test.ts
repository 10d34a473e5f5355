import fc from "fast-check";
import { afterEach, describe, expect, it, vi } from "vitest";
import { NoAnswer, deliveryRetries } from "@/lib/delivery/delivery-retries";
import { sendCreation, sendFollowUps, type Pacers } from "@/lib/imports/jobs/run/send-row";
import { Pacer } from "@/lib/imports/jobs/run/pacer";
import { FREE_RATE_LIMITED_TRIES, gaveUpMessage, rowRetry } from "@/lib/imports/jobs/run/row-retry";
import { createPlatformClient, type FetchLike } from "@/lib/platform/client";
import { PlatformError } from "@/lib/platform/errors";
import { isTransientPlatformError, platformRetries, rateLimitWaits } from "@/lib/platform/retries";
import { nextRetry, retryDelay, retryPolicy, withRetries, type RetryPolicy } from "@/lib/retry";

const transient = () =>
  new PlatformError({ kind: "http", status: 503, message: "Service unavailable" });
const permanent = () =>
  new PlatformError({ kind: "http", status: 400, code: 400100, message: "Bad request" });
const noWait = () => Promise.resolve();
const always = retryPolicy({ isTransient: () => true });

describe("retryPolicy", () => {
  it("refuses a policy without a whole number of attempts, so none can try forever", () => {
    for (const attempts of [0, -1, 1.5, Number.POSITIVE_INFINITY, Number.NaN]) {
      expect(() => retryPolicy({ attempts, isTransient: () => true })).toThrow(RangeError);
    }
    expect(retryPolicy({ attempts: 1, isTransient: () => true }).attempts).toBe(1);
  });
});

describe("retryDelay", () => {
  const policy = retryPolicy({ baseMs: 100, maxDelayMs: 5000, isTransient: () => true });

  it("doubles the ceiling per failure and waits between half the ceiling and the ceiling", () => {
    expect(retryDelay(policy, 1, null, () => 0)).toBe(50);
    expect(retryDelay(policy, 1, null, () => 1)).toBe(100);
    expect(retryDelay(policy, 4, null, () => 1)).toBe(800);
    expect(retryDelay(policy, 30, null, () => 1)).toBe(5000);
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 60 }),
        fc.double({ min: 0, max: 1, noNaN: true }),
        (attempt, r) => {
          const ceiling = Math.min(5000, 100 * 2 ** (attempt - 1));
          const delay = retryDelay(policy, attempt, null, () => r);
          return delay >= Math.floor(ceiling / 2) && delay <= ceiling;
        },
      ),
    );
  });

  it("waits exactly the ceiling without jitter (webhook deliveries: 1 s, then 2 s)", () => {
    expect(retryDelay(deliveryRetries, 1)).toBe(1000);
    expect(retryDelay(deliveryRetries, 2)).toBe(2000);
  });

  it("waits at least as long as the peer's Retry-After", () => {
    expect(retryDelay(policy, 1, 3000, () => 1)).toBe(3000);
    expect(retryDelay(policy, 4, 10, () => 1)).toBe(800);
  });
});

describe("nextRetry", () => {
  it("never retries a permanent failure", () => {
    expect(nextRetry(platformRetries(), 1, permanent())).toEqual({
      retry: false,
      reason: "permanent",
    });
    expect(nextRetry(platformRetries(), 1, new Error("a bug"))).toEqual({
      retry: false,
      reason: "permanent",
    });
  });

  it("gives up once the attempts are used", () => {
    const policy = platformRetries(3);
    expect(nextRetry(policy, 2, transient()).retry).toBe(true);
    expect(nextRetry(policy, 3, transient())).toEqual({ retry: false, reason: "exhausted" });
    expect(nextRetry(policy, 99, transient())).toEqual({ retry: false, reason: "exhausted" });
  });

  it("gives up when the peer asks for a longer wait than the policy allows", () => {
    const policy = rateLimitWaits(3, 30_000);
    const tooLong = new PlatformError({
      kind: "http",
      status: 429,
      message: "slow down",
      retryAfterMs: 60_000,
    });
    const fine = new PlatformError({
      kind: "http",
      status: 429,
      message: "slow down",
      retryAfterMs: 2_000,
    });
    expect(nextRetry(policy, 1, tooLong)).toEqual({ retry: false, reason: "wait-too-long" });
    expect(nextRetry(policy, 1, fine)).toMatchObject({ retry: true });
    expect((nextRetry(policy, 1, fine) as { delayMs: number }).delayMs).toBeGreaterThanOrEqual(
      2_000,
    );
  });
});

describe("which platform failures are transient", () => {
  it("timeouts, lost connections, 429 and 5xx; never 4xx or our own errors", () => {
    expect(isTransientPlatformError(new PlatformError({ kind: "timeout", message: "t" }))).toBe(
      true,
    );
    expect(isTransientPlatformError(new PlatformError({ kind: "network", message: "n" }))).toBe(
      true,
    );
    expect(
      isTransientPlatformError(new PlatformError({ kind: "http", status: 429, message: "r" })),
    ).toBe(true);
    expect(isTransientPlatformError(transient())).toBe(true);
    expect(isTransientPlatformError(permanent())).toBe(false);
    expect(
      isTransientPlatformError(
        new PlatformError({ kind: "invalid_response", status: 200, message: "x" }),
      ),
    ).toBe(false);
    expect(isTransientPlatformError(new Error("x"))).toBe(false);
  });

  it("the client waits out only 429s", () => {
    const policy = rateLimitWaits(2, 30_000);
    expect(policy.isTransient(new PlatformError({ kind: "http", status: 429, message: "r" }))).toBe(
      true,
    );
    expect(policy.isTransient(transient())).toBe(false);
    expect(policy.attempts).toBe(3);
  });

  it("a webhook delivery is tried again only when no response came", () => {
    expect(deliveryRetries.isTransient(new NoAnswer("timeout"))).toBe(true);
    expect(deliveryRetries.isTransient(new Error("db down"))).toBe(false);
    expect(deliveryRetries.attempts).toBe(3);
  });
});

describe("withRetries", () => {
  it("for any policy, calls at most `attempts` times and throws the last failure", async () => {
    await fc.assert(
      fc.asyncProperty(fc.integer({ min: 1, max: 12 }), async (attempts) => {
        const policy: RetryPolicy = retryPolicy({ attempts, isTransient: () => true });
        let calls = 0;
        const last = await withRetries(
          async (attempt) => {
            calls++;
            throw new Error(`try ${attempt}`);
          },
          policy,
          { sleep: noWait },
        ).catch((error: Error) => error.message);
        return calls === attempts && last === `try ${attempts}`;
      }),
    );
  });

  it("returns the first success, and waits the policy's delays in between", async () => {
    const waits: number[] = [];
    const result = await withRetries(
      async (attempt) => {
        if (attempt < 3) throw transient();
        return attempt;
      },
      platformRetries(),
      { sleep: async (ms) => void waits.push(ms), random: () => 1 },
    );
    expect(result).toBe(3);
    expect(waits).toEqual([250, 500]);
  });

  it("throws a permanent failure at once", async () => {
    const call = vi.fn(async () => {
      throw permanent();
    });
    await expect(withRetries(call, platformRetries(), { sleep: noWait })).rejects.toThrow(
      "Bad request",
    );
    expect(call).toHaveBeenCalledTimes(1);
  });

  it("stops waiting when its signal fires", async () => {
    const controller = new AbortController();
    const started = withRetries(
      async () => {
        throw transient();
      },
      retryPolicy({ attempts: 5, baseMs: 60_000, isTransient: () => true }),
      { signal: controller.signal },
    );
    controller.abort(new Error("cancelled"));
    await expect(started).rejects.toThrow("cancelled");
  });

  it("tells onRetry about each wait", async () => {
    const seen: number[] = [];
    await withRetries(async () => 1, always, { onRetry: () => seen.push(1) });
    await withRetries(
      async (attempt) => {
        if (attempt === 1) throw new Error("once");
        return attempt;
      },
      always,
      { sleep: noWait, onRetry: ({ attempt }) => seen.push(attempt) },
    );
    expect(seen).toEqual([1]);
  });
});

/** A platform whose every creation is a 400202 and every read a 503: the check can never succeed. */
function platformThatCannotConfirm(calls: string[]) {
  const fetch: FetchLike = async (url, init) => {
    calls.push(`${init.method} ${new URL(url).pathname}`);
    if (init.method === "POST")
      return Response.json(
        { error: true, code: 400202, message: "The user already exists." },
        { status: 400 },
      );
    return Response.json({ error: true, code: 500901, message: "Unavailable." }, { status: 503 });
  };
  return createPlatformClient({
    appId: "a",
    chatBaseUrl: "http://peer/a",
    callsBaseUrl: "http://peer/a",
    apiToken: "t",
    fetch,
  });
}

describe("the import's retries are bounded", () => {
  afterEach(() => vi.useRealTimers());
  const pacers = (): Pacers => ({ read: new Pacer(), write: new Pacer(), migration: new Pacer() });

  async function settle<T>(promise: Promise<T>): Promise<T> {
    let done = false;
    void promise.finally(() => (done = true));
    while (!done) await vi.runAllTimersAsync();
    return promise;
  }

  it("a 400202 whose check keeps failing is retried while the row has tries, then fails with the reason", async () => {
    vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout"] });
    const calls: string[] = [];
    const client = platformThatCannotConfirm(calls);
    const input = {
      resource: "users" as const,
      key: "ada",
      body: { user_id: "ada" },
      earlierAttempts: 0,
      maxAttempts: 3,
      rateLimitedTries: 0,
    };

    const early = await settle(sendCreation(client, pacers(), { ...input, attempt: 1 }));
    expect(early).toMatchObject({ kind: "retry", code: 400202 });
    // The check itself is bounded: the creation, then platformRetries()' six reads.
    expect(calls).toEqual(["POST /a/v3/users", ...Array(6).fill("GET /a/v3/users/ada")]);

    const last = await settle(
      sendCreation(client, pacers(), { ...input, attempt: 3, earlierAttempts: 2 }),
    );
    expect(last.kind).toBe("failed");
    expect(last).toMatchObject({ code: 400202 });
    expect((last as { message: string }).message).toMatch(
      /^Gave up after 3 tries: .*checking failed: Unavailable\./,
    );
  });

  it("a transient failure of the creation is final at the last try", async () => {
    const fetch: FetchLike = async () =>
      Response.json({ code: 500901, message: "Unavailable." }, { status: 503 });
    const client = createPlatformClient({
      appId: "a",
      chatBaseUrl: "http://peer/a",
      callsBaseUrl: "http://peer/a",
      apiToken: "t",
      fetch,
    });
    const input = {
      resource: "users" as const,
      key: "ada",
      body: { user_id: "ada" },
      earlierAttempts: 0,
      maxAttempts: 2,
      rateLimitedTries: 0,
    };
    expect(await sendCreation(client, pacers(), { ...input, attempt: 1 })).toMatchObject({
      kind: "retry",
    });
    expect(await sendCreation(client, pacers(), { ...input, attempt: 2 })).toMatchObject({
      kind: "failed",
      message: "Gave up after 2 tries: Unavailable.",
    });
  });

  it("a platform answering 429 to every creation is given up on after the free 429s and maxAttempts", async () => {
    let requests = 0;
    const fetch: FetchLike = async () => {
      requests++;
      return Response.json(
        { error: true, code: 500910, message: "Too many requests." },
        { status: 429, headers: { "Retry-After": "0" } },
      );
    };
    const client = createPlatformClient({
      appId: "a",
      chatBaseUrl: "http://peer/a",
      callsBaseUrl: "http://peer/a",
      apiToken: "t",
      rateLimitRetries: 0,
      fetch,
    });
    // Counted as the runner counts them: a claim adds a try, the outcome's counts adjust it.
    const row = { attempts: 0, rateLimitedTries: 0 };
    let outcome;
    do {
      row.attempts++;
      outcome = await sendCreation(client, pacers(), {
        resource: "users",
        key: "ada",
        body: { user_id: "ada" },
        earlierAttempts: requests,
        attempt: row.attempts,
        maxAttempts: 3,
        rateLimitedTries: row.rateLimitedTries,
      });
      const counts = outcome.kind === "done" ? {} : (outcome.counts ?? {});
      row.attempts += counts.attemptsDelta ?? 0;
      row.rateLimitedTries += counts.rateLimitedTriesDelta ?? 0;
    } while (outcome.kind === "retry" && requests < 1000);

    expect(requests).toBe(FREE_RATE_LIMITED_TRIES + 3);
    expect(row).toEqual({ attempts: 3, rateLimitedTries: FREE_RATE_LIMITED_TRIES + 3 });
    expect(outcome).toMatchObject({
      kind: "failed",
      message: `Gave up after ${FREE_RATE_LIMITED_TRIES + 3} tries: the platform kept answering 429 (rate limited): Too many requests.`,
    });
  });

  it("a 429 among other failures: free while under the limit, then a try like any other", () => {
    const limits = { maxAttempts: 4, freeRateLimitedTries: 2 };
    const tooMany = () =>
      new PlatformError({ kind: "http", status: 429, code: 500910, message: "Too many." });
    expect(rowRetry(limits, { attempt: 4, rateLimitedTries: 1 }, tooMany())).toMatchObject({
      retry: true,
      counts: { attemptsDelta: -1, rateLimitedTriesDelta: 1 },
    });
    expect(rowRetry(limits, { attempt: 3, rateLimitedTries: 2 }, tooMany())).toMatchObject({
      retry: true,
      counts: { attemptsDelta: 0, rateLimitedTriesDelta: 1 },
    });
    expect(rowRetry(limits, { attempt: 4, rateLimitedTries: 2 }, tooMany())).toMatchObject({
      retry: false,
      reason: "exhausted",
      tries: 6,
      rateLimited: true,
    });
    // The last answer was not a 429: given up on without blaming the rate limit.
    const last = rowRetry(limits, { attempt: 4, rateLimitedTries: 2 }, transient());
    expect(last).toMatchObject({ retry: false, tries: 6, rateLimited: false });
    expect(gaveUpMessage(last as Extract<typeof last, { retry: false }>, "Unavailable.")).toBe(
      "Gave up after 6 tries: Unavailable.",
    );
  });

  it("a follow-up is tried `maxAttempts` times, then reported as failed", async () => {
    vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout"] });
    const calls: string[] = [];
    const client = platformThatCannotConfirm(calls);
    const outcome = await settle(
      sendFollowUps(client, pacers(), "users", "ada", { metadata: { team: "a" } }, 4),
    );
    expect(outcome).toMatchObject({ ok: false, code: 500901 });
    expect(calls).toHaveLength(4);
  });
});
