export type PollLoop = {
  /** Run the next tick now (new work arrived), or as soon as the current one ends. */
  nudge: () => void;
  /** Whether the loop still runs; long ticks check it to stop early. */
  readonly running: boolean;
  /** Ends the loop after the current tick. */
  stop: () => Promise<void>;
};

/**
 * Runs `tick` over and over until stopped: at once again when it did work (returned true) or
 * was nudged meanwhile, otherwise after `pollMs` or the next nudge, whichever comes first.
 * The shape of every background worker here (webhook outbox, import jobs).
 */
export function startPollLoop(
  tick: () => Promise<boolean | void>,
  options: { pollMs: number; onError: (error: unknown) => void },
): PollLoop {
  let running = true;
  let nudged = false;
  let wake: (() => void) | undefined;

  const done = (async () => {
    // The first tick runs after this function has returned, so `tick` may use the loop.
    await null;
    while (running) {
      nudged = false;
      let worked = false;
      try {
        worked = (await tick()) === true;
      } catch (error) {
        options.onError(error);
      }
      if (!running) break;
      if (worked || nudged) continue;
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, options.pollMs);
        wake = () => {
          clearTimeout(timer);
          resolve();
        };
      });
      wake = undefined;
    }
  })();

  return {
    nudge: () => {
      nudged = true;
      wake?.();
    },
    get running() {
      return running;
    },
    stop: async () => {
      running = false;
      wake?.();
      await done;
    },
  };
}
