import type { RateLimitSettings } from "@/lib/db/schema";
import { minRatePerSecond } from "@/lib/schemas/rate-limits";

export type FaultSettings = {
  /** Share of requests answered 500 / 500901 before doing anything. */
  errorRate: number;
  /** Share of requests that never answer (half of them after doing the work). */
  hangRate: number;
  /** Latency added to every request. */
  latencyMs: number;
};

export type SandboxConfig = {
  defaultAppId: string;
  /** Token of the default application; generated and persisted when absent. */
  defaultApiToken?: string;
  /** Applies to applications with no limit of their own. */
  rateLimit: RateLimitSettings | null;
  faults: FaultSettings;
  webhookTimeoutMs: number;
};

const noFaults: FaultSettings = { errorRate: 0, hangRate: 0, latencyMs: 0 };

/** Parses `get=600,write=200,migration=5` (requests per second per application). */
export function parseRateLimit(value: string | undefined): RateLimitSettings | null {
  if (!value?.trim()) return null;
  const limit: RateLimitSettings = {};
  for (const [key, raw] of pairs(value, "SANDBOX_RATE_LIMIT")) {
    if (key !== "get" && key !== "write" && key !== "migration") {
      throw new Error(`SANDBOX_RATE_LIMIT: unknown key "${key}" (use get, write and migration)`);
    }
    const perSecond = Number(raw);
    if (!Number.isFinite(perSecond) || perSecond < minRatePerSecond) {
      throw new Error(
        `SANDBOX_RATE_LIMIT: ${key} must be a number of requests per second, at least ${minRatePerSecond} (below it, no request would get through)`,
      );
    }
    limit[key] = perSecond;
  }
  return limit;
}

/** Parses `error_rate=0.05,hang_rate=0.01,latency_ms=20`. */
export function parseFaults(value: string | undefined): FaultSettings {
  if (!value?.trim()) return noFaults;
  const faults = { ...noFaults };
  for (const [key, raw] of pairs(value, "SANDBOX_FAULTS")) {
    const number = Number(raw);
    if (key === "error_rate" || key === "hang_rate") {
      if (!(number >= 0 && number <= 1)) {
        throw new Error(`SANDBOX_FAULTS: ${key} must be a share between 0 and 1`);
      }
      faults[key === "error_rate" ? "errorRate" : "hangRate"] = number;
    } else if (key === "latency_ms") {
      if (!(Number.isInteger(number) && number >= 0 && number <= 60_000)) {
        throw new Error(
          "SANDBOX_FAULTS: latency_ms must be a whole number of milliseconds up to 60000",
        );
      }
      faults.latencyMs = number;
    } else {
      throw new Error(
        `SANDBOX_FAULTS: unknown key "${key}" (use error_rate, hang_rate, latency_ms)`,
      );
    }
  }
  return faults;
}

function pairs(value: string, variable: string): Array<[string, string]> {
  return value
    .split(",")
    .map((part) => part.trim())
    .filter(Boolean)
    .map((part) => {
      const [key, raw, extra] = part.split("=").map((piece) => piece.trim());
      if (!key || raw === undefined || raw === "" || extra !== undefined) {
        throw new Error(`${variable}: expected key=value pairs separated by commas, got "${part}"`);
      }
      return [key, raw];
    });
}
