/**
 * Checkpoints written under the run's lease: the runtime's SqliteSaver calls
 * this inside each put/putWrites transaction, so a worker whose lease was
 * taken over, canceled or expired cannot write a checkpoint (the write rolls
 * back with LeaseLostError), and the run's deferred usage commits with it.
 * @module
 */
import type { RunnableConfig } from "@langchain/core/runnables";
import type { SqliteDatabase, StoreTransaction } from "../db/index.js";
import { SystemError } from "../errors.js";
import { FENCING_TOKEN_KEY, type RunLease, type RunStore } from "../runs/index.js";

/**
 * A `beforeWrite` hook for the runtime's SqliteSaver. Writes without a run id and token (state
 * updates through the server, graphs run outside a run) are not fenced.
 */
export function fenceCheckpoints(
  runs: RunStore, active: ReadonlyMap<string, RunLease>,
): (tx: StoreTransaction, config: RunnableConfig) => void | (() => void) | Promise<void | (() => void)> {
  return (tx, config) => {
    const runId: unknown = config.configurable?.run_id;
    const token: unknown = config.configurable?.[FENCING_TOKEN_KEY];
    if (typeof runId !== "string" || typeof token !== "number") return undefined;
    const lease = active.get(runId);
    // An execution whose lease this process no longer tracks (ended, re-claimed) is checked against the record.
    if (lease === undefined || lease.token !== token) {
      return runs.fenceIn(tx, runId, token);
    }
    // If the checkpoint write then fails, its usage is deferred again for the next write.
    return lease.fenceWrite(tx);
  };
}

/** {@link fenceCheckpoints} for a SqliteSaver on `db`, whose hook must be synchronous (its transaction cannot span an await). */
export function fenceSqliteCheckpoints(runs: RunStore, active: ReadonlyMap<string, RunLease>, db: SqliteDatabase): (config: RunnableConfig) => void | (() => void) {
  const fence = fenceCheckpoints(runs, active);
  return (config) => {
    const fenced = fence({ backend: "sqlite", db }, config);
    if (fenced instanceof Promise) throw new SystemError("INTERNAL", "a SQLite checkpoint's fence must not await");
    return fenced;
  };
}
