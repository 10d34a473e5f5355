import type { RehearsalProgress } from "@/lib/imports/types";

/** A running rehearsal as the job page shows it: counts, pace and time left. */
export type RehearsalPace = {
  total: number;
  done: number;
  created: number;
  existed: number;
  failed: number;
  /** Rows finished per second since the rows started to be sent. */
  perSecond: number;
  /** At that pace; null when unknown. */
  secondsLeft: number | null;
};

/**
 * The pace over the whole sending so far, up to `now`, from the counts written on the job: the
 * same in every process and after a reload (a run's pace is read from its rows instead,
 * `../report/report.ts`). A rehearsal sends without a rate limit, so its pace is steady enough
 * not to need a window; one that stalls (a look-up that waits) slows down as it should.
 */
export function rehearsalPace(progress: RehearsalProgress, now = Date.now()): RehearsalPace {
  const { total, done, created, existed, failed } = progress;
  const seconds = (Math.max(now, Date.parse(progress.at)) - Date.parse(progress.since)) / 1000;
  const perSecond = seconds >= 1 ? done / seconds : 0;
  return {
    total,
    done,
    created,
    existed,
    failed,
    perSecond: Math.round(perSecond * 10) / 10,
    secondsLeft: perSecond > 0 ? Math.ceil(Math.max(0, total - done) / perSecond) : null,
  };
}
