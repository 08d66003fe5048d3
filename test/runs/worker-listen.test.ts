// A worker listens for runs queued only while it has room: full, it hears no word of them (on PostgreSQL the
// channel is not listened to, so a NOTIFY wakes only workers that can take the run), and with room again it listens
// and looks once. Its runs' own word (a cancel) it hears through each lease's own scope.
import { setTimeout as sleep } from "node:timers/promises";
import { describe, expect, it } from "vitest";
import { openDatabase } from "../../src/db/index.js";
import { SqliteRunStore, createWorker, type RunSignalListener, type RunSignals } from "../../src/runs/index.js";
import { tempDbPath } from "./helpers.js";

/** Signals that record which scopes are listened to now; nothing is ever sent. */
function recordingSignals(): RunSignals & { active: string[] } {
  const active: string[] = [];
  return {
    crossProcess: true,
    active,
    async listen(_listener: RunSignalListener, scope: Parameters<RunSignals["listen"]>[1] = "all") {
      const name = typeof scope === "object" ? `run:${scope.runId}` : scope;
      active.push(name);
      return () => void active.splice(active.indexOf(name), 1);
    },
  };
}

async function waitFor(check: () => boolean): Promise<void> {
  while (!check()) await sleep(5);
}

describe("a worker's listens", () => {
  it("listens for runs queued only while it has room, and to each run it executes on that run's own scope", async () => {
    const store = SqliteRunStore.open(openDatabase(tempDbPath()));
    const signals = recordingSignals();
    const { runId } = await store.create({ graphId: "g" });
    let release: () => void = () => undefined;
    const worker = createWorker({
      store, signals, concurrency: 1, safetyPollMs: 10,
      execute: () => new Promise((resolve) => (release = () => resolve({ status: "SUCCEEDED", result: 1 }))),
    });
    const running = worker.run();
    await waitFor(() => worker.active === 1 && !signals.active.includes("queued"));
    expect(signals.active).toEqual([`run:${runId}`]);
    release();
    await waitFor(() => worker.active === 0 && signals.active.includes("queued"));
    expect(signals.active).toEqual(["queued"]);
    await worker.stop();
    await running;
    expect(signals.active).toEqual([]);
  });
});
