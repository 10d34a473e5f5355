import { describe, expect, it } from "vitest";
import {
  SignInThrottle,
  delayAfterFailures,
  failureWindowMs,
  globalFailureFactor,
  maxDelayMs,
} from "@/lib/auth/sign-in-throttle";

function throttleWithClock() {
  const clock = { now: 1_000_000 };
  return { clock, throttle: new SignInThrottle(() => clock.now) };
}

describe("sign-in throttling", () => {
  it("grows the delay exponentially up to a cap, one typo free", () => {
    expect([0, 1, 2, 3, 4, 5, 6, 7, 50].map(delayAfterFailures)).toEqual([
      0, 0, 500, 1000, 2000, 4000, 8000, 8000, 8000,
    ]);
    expect(maxDelayMs).toBe(8000);
  });

  it("refuses a client until its delay has passed", () => {
    const { clock, throttle } = throttleWithClock();
    expect(throttle.recordFailure("10.0.0.1")).toBe(0);
    expect(throttle.check("10.0.0.1")).toEqual({ allowed: true });
    expect(throttle.recordFailure("10.0.0.1")).toBe(500);
    expect(throttle.check("10.0.0.1")).toEqual({ allowed: false, retryAfterMs: 500, scope: "client" });
    clock.now += 499;
    expect(throttle.check("10.0.0.1").allowed).toBe(false);
    clock.now += 1;
    expect(throttle.check("10.0.0.1")).toEqual({ allowed: true });
    expect(throttle.recordFailure("10.0.0.1")).toBe(1000);
  });

  it("keeps clients apart and forgives a client that signs in", () => {
    const { throttle } = throttleWithClock();
    throttle.recordFailure("a");
    throttle.recordFailure("a");
    expect(throttle.check("a").allowed).toBe(false);
    expect(throttle.check("b")).toEqual({ allowed: true });
    throttle.recordSuccess("a");
    expect(throttle.check("a")).toEqual({ allowed: true });
  });

  it("forgets failures after the window", () => {
    const { clock, throttle } = throttleWithClock();
    for (let i = 0; i < 6; i++) throttle.recordFailure("a");
    expect(throttle.check("a")).toMatchObject({ allowed: false, retryAfterMs: 8000 });
    clock.now += failureWindowMs + 1;
    expect(throttle.check("a")).toEqual({ allowed: true });
    expect(throttle.recordFailure("a")).toBe(0);
  });

  it("slows everyone down when failures come from many addresses", () => {
    const { throttle } = throttleWithClock();
    for (let i = 0; i < globalFailureFactor * 2; i++) throttle.recordFailure(`198.51.100.${i}`);
    expect(throttle.check("203.0.113.7")).toEqual({ allowed: false, retryAfterMs: 500, scope: "global" });
  });
});
