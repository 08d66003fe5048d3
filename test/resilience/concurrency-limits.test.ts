import { describe, expect, it } from "vitest";
import { ToolLimits } from "../../src/resilience/limits.js";

const tick = async () => {
  for (let i = 0; i < 20; i++) await Promise.resolve();
};

function recorder() {
  const inFlight = new Map<string, number>();
  const peaks = new Map<string, number>();
  let total = 0;
  let totalPeak = 0;
  const releases: Array<() => void> = [];
  const call = (tool: string) => () =>
    new Promise<void>((resolve) => {
      total++;
      totalPeak = Math.max(totalPeak, total);
      inFlight.set(tool, (inFlight.get(tool) ?? 0) + 1);
      peaks.set(tool, Math.max(peaks.get(tool) ?? 0, inFlight.get(tool)!));
      releases.push(() => {
        total--;
        inFlight.set(tool, inFlight.get(tool)! - 1);
        resolve();
      });
    });
  const releaseAll = async () => {
    while (releases.length > 0) {
      releases.splice(0).forEach((r) => r());
      await tick();
    }
  };
  return { call, releaseAll, peaks, totalPeak: () => totalPeak, started: () => releases.length };
}

describe("ToolLimits", () => {
  it("enforces the per-tool and the global cap together", async () => {
    const limits = new ToolLimits(3);
    limits.configure("slow", { concurrency: 1 });
    const r = recorder();
    const calls = [
      ...Array.from({ length: 4 }, () => limits.run("slow", r.call("slow"))),
      ...Array.from({ length: 6 }, () => limits.run("fast", r.call("fast"))),
    ];
    await tick();
    expect(r.started()).toBe(3);
    await r.releaseAll();
    await Promise.all(calls);
    expect(r.peaks.get("slow")).toBe(1);
    expect(r.totalPeak()).toBe(3);
  });

  it("a call waiting on its busy tool does not hold a global slot", async () => {
    const limits = new ToolLimits(2);
    limits.configure("busy", { concurrency: 1 });
    const r = recorder();
    const calls = [limits.run("busy", r.call("busy")), limits.run("busy", r.call("busy")), limits.run("other", r.call("other"))];
    await tick();
    // busy#1 and other run; busy#2 waits for its tool slot, not for the global one.
    expect(r.started()).toBe(2);
    expect(limits.global.active).toBe(2);
    expect(limits.global.pending).toBe(0);
    await r.releaseAll();
    await Promise.all(calls);
  });

  it("cancel while waiting leaves every queue clean", async () => {
    const limits = new ToolLimits(1);
    const r = recorder();
    const first = limits.run("a", r.call("a"));
    const controller = new AbortController();
    const second = limits.run("b", r.call("b"), controller.signal);
    await tick();
    controller.abort();
    await expect(second).rejects.toMatchObject({ code: "CANCELED" });
    expect(limits.global.pending).toBe(0);
    expect(limits.perTool.get("b").active).toBe(0);
    await r.releaseAll();
    await first;
  });
});
