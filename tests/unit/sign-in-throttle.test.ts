import { describe, expect, it } from "vitest";
import {
  SignInThrottle,
  addressKey,
  delayAfterFailures,
  failureWindowMs,
  maxDelayMs,
} from "@/lib/auth/sign-in-throttle";

function throttleWithClock(concurrency?: number) {
  const clock = { now: 1_000_000 };
  return { clock, throttle: new SignInThrottle(() => clock.now, concurrency) };
}

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
    expect(await throttle.attempt("10.0.0.1", wrong)).toEqual({
      outcome: "wrong-password",
      retryAfterMs: 0,
    });
    expect(await throttle.attempt("10.0.0.1", wrong)).toEqual({
      outcome: "wrong-password",
      retryAfterMs: 500,
    });
    expect(await throttle.attempt("10.0.0.1", right)).toEqual({
      outcome: "throttled",
      retryAfterMs: 500,
    });
    clock.now += 500;
    expect(await throttle.attempt("10.0.0.1", wrong)).toEqual({
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
      Array.from({ length: 50 }, () => throttle.attempt("a", slowWrong)),
    );
    expect(checks).toBe(1);
    expect(outcomes.filter((o) => o.outcome === "throttled")).toHaveLength(49);
  });

  it("keeps clients apart and forgives a client that signs in", async () => {
    const { throttle } = throttleWithClock();
    await throttle.attempt("a", wrong);
    await throttle.attempt("a", wrong);
    expect(throttle.waitFor("a")).toBeGreaterThan(0);
    expect(await throttle.attempt("b", right)).toEqual({ outcome: "signed-in" });
    expect(throttle.waitFor("b")).toBe(0);
  });

  it("forgets failures after the window", async () => {
    const { clock, throttle } = throttleWithClock();
    for (let i = 0; i < 6; i++) {
      clock.now += maxDelayMs;
      await throttle.attempt("a", wrong);
    }
    expect(throttle.waitFor("a")).toBe(8000);
    clock.now += failureWindowMs + 1;
    expect(throttle.waitFor("a")).toBe(0);
    expect(await throttle.attempt("a", wrong)).toEqual({
      outcome: "wrong-password",
      retryAfterMs: 0,
    });
  });

  it("queues checks beyond the concurrency bound and never refuses a clean address", async () => {
    const { throttle } = throttleWithClock(2);
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
      throttle.attempt(`198.51.100.${i}`, check(false)),
    );
    const admin = throttle.attempt("203.0.113.7", check(true));
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
