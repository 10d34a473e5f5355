/**
 * The high-volume tests (import reliability, fuzzing) prove their property at two sizes: the
 * smaller in `npm test`, a few times over the faults and cases that matter, and the size they
 * had before (issue 26) in `npm run test:slow`, which sets TEST_SIZE=full and which CI runs
 * after `npm test`.
 */
export const fullSize = process.env.TEST_SIZE === "full";

/** `quick` in `npm test`, `full` in `npm run test:slow`. */
export function sized(quick: number, full: number): number {
  return fullSize ? full : quick;
}
