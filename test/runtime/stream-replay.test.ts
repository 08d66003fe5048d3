// The chunks kept for reconnects: only runs someone streams, numbered in order, bounded, dropped after a quiet while.
import { afterEach, describe, expect, it, vi } from "vitest";
import { StreamReplay } from "../../src/runtime/stream-replay.js";

afterEach(() => vi.useRealTimers());

describe("StreamReplay", () => {
  it("numbers and keeps the chunks of retained runs only", () => {
    const replay = new StreamReplay();
    expect(replay.append("run_a", { mode: "values", payload: 1 })).toBeUndefined();
    replay.retain("run_a");
    expect(replay.append("run_a", { mode: "values", payload: 1 })?.seq).toBe(1);
    expect(replay.append("run_a", { mode: "updates", payload: 2 })?.seq).toBe(2);
    expect(replay.after("run_a", 1)).toEqual([{ seq: 2, mode: "updates", payload: 2 }]);
    expect(replay.after("run_b", 0)).toEqual([]);
    replay.clear();
  });

  it("keeps at most maxChunks, the newest, and forgets a run keepMs after its last chunk", () => {
    vi.useFakeTimers();
    const replay = new StreamReplay({ maxChunks: 2, keepMs: 1_000 });
    replay.retain("run_a");
    for (let i = 0; i < 5; i++) replay.append("run_a", { mode: "values", payload: i });
    expect(replay.after("run_a", 0).map((c) => c.seq)).toEqual([4, 5]);
    vi.advanceTimersByTime(900);
    replay.append("run_a", { mode: "values", payload: 5 });
    vi.advanceTimersByTime(900);
    expect(replay.after("run_a", 0).map((c) => c.seq)).toEqual([5, 6]);
    vi.advanceTimersByTime(200);
    expect(replay.after("run_a", 0)).toEqual([]);
  });
});
