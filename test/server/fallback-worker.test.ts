// The in-process worker of a server with worker processes claims only while none of them is ready.
import { afterEach, describe, expect, it, vi } from "vitest";
import type { Worker, WorkerStats } from "../../src/runs/index.js";
import { FallbackWorker } from "../../src/server/fallback-worker.js";

interface FakeWorker extends Worker {
  stops: ({ abort?: boolean } | undefined)[];
}

function fakeWorker(): FakeWorker {
  let finish: (stats: WorkerStats) => void = () => undefined;
  const loop = new Promise<WorkerStats>((resolve) => (finish = resolve));
  const stops: ({ abort?: boolean } | undefined)[] = [];
  return {
    workerId: "fake", active: 0, stops,
    run: () => loop,
    poke: () => undefined,
    stop: async (options) => {
      stops.push(options);
      finish({ claimed: 0, finished: {}, lost: 0, released: 0 });
      await loop;
    },
  };
}

afterEach(() => {
  vi.useRealTimers();
});

describe("FallbackWorker", () => {
  it("runs an in-process worker while no worker process is ready, stops claiming when one is, starts again when none is", async () => {
    vi.useFakeTimers();
    const made: FakeWorker[] = [];
    let ready = false;
    const fallback = new FallbackWorker(() => {
      const worker = fakeWorker();
      made.push(worker);
      return worker;
    }, () => ready);
    expect(made).toHaveLength(1);

    ready = true;
    await vi.advanceTimersByTimeAsync(600);
    // A graceful stop: the runs it holds finish here.
    expect(made[0]!.stops).toEqual([undefined]);
    await vi.advanceTimersByTimeAsync(600);
    expect(made).toHaveLength(1);

    ready = false;
    await vi.advanceTimersByTimeAsync(600);
    expect(made).toHaveLength(2);
    await fallback.stop();
    expect(made[1]!.stops).toEqual([{ abort: true }]);
  });

  it("never starts one while worker processes are ready, and stop() is then a no-op", async () => {
    const made: Worker[] = [];
    const fallback = new FallbackWorker(() => {
      const worker = fakeWorker();
      made.push(worker);
      return worker;
    }, () => true);
    await fallback.stop();
    expect(made).toEqual([]);
  });
});
