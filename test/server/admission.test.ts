// The server's run admission: idle-loop runs start at once; a loop kept busy holds the surplus back, first come first served.
import { describe, expect, it } from "vitest";
import { Admission } from "../../src/server/admission.js";

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Keeps the event loop busy for `ms` in slices, as CPU-bound runs do. */
async function busy(ms: number): Promise<void> {
  const until = performance.now() + ms;
  while (performance.now() < until) {
    const slice = performance.now() + 5;
    while (performance.now() < slice) {
      // spin
    }
    await new Promise((resolve) => setImmediate(resolve));
  }
}

describe("Admission", () => {
  it("lets runs that wait on I/O all run at once, however many arrive together", async () => {
    const gate = new Admission({ minRunning: 2 });
    let peak = 0;
    const done: Promise<void>[] = [];
    for (let i = 0; i < 40; i++) {
      done.push(new Promise<void>((resolve) => {
        gate.admit(async () => {
          peak = Math.max(peak, gate.active);
          await sleep(1000);
          resolve();
        });
      }));
    }
    // A burst in one turn is spread over a few probes, but an idle loop lets every run in before any ends.
    await Promise.all(done);
    expect(peak).toBe(40);
    gate.close();
  });

  it("holds runs back while the loop is saturated and starts them in arrival order", async () => {
    const gate = new Admission({ minRunning: 2, maxUtilization: 0.5 });
    const order: number[] = [];
    // (Before the first probe the loop counts as idle, so a burst gets free slots plus one period's credit.)
    const finished: Promise<void>[] = [];
    let peak = 0;
    for (let i = 0; i < 12; i++) {
      finished.push(new Promise<void>((resolve) => {
        gate.admit(async () => {
          order.push(i);
          peak = Math.max(peak, gate.active);
          await busy(60);
          resolve();
        });
      }));
    }
    // Two free slots and the starts one probe period allows; the rest wait.
    expect(gate.active).toBe(6);
    expect(gate.waiting).toBe(6);
    await Promise.all(finished);
    expect(order).toEqual([...order].sort((a, b) => a - b));
    expect(peak).toBeLessThan(12);
    expect(gate.active).toBe(0);
    gate.close();
  });

  it("starts nothing more once closed", () => {
    const gate = new Admission({ minRunning: 1 });
    let started = 0;
    gate.admit(() => {
      started++;
      return new Promise(() => undefined);
    });
    gate.admit(() => {
      started++;
      return Promise.resolve();
    });
    // One free slot, and the credit before the first probe lets the second in too.
    expect(started).toBe(2);
    gate.close();
    gate.admit(() => {
      started++;
      return Promise.resolve();
    });
    expect(started).toBe(2);
    expect(gate.waiting).toBe(0);
  });
});
