import { describe, expect, it } from "vitest";
import { WorkerCalls, type WorkerAnswer } from "@/lib/imports/parse/worker-calls";

/** A worker that records what is posted and answers when told. */
class FakeWorker extends EventTarget {
  posted: Array<{ id: number; request: unknown }> = [];
  terminated = false;
  postMessage(message: { id: number; request: unknown }) {
    this.posted.push(message);
  }
  terminate() {
    this.terminated = true;
  }
  answer(data: WorkerAnswer<string>) {
    this.dispatchEvent(new MessageEvent("message", { data }));
  }
}

function setUp() {
  const worker = new FakeWorker();
  const everyone: string[] = [];
  const calls = new WorkerCalls<string>(
    worker as unknown as Worker,
    "It stopped. Reload the page.",
    (progress) => everyone.push(progress),
  );
  return { worker, calls, everyone };
}

describe("requests to a worker", () => {
  it("resolves each request with the answer of its own id, in any order", async () => {
    const { worker, calls } = setUp();
    const first = calls.call({ type: "a" });
    const second = calls.call({ type: "b" });
    expect(worker.posted).toEqual([
      { id: 1, request: { type: "a" } },
      { id: 2, request: { type: "b" } },
    ]);
    worker.answer({ kind: "result", id: 2, ok: true, result: "two" });
    worker.answer({ kind: "result", id: 1, ok: false, message: "No header row." });
    await expect(second).resolves.toBe("two");
    await expect(first).rejects.toThrow("No header row.");
  });

  it("gives a request's progress to it, and progress naming no request to the listener of all", async () => {
    const { worker, calls, everyone } = setUp();
    const heard: string[] = [];
    const call = calls.call({ type: "read" }, (progress) => heard.push(progress));
    worker.answer({ kind: "progress", id: 1, progress: "half" });
    worker.answer({ kind: "progress", progress: "overall" });
    worker.answer({ kind: "progress", id: 9, progress: "someone else's" });
    worker.answer({ kind: "result", id: 1, ok: true, result: null });
    await call;
    expect(heard).toEqual(["half"]);
    expect(everyone).toEqual(["overall"]);
  });

  it("rejects every request still waiting, in words, when the worker dies", async () => {
    const { worker, calls } = setUp();
    const waiting = [calls.call({}), calls.call({})];
    worker.dispatchEvent(new Event("error"));
    for (const call of waiting) await expect(call).rejects.toThrow("It stopped. Reload the page.");
    calls.terminate();
    expect(worker.terminated).toBe(true);
  });
});
