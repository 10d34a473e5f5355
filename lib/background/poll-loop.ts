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
  options: {
    pollMs: number;
    onError: (error: unknown) => void;
    /** Shown by /healthz. */ name?: string;
  },
): PollLoop {
  let running = true;
  let nudged = false;
  let wake: (() => void) | undefined;
  const beat: LoopHeartbeat = {
    pollMs: options.pollMs,
    running: true,
    lastBeatAt: Date.now(),
    failing: false,
  };
  if (options.name) loopRegistry().set(options.name, beat);

  const done = (async () => {
    // The first tick runs after this function has returned, so `tick` may use the loop.
    await null;
    while (running) {
      nudged = false;
      let worked = false;
      beat.tickStartedAt = Date.now();
      try {
        worked = (await tick()) === true;
        beat.failing = false;
      } catch (error) {
        beat.failing = true;
        options.onError(error);
      }
      beat.tickStartedAt = undefined;
      beat.lastBeatAt = Date.now();
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
      beat.running = false;
      wake?.();
      await done;
      if (options.name && loopRegistry().get(options.name) === beat)
        loopRegistry().delete(options.name);
    },
  };
}

type LoopHeartbeat = {
  pollMs: number;
  running: boolean;
  /** When the last tick ended (or the loop started). */
  lastBeatAt: number;
  /** Set while a tick runs. */
  tickStartedAt?: number;
  /** The last tick threw (the database is down, say). */
  failing: boolean;
};

export type LoopHealth = { name: string; alive: boolean; failing: boolean; busyMs: number };

// One registry per process, shared by every Next.js bundle.
const registryKey = Symbol.for("switchboard.poll-loops");
function loopRegistry(): Map<string, LoopHeartbeat> {
  const store = globalThis as typeof globalThis & { [registryKey]?: Map<string, LoopHeartbeat> };
  return (store[registryKey] ??= new Map());
}

/**
 * The named loops of this process. A loop is alive while it runs and, between ticks, has
 * woken within its poll interval (plus slack for a busy event loop); a long tick is alive.
 */
export function pollLoopHealth(now = Date.now()): LoopHealth[] {
  return [...loopRegistry()].map(([name, beat]) => {
    const busyMs = beat.tickStartedAt === undefined ? 0 : now - beat.tickStartedAt;
    const overdue =
      beat.tickStartedAt === undefined && now - beat.lastBeatAt > beat.pollMs + 10_000;
    return { name, alive: beat.running && !overdue, failing: beat.failing, busyMs };
  });
}
