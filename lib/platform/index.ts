import "server-only";

export {
  createPlatformClient,
  type PlatformClient,
  type PlatformClientOptions,
  type ResponseInfo,
} from "./client";
export { PlatformError, isPlatformError, type PlatformErrorKind } from "./errors";
export { parseRateLimitHeaders, parseRetryAfter, type RateLimitInfo } from "./rate-limit";
export * from "./target";
export type * from "./types";
