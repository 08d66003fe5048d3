/**
 * In-process backoff: while a tool of a RUNNING run waits before its next
 * attempt, the run shows RETRYING but its holder keeps the lease (owner,
 * expiry, heartbeat, fencing token), so no other worker may claim it until
 * that lease expires. The status goes back to RUNNING when the attempt starts,
 * without a claim: same holder, same token, same attempt count.
 * @module
 */
import { assertFence } from "./fence.js";
import { assertTransition } from "./lifecycle.js";
import { appendRunEvent } from "./run-events.js";
import type { RunRecord } from "./run-record.js";
import type { SqliteRuns } from "./sqlite-runs.js";

/** True for a RETRYING run whose lease is still held (a backoff in its holder's process). */
export function isHeldRetrying(run: Pick<RunRecord, "status" | "lease">): boolean {
  return run.status === "RETRYING" && run.lease !== null;
}

/**
 * Moves the holder's run between RUNNING and RETRYING (`to`), keeping the
 * lease, and logs the change; a no-op when it already is there. LeaseLostError
 * unless `token` is the run's current token and the holder still has it.
 */
export function setBackoff(store: SqliteRuns, runId: string, token: number, to: "RETRYING" | "RUNNING", options: { actor: string; reason: string }): RunRecord {
  return store.transaction(() => {
    const run = store.get(runId);
    assertFence(run, token);
    if (run.status === to) return run;
    assertTransition(run.status, to, runId);
    const now = store.clock();
    store
      .stmt("UPDATE runs SET status = ?, updated_at = ? WHERE run_id = ? AND fencing_token = ? AND status = ? AND lease_owner IS NOT NULL")
      .run(to, now, runId, token, run.status);
    appendRunEvent(store.db, { runId, from: run.status, to, at: now, actor: options.actor, fencingToken: token, reason: options.reason });
    return store.get(runId);
  });
}
