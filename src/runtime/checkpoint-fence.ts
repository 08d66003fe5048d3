/**
 * Checkpoints written under the run's lease: the runtime's checkpointer calls
 * this inside each put/putWrites transaction, so a worker whose lease was
 * taken over, canceled or expired cannot write a checkpoint (the write rolls
 * back with LeaseLostError), and the run's deferred usage commits with it.
 * @module
 */
import type { CheckpointFence } from "./storage/runtime-storage.js";
import { FENCING_TOKEN_KEY, type RunLease, type RunStore } from "../runs/index.js";

/**
 * The fence of the runtime's checkpointer (either backend). Writes without a run id and token (state
 * updates through the server, graphs run outside a run) are not fenced.
 */
export function fenceCheckpoints(runs: RunStore, active: ReadonlyMap<string, RunLease>): CheckpointFence {
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

