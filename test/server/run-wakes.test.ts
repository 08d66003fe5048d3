import { describe, expect, it } from "vitest";
import type { LeaseState } from "../../src/runs/index.js";
import { RunWakes } from "../../src/server/run-wakes.js";

describe("RunWakes", () => {
  it("wakes, on another connection's write, only the waiters whose run moved on from what they saw", async () => {
    let version = 1;
    const states = new Map<string, LeaseState>([
      ["r1", { runId: "r1", status: "RUNNING", fencingToken: 1 }],
      ["r2", { runId: "r2", status: "RUNNING", fencingToken: 1 }],
    ]);
    const asked: string[][] = [];
    const wakes = new RunWakes(async () => version, {
      states: async (ids) => {
        asked.push([...ids]);
        return ids.flatMap((id) => states.get(id) ?? []);
      },
    });
    try {
      const running = { status: "RUNNING", fencingToken: 1 };
      // The first poll wakes everyone (the periodic safety wake); then each waiter waits again on what it saw.
      await Promise.all([wakes.next("r1", undefined, undefined, running), wakes.next("r2", undefined, undefined, running)]);
      let r1Woken = false;
      const r1 = wakes.next("r1", undefined, undefined, running).then(() => (r1Woken = true));
      const r2 = wakes.next("r2", undefined, undefined, running);
      states.set("r2", { runId: "r2", status: "SUCCEEDED", fencingToken: 1 });
      version = 2;
      await r2;
      expect(r1Woken).toBe(false);
      expect(asked.at(-1)?.sort()).toEqual(["r1", "r2"]);
      // A waiter that said nothing of what it saw is woken by any foreign write, as before.
      const r3 = wakes.next("r3");
      version = 3;
      await r3;
      expect(r1Woken).toBe(false);
      wakes.notify("r1");
      await r1;
    } finally {
      wakes.close();
    }
  });

  it("keeps final values reported while no waiter waited, says so, and hands them to the next wait only", async () => {
    const wakes = new RunWakes(async () => 1);
    try {
      // A signal woke the waiter, which is reading the run when this process's own execution reports its rest.
      wakes.rested("r1", { answer: 42 });
      wakes.rested("r2");
      expect(wakes.holdsReport("r1")).toBe(true);
      // A rest without values has nothing worth keeping: its waiter reads the checkpoint anyway.
      expect(wakes.holdsReport("r2")).toBe(false);
      await expect(wakes.next("r1")).resolves.toEqual({ values: { answer: 42 } });
      expect(wakes.holdsReport("r1")).toBe(false);
    } finally {
      wakes.close();
    }
  });
});
