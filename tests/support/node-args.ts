/**
 * Node's options for the processes the tests start that open PGlite: Vitest's workers, sandboxes,
 * consoles and import workers.
 *
 * `--liftoff-only` keeps V8 to its baseline compiler for WebAssembly. By default V8 also
 * recompiles PGlite's hot functions with its optimizing compiler, about 1 CPU-second per process
 * that the short-lived processes of a test never win back (docs/testing.md, "Baseline
 * WebAssembly in tests"): the API suite took 137 s and 233 CPU-seconds with it, against 177 s
 * and 314 without, in one session. The optimized code wins only after about 10 s of database
 * work, so the product's own commands (`npm run serve`, `npm run sandbox`, the worker) keep
 * V8's default, and so does `npm run bench` (its script sets SWITCHBOARD_BENCH=1), which
 * measures the product as it runs. The option changes how fast the WebAssembly runs, never what
 * it does.
 *
 * Node refuses V8 options in NODE_OPTIONS, so each place that starts such a process passes these
 * on its command line.
 */
export const testNodeArgs = process.env.SWITCHBOARD_BENCH === "1" ? [] : ["--liftoff-only"];
