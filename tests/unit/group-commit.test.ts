import { describe, expect, it } from "vitest";
import { GroupCommit } from "@/lib/db/group-commit";

/** A group commit whose database answers at once with the items, recording each write. */
function echoingCommit() {
  const groups: number[][] = [];
  const commit = new GroupCommit<number, number>(
    async (items) => {
      groups.push(items);
      return items;
    },
    { maxItems: 100 },
  );
  return { commit, groups };
}

describe("GroupCommit", () => {
  it("gathers items submitted while a write is under way into the next write, answering each with its own result", async () => {
    const groups: number[][] = [];
    let writeStarted: () => void = () => {};
    const firstWrite = new Promise<void>((resolve) => (writeStarted = resolve));
    const commit = new GroupCommit<number, string>(
      async (items) => {
        groups.push(items);
        writeStarted();
        await new Promise((resolve) => setTimeout(resolve, 5));
        return items.map((item) =>
          item % 3 === 0 ? new Error(`refused ${item}`) : `stored ${item}`,
        );
      },
      { maxItems: 100 },
    );
    const first = commit.submit(1);
    // Submitted while the write of 1 is under way.
    await firstWrite;
    const answers = await Promise.allSettled([
      first,
      ...[2, 3, 4, 5, 6].map((item) => commit.submit(item)),
    ]);
    expect(groups).toEqual([[1], [2, 3, 4, 5, 6]]);
    expect(
      answers.map((answer) =>
        answer.status === "fulfilled" ? answer.value : (answer.reason as Error).message,
      ),
    ).toEqual(["stored 1", "stored 2", "refused 3", "stored 4", "stored 5", "refused 6"]);
  });

  it("gathers the items submitted in one turn of the event loop even when the database answers at once", async () => {
    // PGlite runs on this thread and answers within microtasks: without waiting for the end
    // of the turn, every request parsed in that turn would be written alone.
    const { commit, groups } = echoingCommit();
    const answers = await Promise.all([1, 2, 3].map((item) => commit.submit(item)));
    expect(answers).toEqual([1, 2, 3]);
    expect(groups).toEqual([[1, 2, 3]]);
  });

  it("keeps gathering while later turns of the event loop bring more items", async () => {
    // Ten connections answered by one write come back in two halves, a turn or so apart.
    const { commit, groups } = echoingCommit();
    const early = [1, 2].map((item) => commit.submit(item));
    await new Promise((resolve) => setImmediate(resolve));
    const late = [3, 4].map((item) => commit.submit(item));
    expect(await Promise.all([...early, ...late])).toEqual([1, 2, 3, 4]);
    expect(groups).toEqual([[1, 2, 3, 4]]);
  });

  it("stops gathering after a few turns when items keep arriving, so a steady stream cannot hold a group", async () => {
    const { commit, groups } = echoingCommit();
    const answers: Array<Promise<number>> = [];
    for (let item = 0; item < 20; item++) {
      answers.push(commit.submit(item));
      await new Promise((resolve) => setImmediate(resolve));
    }
    await Promise.all(answers);
    expect(groups[0]!.length).toBeLessThanOrEqual(4);
    expect(groups.flat()).toEqual(Array.from({ length: 20 }, (_, item) => item));
  });

  it("answers only after the write that carried the item has finished", async () => {
    let finished = false;
    const commit = new GroupCommit<number, number>(
      async (items) => {
        await new Promise((resolve) => setTimeout(resolve, 10));
        finished = true;
        return items;
      },
      { maxItems: 10 },
    );
    await commit.submit(1);
    expect(finished).toBe(true);
  });

  it("writes a failed group again one by one, so only the item that broke it fails", async () => {
    const commit = new GroupCommit<number, number>(
      async (items) => {
        if (items.includes(13)) throw new Error("constraint violated by 13");
        return items;
      },
      { maxItems: 10 },
    );
    const blocker = commit.submit(0);
    const answers = Promise.allSettled([12, 13, 14].map((item) => commit.submit(item)));
    await blocker;
    const settled = await answers;
    expect(settled.map((answer) => answer.status)).toEqual(["fulfilled", "rejected", "fulfilled"]);
    expect((settled[1] as PromiseRejectedResult).reason).toEqual(
      new Error("constraint violated by 13"),
    );
  });

  it("never puts more than maxItems into one write", async () => {
    const sizes: number[] = [];
    const commit = new GroupCommit<number, number>(
      async (items) => {
        sizes.push(items.length);
        return items;
      },
      { maxItems: 3 },
    );
    await Promise.all(Array.from({ length: 10 }, (_, index) => commit.submit(index)));
    expect(Math.max(...sizes)).toBeLessThanOrEqual(3);
    expect(sizes.reduce((sum, size) => sum + size, 0)).toBe(10);
  });
});
