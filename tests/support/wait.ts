export type WaitOptions<T> = {
  /** When to give up (`Date.now() + …`); waits that make up one test may share it. */
  deadline: number;
  /** How long to wait between asks. */
  intervalMs: number;
  /** What the error says once the deadline has passed; a function is given the last answer. */
  failure: string | ((last: T) => string);
};

export const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** Asks `read` until `done` holds for its answer and returns that answer, or throws at the deadline. */
export async function waitFor<T>(
  read: () => Promise<T>,
  done: (value: T) => boolean,
  { deadline, intervalMs, failure }: WaitOptions<T>,
): Promise<T> {
  for (;;) {
    const value = await read();
    if (done(value)) return value;
    if (Date.now() > deadline)
      throw new Error(typeof failure === "string" ? failure : failure(value));
    await sleep(intervalMs);
  }
}
