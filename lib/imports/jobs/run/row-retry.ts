import { isPlatformError } from "@/lib/platform/errors";
import { platformRetries } from "@/lib/platform/retries";
import { nextRetry } from "@/lib/retry";
import type { RowUpdate } from "../store/row-updates";

/**
 * A 429 says "slow down", not "this row is wrong", and the platform did no work: a row's
 * first 20 answers of 429 give its try back. Past them each 429 uses a try like any other
 * transient failure, so a platform that answers 429 forever is given up on after at most
 * 20 + maxAttempts requests for the row.
 */
export const FREE_RATE_LIMITED_TRIES = 20;

export type RowRetryLimits = {
  /** Tries counted before a transient failure is final. */
  maxAttempts: number;
  /** 429s that do not count as tries; `FREE_RATE_LIMITED_TRIES` when absent. */
  freeRateLimitedTries?: number;
};

export type RowTries = {
  /** The tries counted so far, this one included (its claim counted it). */
  attempt: number;
  /** The row's 429s before this answer. */
  rateLimitedTries: number;
};

/** How the failed try changes the row's counts. */
export type TryCounts = Pick<RowUpdate, "attemptsDelta" | "rateLimitedTriesDelta">;

export type RowRetry = { counts: TryCounts } & (
  | { retry: true; delayMs: number }
  | {
      retry: false;
      reason: "permanent" | "exhausted" | "wait-too-long";
      /** Requests sent for the row, free 429s included. */
      tries: number;
      /** The last answer was a 429: the platform kept refusing for its rate limit. */
      rateLimited: boolean;
    }
);

/**
 * Whether a row whose request failed with `error` is tried again, and how the try is counted.
 * The one policy (`platformRetries`) decides; this only keeps the free 429s off the row's tries.
 */
export function rowRetry(limits: RowRetryLimits, tries: RowTries, error: unknown): RowRetry {
  const free = limits.freeRateLimitedTries ?? FREE_RATE_LIMITED_TRIES;
  const rateLimited = isPlatformError(error) && error.status === 429;
  const givenBack = rateLimited && tries.rateLimitedTries < free;
  const counted = givenBack ? tries.attempt - 1 : tries.attempt;
  const decision = nextRetry(platformRetries(limits.maxAttempts), counted, error);
  const counts: TryCounts = {
    attemptsDelta: givenBack ? -1 : 0,
    rateLimitedTriesDelta: rateLimited ? 1 : 0,
  };
  if (decision.retry) return { ...decision, counts };
  const freeTaken = Math.min(tries.rateLimitedTries + (rateLimited ? 1 : 0), free);
  return { ...decision, counts, tries: counted + freeTaken, rateLimited };
}

/** The result message of a row given up on; `subject` names what was sent when it is not the row itself. */
export function gaveUpMessage(
  decision: Extract<RowRetry, { retry: false }>,
  reason: string,
  subject?: string,
): string {
  const of = subject ? ` of ${subject}` : "";
  const why = decision.rateLimited ? "the platform kept answering 429 (rate limited): " : "";
  return `Gave up after ${decision.tries} tries${of}: ${why}${reason}`;
}
