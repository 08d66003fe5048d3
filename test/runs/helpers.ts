import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { openDatabase, type SqliteDatabase } from "../../src/db/index.js";
import { SqliteRunStore } from "../../src/runs/index.js";

/** A fresh database file in its own temp directory. */
export function tempDbPath(name = "runs.db"): string {
  return join(mkdtempSync(join(tmpdir(), "agentrt-runs-")), name);
}

/** A hand-driven clock so lease and deadline tests never depend on wall time. */
export interface FakeClock {
  now: number;
  (): number;
  advance(ms: number): void;
}

export function fakeClock(start = 1_700_000_000_000): FakeClock {
  const clock = (() => clock.now) as FakeClock;
  clock.now = start;
  clock.advance = (ms: number) => {
    clock.now += ms;
  };
  return clock;
}

/** A store on a fresh file with a fake clock. */
export function freshStore(path = tempDbPath()): { db: SqliteDatabase; store: SqliteRunStore; clock: FakeClock; path: string } {
  const db = openDatabase(path);
  const clock = fakeClock();
  return { db, store: SqliteRunStore.open(db, { clock }), clock, path };
}

/** The error a function throws or its promise rejects with (fails the test if it returns). */
export async function thrown(fn: () => unknown): Promise<unknown> {
  try {
    await fn();
  } catch (error) {
    return error;
  }
  throw new Error("expected the call to throw");
}
