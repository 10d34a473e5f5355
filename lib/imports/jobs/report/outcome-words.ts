/** A job's (or a stage's) rows by outcome, as the imports list and the migration overview count them. */
export type OutcomeCounts = {
  created: number;
  existed: number;
  failed: number;
  /** Invalid in the preview or the plan: never sent. */
  invalid: number;
  /** Excluded by the administrator: never sent. */
  excluded: number;
  pending: number;
  /** Messages sent whose replies or reactions could not be carried (counted among created). */
  threadsFailed: number;
};

const n = (value: number) => value.toLocaleString("en");

/**
 * The outcome in words: created and failed always, the rows left out (invalid or excluded)
 * always once any row is counted, so "0 failed" never hides rows that were never sent; existed
 * and the rows still to send only when there are some. `over`: the job stopped for good, so
 * its pending rows will never be sent.
 */
export function outcomeWords(counts: OutcomeCounts, over: boolean): string {
  const leftOut = counts.invalid + counts.excluded;
  const parts = [`${n(counts.created)} created`];
  if (counts.existed > 0) parts.push(`${n(counts.existed)} existed`);
  parts.push(`${n(counts.failed)} failed`, `${n(leftOut)} left out`);
  if (counts.threadsFailed > 0)
    parts.push(`${n(counts.threadsFailed)} with replies or reactions not carried`);
  if (counts.pending > 0) parts.push(`${n(counts.pending)} ${over ? "not sent" : "to send"}`);
  return parts.join(", ");
}
