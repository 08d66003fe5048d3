import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { openDatabase, type SqliteDatabase } from "../../src/db/index.js";
import { StorageError } from "../../src/errors.js";
import { SqliteRunStore, type RunStore } from "../../src/runs/index.js";

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

/** A real store whose methods reject with a {@link StorageError} of `code` while `failing(method)` says so (or never answer, "hang"), and its call counts. */
export interface FailingStore {
  store: RunStore;
  /** Calls of each method so far, failed ones included. */
  calls: Record<string, number>;
}

/**
 * Wraps a real store (not a mock: every call that does not fail goes to it) so that a method fails the way a lost
 * PostgreSQL server makes it fail, before it reaches the database. `clock` is never failed.
 */
export function failingStore(
  store: RunStore,
  code: "DB_UNREACHABLE" | "DB_CONNECTION_LOST",
  failing: (method: string, call: number) => boolean | "hang",
): FailingStore {
  const calls: Record<string, number> = {};
  const wrapped = new Proxy(store, {
    get(target, property) {
      const value: unknown = Reflect.get(target, property, target);
      if (typeof value !== "function" || typeof property !== "string" || property === "clock") return value;
      return (...args: unknown[]) => {
        const call = (calls[property] = (calls[property] ?? 0) + 1);
        const fails = failing(property, call);
        // A server that stopped answering: the call neither resolves nor rejects (until pg's query_timeout, not modelled).
        if (fails === "hang") return new Promise(() => undefined);
        if (fails) return Promise.reject(new StorageError(code, `postgres@db:5432/test: ${property} failed (${code}, test)`));
        return (value as (...a: unknown[]) => unknown).apply(target, args);
      };
    },
  });
  return { store: wrapped, calls };
}
