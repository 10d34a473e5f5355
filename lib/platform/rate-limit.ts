/** What a response said about the caller's rate limit (sandbox contract, "Rate limits"). */
export type RateLimitInfo = {
  /** Requests allowed per window, from `X-RateLimit-Limit: 200;w=1`. */
  limit: number | null;
  /** Window of that limit in seconds. */
  windowSeconds: number | null;
  remaining: number | null;
  /** How long to wait before trying again, when the response says. */
  retryAfterMs: number | null;
};

export function parseRateLimitHeaders(headers: Pick<Headers, "get">): RateLimitInfo | null {
  const limitHeader = headers.get("x-ratelimit-limit");
  const remainingHeader = headers.get("x-ratelimit-remaining");
  const retryAfterMs = parseRetryAfter(headers);
  if (limitHeader === null && remainingHeader === null && retryAfterMs === null) return null;
  let limit: number | null = null;
  let windowSeconds: number | null = null;
  if (limitHeader) {
    const [value, ...params] = limitHeader.split(";").map((part) => part.trim());
    limit = finiteOrNull(Number(value));
    const window = params.find((param) => param.startsWith("w="));
    windowSeconds = window ? finiteOrNull(Number(window.slice(2))) : 1;
  }
  return {
    limit,
    windowSeconds,
    remaining: remainingHeader === null ? null : finiteOrNull(Number(remainingHeader)),
    retryAfterMs,
  };
}

/**
 * The decimal `X-RateLimit-RetryAfter` is the more precise of the two; `Retry-After`
 * may be whole seconds or an HTTP date.
 */
export function parseRetryAfter(headers: Pick<Headers, "get">, now = Date.now()): number | null {
  const precise = headers.get("x-ratelimit-retryafter");
  if (precise !== null) {
    const seconds = Number(precise);
    if (Number.isFinite(seconds) && seconds >= 0) return Math.ceil(seconds * 1000);
  }
  const retryAfter = headers.get("retry-after");
  if (retryAfter === null) return null;
  const seconds = Number(retryAfter);
  if (Number.isFinite(seconds) && seconds >= 0) return seconds * 1000;
  const date = Date.parse(retryAfter);
  return Number.isNaN(date) ? null : Math.max(0, date - now);
}

function finiteOrNull(value: number): number | null {
  return Number.isFinite(value) ? value : null;
}
