/**
 * The rates, in requests per second, an application's limit may be set to. The sandbox's bucket
 * holds one second's worth of requests and each request takes a whole one, so a limit below 1
 * would never let a request through, the console's own included.
 */
export const minRatePerSecond = 1;
export const maxRatePerSecond = 100_000;
