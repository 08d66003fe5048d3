/**
 * The side effects a run has performed, read from the tool ledger: what a
 * cancel leaves done (it never undoes them), listed so a person can follow up.
 * @module
 */
import type { SqliteDatabase } from "../db/index.js";
import { ledgerFor } from "../tools/ledger-executor.js";

/** One side-effecting call of a run as `agentrt cancel` lists it. */
export interface SideEffectView {
  tool: string;
  tool_call_id: string;
  /** The id the external system gave the operation, when it reported one. */
  external_operation_id: string | null;
  idempotency_key: string;
  /** done: it happened; unknown: issued without a recorded outcome (in flight when stopped). */
  status: "done" | "unknown";
}

/** The run's side effects that happened or may have happened, in the order they were begun. */
export function listSideEffects(db: SqliteDatabase, runId: string): SideEffectView[] {
  return ledgerFor(db)
    .list(runId)
    .filter((entry) => entry.status !== "failed")
    .map((entry) => ({
      tool: entry.tool,
      tool_call_id: entry.toolCallId,
      external_operation_id: entry.externalOperationId,
      idempotency_key: entry.key,
      status: entry.status === "done" ? "done" : "unknown",
    }));
}
