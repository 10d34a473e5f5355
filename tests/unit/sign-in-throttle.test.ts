import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import {
  SignInThrottle,
  addressKey,
  delayAfterFailures,
  failureWindowMs,
  freeFailuresPerMinute,
  maxDelayMs,
  maxPacedWaitMs,
  pacedCheckIntervalMs,
  type SignInClient,
} from "@/lib/auth/sign-in-throttle";

function throttleWithClock(concurrency?: number) {
  const clock = { now: 1_000_000 };
  return { clock, throttle: new SignInThrottle({ now: () => clock.now, concurrency }) };
}

/** The outcome if the attempt has been answered by now, else "still waiting". */
const settledOrWaiting = <T>(attempt: Promise<T>) => Promise.race([attempt, "still waiting"]);

/** A client known by its address only. */
const from = (key: string): SignInClient => ({ key, trusted: false });

const wrong = async () => false;
const right = async () => true;

describe("sign-in throttling", () => {
  it("grows the delay exponentially up to a cap, one typo free", () => {
    expect([0, 1, 2, 3, 4, 5, 6, 7, 50].map(delayAfterFailures)).toEqual([
      0, 0, 500, 1000, 2000, 4000, 8000, 8000, 8000,
    ]);
    expect(maxDelayMs).toBe(8000);
  });

  it("refuses a client until its delay has passed", async () => {
    const { clock, throttle } = throttleWithClock();
    expect(await throttle.attempt(from("10.0.0.1"), wrong)).toEqual({
      outcome: "wrong-password",
      retryAfterMs: 0,
    });
    expect(await throttle.attempt(from("10.0.0.1"), wrong)).toEqual({
      outcome: "wrong-password",
      retryAfterMs: 500,
    });
    expect(await throttle.attempt(from("10.0.0.1"), right)).toEqual({
      outcome: "throttled",
      retryAfterMs: 500,
    });
    clock.now += 500;
    expect(await throttle.attempt(from("10.0.0.1"), wrong)).toEqual({
      outcome: "wrong-password",
      retryAfterMs: 1000,
    });
  });

  it("checks one of many parallel guesses from one address", async () => {
    const { throttle } = throttleWithClock();
    let checks = 0;
    const slowWrong = async () => {
      checks += 1;
      await new Promise((resolve) => setTimeout(resolve, 5));
      return false;
    };
    const outcomes = await Promise.all(
      Array.from({ length: 50 }, () => throttle.attempt(from("a"), slowWrong)),
    );
    expect(checks).toBe(1);
    expect(outcomes.filter((o) => o.outcome === "throttled")).toHaveLength(49);
  });

  it("keeps clients apart and forgives a client that signs in", async () => {
    const { throttle } = throttleWithClock();
    await throttle.attempt(from("a"), wrong);
    await throttle.attempt(from("a"), wrong);
    expect(throttle.waitFor("a")).toBeGreaterThan(0);
    expect(await throttle.attempt(from("b"), right)).toEqual({ outcome: "signed-in" });
    expect(throttle.waitFor("b")).toBe(0);
  });

  it("forgets failures after the window", async () => {
    const { clock, throttle } = throttleWithClock();
    for (let i = 0; i < 6; i++) {
      clock.now += maxDelayMs;
      await throttle.attempt(from("a"), wrong);
    }
    expect(throttle.waitFor("a")).toBe(8000);
    clock.now += failureWindowMs + 1;
    expect(throttle.waitFor("a")).toBe(0);
    expect(await throttle.attempt(from("a"), wrong)).toEqual({
      outcome: "wrong-password",
      retryAfterMs: 0,
    });
  });

  it("queues checks beyond the concurrency bound and never refuses a clean address", async () => {
    // Below the overall bound (see below): only the concurrency of checks is at work here.
    const throttle = new SignInThrottle({ concurrency: 2, freeFailuresPerMinute: 100 });
    let running = 0;
    let most = 0;
    const check = (result: boolean) => async () => {
      running += 1;
      most = Math.max(most, running);
      await new Promise((resolve) => setTimeout(resolve, 2));
      running -= 1;
      return result;
    };
    const flood = Array.from({ length: 40 }, (_, i) =>
      throttle.attempt(from(`198.51.100.${i}`), check(false)),
    );
    const admin = throttle.attempt(from("203.0.113.7"), check(true));
    expect(await admin).toEqual({ outcome: "signed-in" });
    await Promise.all(flood);
    expect(most).toBe(2);
  });

  it("counts IPv6 clients per /64 and IPv4-mapped addresses as IPv4", () => {
    expect(addressKey("2001:db8:1:2:aaaa::1")).toBe(addressKey("2001:db8:1:2:bbbb::9"));
    expect(addressKey("2001:db8:1:2::1")).not.toBe(addressKey("2001:db8:1:3::1"));
    expect(addressKey("::ffff:127.0.0.2")).toBe("127.0.0.2");
    expect(addressKey("unknown")).toBe("unknown");
  });
});

