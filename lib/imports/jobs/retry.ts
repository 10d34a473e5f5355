import { isPlatformError } from "@/lib/platform/errors";
import { retryDelay } from "./backoff";

/** Runs a read (a look-up, a check) again after transient failures, with backoff and jitter. */
export async function withRetries<T>(call: () => Promise<T>, attempts = 6): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await call();
    } catch (error) {
      if (!isPlatformError(error) || !error.transient || attempt >= attempts) throw error;
      await new Promise((resolve) => setTimeout(resolve, retryDelay(attempt, error.retryAfterMs)));
    }
  }
}

/** Runs `work` over `items` with at most `concurrency` at a time. */
export async function forEachConcurrent<T>(items: readonly T[], concurrency: number, work: (item: T) => Promise<void>) {
  let next = 0;
  const lanes = Array.from({ length: Math.min(concurrency, items.length) }, async () => {
    while (next < items.length) await work(items[next++]!);
  });
  await Promise.all(lanes);
}
