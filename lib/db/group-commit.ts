/** Turns of the event loop a group waits for more items at most, so a steady stream cannot hold it. */
const maxGatherTurns = 4;

type Pending<Item, Result> = {
  item: Item;
  resolve: (result: Result) => void;
  reject: (error: unknown) => void;
};

/**
 * Group commit: items submitted while a write is under way are gathered and written together
 * by the next one, so a burst of concurrent requests costs a few statements instead of one
 * each. `write` returns one result or error per item, in order; every caller is answered
 * only after the statement that carried its item has committed. When a whole group fails
 * (say a foreign key vanished underneath), its items are written again one by one, so an
 * error reaches only the item that caused it.
 */
export class GroupCommit<Item, Result> {
  private readonly queue: Array<Pending<Item, Result>> = [];
  /** A write is scheduled or under way: it takes whatever is queued when it gets there. */
  private draining = false;

  constructor(
    private readonly write: (items: Item[]) => Promise<Array<Result | Error>>,
    private readonly options: { maxItems: number },
  ) {}

  submit(item: Item): Promise<Result> {
    return new Promise<Result>((resolve, reject) => {
      this.queue.push({ item, resolve, reject });
      if (this.draining) return;
      this.draining = true;
      this.gather(0, 1);
    });
  }

  /**
   * Waits for the end of this turn of the event loop, and of the next ones while they bring
   * more items (up to `maxGatherTurns`): every request whose bytes arrived meanwhile is parsed
   * by then and joins the group. Without the wait, a database that answers within microtasks
   * (PGlite, on this thread) would write groups of one; waiting one turn only, 10 connections
   * answered in two halves kept writing two groups of about 5 (measured: 9.6 users per
   * statement instead of 5.5, and ~25 % less CPU per creation on PGlite and on PostgreSQL).
   */
  private gather(queuedBefore: number, turn: number): void {
    setImmediate(() => {
      const queued = this.queue.length;
      const arriving = queued > queuedBefore && queued < this.options.maxItems;
      if (arriving && turn < maxGatherTurns) this.gather(queued, turn + 1);
      else void this.drain();
    });
  }

  /** One statement at a time: the next group is everything that arrived meanwhile. */
  private async drain(): Promise<void> {
    try {
      while (this.queue.length > 0) {
        const group = this.queue.splice(0, this.options.maxItems);
        await this.writeGroup(group);
      }
    } finally {
      this.draining = false;
    }
  }

  private async writeGroup(group: Array<Pending<Item, Result>>): Promise<void> {
    let results: Array<Result | Error>;
    try {
      results = await this.write(group.map((pending) => pending.item));
    } catch (error) {
      if (group.length === 1) return group[0]!.reject(error);
      for (const pending of group) await this.writeGroup([pending]);
      return;
    }
    group.forEach((pending, index) => {
      const result = results[index];
      if (result instanceof Error) pending.reject(result);
      else pending.resolve(result as Result);
    });
  }
}