/** The global bound: what a flood from many addresses gets checked, and who goes first. */
describe("sign-in throttling across all addresses", { timeout: 60_000 }, () => {
  beforeEach(() => {
    vi.useFakeTimers();
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  /** A wrong password that counts its checks. */
  function counter() {
    const counts = { checks: 0 };
    const check = (result: boolean) => async () => {
      counts.checks += 1;
      return result;
    };
    return { counts, wrong: check(false), right: check(true) };
  }

  /**
   * Guessers from `addresses` distinct /64s, each sending its next guess as soon as the last is
   * answered (after its own delay, if any), for `seconds` of the fake clock.
   */
  async function flood(throttle: SignInThrottle, addresses: number, seconds: number) {
    const { counts, wrong } = counter();
    const outcomes: Record<string, number> = {};
    let flooding = true;
    const guessers = Array.from({ length: addresses }, async (_, i) => {
      const address = from(addressKey(`2001:db8:${Math.floor(i / 65536)}:${i % 65536}::1`));
      while (flooding) {
        const result = await throttle.attempt(address, wrong);
        outcomes[result.outcome] = (outcomes[result.outcome] ?? 0) + 1;
        const retryAfterMs = "retryAfterMs" in result ? result.retryAfterMs : 0;
        await new Promise((resolve) => setTimeout(resolve, Math.max(100, retryAfterMs)));
      }
    });
    await vi.advanceTimersByTimeAsync(seconds * 1000);
    flooding = false;
    return { counts, outcomes, done: () => Promise.all(guessers) };
  }

  it("checks at most the free failures and then one guess a second, however many addresses guess", async () => {
    const throttle = new SignInThrottle();
    const { counts, outcomes, done } = await flood(throttle, 200, 60);
    expect(throttle.isPaced()).toBe(true);
    // Without the global bound, each of the 200 /64s would be checked about every 8 s: 1,500 checks.
    expect(counts.checks).toBeLessThanOrEqual(freeFailuresPerMinute + 60 + 1);
    expect(counts.checks).toBeGreaterThanOrEqual(60);
    expect(outcomes.busy).toBeGreaterThan(200);
    await vi.advanceTimersByTimeAsync(maxPacedWaitMs + maxDelayMs);
    await done();
  });

  it("lets a remembered browser in at the next paced check while many addresses wait", async () => {
    const throttle = new SignInThrottle();
    const { done } = await flood(throttle, 200, 1);
    const admin = counter();
    const signingIn = throttle.attempt({ key: "browser:admin", trusted: true }, admin.right);
    await vi.advanceTimersByTimeAsync(pacedCheckIntervalMs);
    expect(await settledOrWaiting(signingIn)).toEqual({ outcome: "signed-in" });
    await vi.advanceTimersByTimeAsync(maxPacedWaitMs + maxDelayMs);
    await done();
  });

  it("checks an address that has not failed before addresses that have", async () => {
    const throttle = new SignInThrottle();
    // Long enough for every flooding address to have failed or waited in vain once.
    const { done } = await flood(throttle, 200, 20);
    const admin = counter();
    const signingIn = throttle.attempt(from("203.0.113.7"), admin.right);
    await vi.advanceTimersByTimeAsync(2 * pacedCheckIntervalMs);
    expect(await settledOrWaiting(signingIn)).toEqual({ outcome: "signed-in" });
    await vi.advanceTimersByTimeAsync(maxPacedWaitMs + maxDelayMs);
    await done();
  });

  it("answers busy, without a check, an attempt that waited too long, and counts it as a failure", async () => {
    const throttle = new SignInThrottle({ freeFailuresPerMinute: 1 });
    const { counts, wrong } = counter();
    await throttle.attempt(from("a"), wrong);
    expect(throttle.isPaced()).toBe(true);
    // One check a second: the first waiting attempt gets it, the next waits its turn.
    const waiting = Array.from({ length: 10 }, (_, i) => throttle.attempt(from(`b${i}`), wrong));
    await vi.advanceTimersByTimeAsync(maxPacedWaitMs);
    const outcomes = await Promise.all(waiting);
    expect(counts.checks).toBeLessThanOrEqual(1 + maxPacedWaitMs / pacedCheckIntervalMs);
    const busy = outcomes.filter((outcome) => outcome.outcome === "busy");
    expect(busy.length).toBe(10 - (counts.checks - 1));
    expect(busy[0]).toEqual({ outcome: "busy", retryAfterMs: pacedCheckIntervalMs });
    // The waited-in-vain attempt was a failure of its address: its next one goes behind a fresh address.
    const last = outcomes.indexOf(busy.at(-1)!);
    expect(throttle.waitFor(`b${last}`)).toBe(0);
  });

  it("stops pacing once a minute has passed without failures, letting waiting attempts through faster", async () => {
    const throttle = new SignInThrottle({ freeFailuresPerMinute: 2, maxPacedWaitMs: 120_000 });
    const { counts, wrong, right } = counter();
    await throttle.attempt(from("a"), wrong);
    await throttle.attempt(from("b"), wrong);
    expect(throttle.isPaced()).toBe(true);
    const signingIn = Array.from({ length: 100 }, (_, i) => throttle.attempt(from(`c${i}`), right));
    await vi.advanceTimersByTimeAsync(59_000);
    // One a second while the two failures are less than a minute old...
    expect(counts.checks - 2).toBeLessThanOrEqual(60);
    // ...then faster, as many at a time as the bound allows.
    await vi.advanceTimersByTimeAsync(30_000);
    expect(throttle.isPaced()).toBe(false);
    const outcomes = await Promise.all(signingIn);
    expect(outcomes.every((outcome) => outcome.outcome === "signed-in")).toBe(true);
  });
});
