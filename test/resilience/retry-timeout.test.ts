import { describe, expect, it } from "vitest";
import { NotPerformedError, ToolError } from "../../src/errors.js";
import { ManualClock, sleep } from "../../src/resilience/clock.js";
import { withTimeout } from "../../src/resilience/timeout.js";

describe("withTimeout", () => {
  it("resolves with the call's value when it finishes in time", async () => {
    const clock = new ManualClock();
    const promise = withTimeout((signal) => sleep(50, signal, clock).then(() => "done"), 100, undefined, { clock });
    await clock.advance(50);
    await expect(promise).resolves.toBe("done");
    expect(clock.pendingTimers).toBe(0);
  });

  it("aborts the call's signal and rejects with TOOL_TIMEOUT, even if the call ignores the signal", async () => {
    const clock = new ManualClock();
    let seen: AbortSignal | undefined;
    const promise = withTimeout(
      (signal) => {
        seen = signal;
        return new Promise<string>(() => undefined);
      },
      100,
      undefined,
      { clock, label: "get_weather" },
    );
    const outcome = promise.catch((error: unknown) => error);
    await clock.advance(99);
    expect(seen?.aborted).toBe(false);
    await clock.advance(1);
    const error = await outcome;
    expect(error).toBeInstanceOf(ToolError);
    expect(error).toMatchObject({ code: "TOOL_TIMEOUT", details: { timeoutMs: 100 } });
    expect((error as Error).message).toContain("get_weather");
    expect(seen?.aborted).toBe(true);
    expect(seen?.reason).toBe(error);
  });

  it("propagates the parent's abort to the call with the parent's reason", async () => {
    const clock = new ManualClock();
    const parent = new AbortController();
    let seen: AbortSignal | undefined;
    const promise = withTimeout(
      (signal) => {
        seen = signal;
        return sleep(1000, signal, clock);
      },
      5000,
      parent.signal,
      { clock },
    );
    const reason = new ToolError("CANCELED", "run canceled");
    parent.abort(reason);
    await expect(promise).rejects.toBe(reason);
    expect(seen?.aborted).toBe(true);
    expect(clock.pendingTimers).toBe(0);
  });

  it("on the parent's abort, a call that says it was never performed makes the rejection say so (a timeout does not wait)", async () => {
    const parent = new AbortController();
    const promise = withTimeout(
      (signal) => new Promise((_, reject) => signal.addEventListener("abort", () => {
        reject(new NotPerformedError("CANCELED", "aborted during latency", { cause: signal.reason }));
      })),
      5000,
      parent.signal,
    );
    const reason = new ToolError("CANCELED", "run canceled");
    parent.abort(reason);
    await expect(promise).rejects.toMatchObject({ name: "NotPerformedError", code: "CANCELED", performed: false, message: "run canceled, before it was performed" });
  });

  it("rejects at once when the parent already aborted, without calling", async () => {
    const parent = new AbortController();
    parent.abort();
    let called = false;
    await expect(
      withTimeout(async () => {
        called = true;
      }, 100, parent.signal),
    ).rejects.toMatchObject({ code: "CANCELED" });
    expect(called).toBe(false);
  });

  it("passes the call's own failure through and clears its timer", async () => {
    const clock = new ManualClock();
    const error = new Error("boom");
    await expect(withTimeout(() => Promise.reject(error), 100, undefined, { clock })).rejects.toBe(error);
    expect(clock.pendingTimers).toBe(0);
  });
});
