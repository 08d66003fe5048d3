// What every part of the run-store conformance suite shares: the opened stores, a test wrapper, small helpers.
import type { StoreTransaction } from "../../../src/db/index.js";
import { Scheduler, type RunStore } from "../../../src/runs/index.js";
import type { FakeClock } from "../helpers.js";

/** A fresh store, a second store on the same database, and the clock both read. */
export interface OpenedRunStore {
  store: RunStore;
  other: RunStore;
  clock: FakeClock;
  /**
   * Runs `work` inside a transaction of `store`'s own connection (as a checkpoint or ledger write would), then
   * commits it, or rolls it back with `rollback`; `work` must not await anything on SQLite.
   */
  transaction(work: (tx: StoreTransaction) => unknown, options?: { rollback?: boolean }): Promise<void>;
  /** A transaction of the other backend, which `store.fenceIn` must refuse. */
  foreignTransaction: StoreTransaction;
  close(): Promise<void>;
}

/** Opens a fresh pair of stores. */
export type OpenRunStore = () => Promise<OpenedRunStore>;

/** A claim as the tests make them. */
export const claim = { workerId: "w1", leaseMs: 1000 };

/** Caps that never hold a claim back. */
export const noCaps = { maxRunning: Infinity, maxRunningPerUser: Infinity, userLimits: {} };

/** The rejection of `promise` (fails the test if it resolves). */
export async function rejection(promise: unknown): Promise<unknown> {
  try {
    await promise;
  } catch (error) {
    return error;
  }
  throw new Error("expected a rejection");
}

/** Wraps a test body so it gets fresh stores, closed afterwards. */
export function storeTest(open: OpenRunStore, fn: (opened: OpenedRunStore) => Promise<void>): () => Promise<void> {
  return async () => {
    const opened = await open();
    try {
      await fn(opened);
    } finally {
      await opened.close();
    }
  };
}

/** Creates a run and claims it with a plain scheduler; returns the claim. */
export async function createClaimed(store: RunStore, input: Parameters<RunStore["create"]>[0] = { graphId: "g" }) {
  const run = await store.create(input);
  const claimed = await new Scheduler(store).claimRun(run.runId, claim);
  if (claimed === undefined) throw new Error(`run ${run.runId} was not claimed`);
  return claimed;
}
