import { retryPolicy } from "@/lib/retry";

/** An attempt that got no HTTP response (timeout, refused, reset, refused by the address guard). */
export class NoAnswer extends Error {
  constructor(reason: string | null) {
    super(reason ?? "No answer.");
    this.name = "NoAnswer";
  }
}

/**
 * The platform's delivery rules (interface 6.1 and 8), for the sandbox's outbox and the
 * console's test events alike: three attempts until any response, 1 s then 2 s apart.
 */
export const deliveryRetries = retryPolicy({
  attempts: 3,
  baseMs: 1000,
  jitter: false,
  isTransient: (error) => error instanceof NoAnswer,
});
