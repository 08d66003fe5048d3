/**
 * The side effects a run has performed, read from the tool ledger: what a
 * cancel leaves done (it never undoes them), listed so a person can follow up.
 * @module
 */
import { setTimeout as sleep } from "node:timers/promises";
import { LEASE_WATCH_MS } from "../runs/lease-watch.js";
import type { LedgerEntry, ToolLedger } from "../ledger/index.js";

/** One side-effecting call of a run as `agentrt cancel` lists it. */
export interface SideEffectView {
  tool: string;
  tool_call_id: string;
  /** The id the external system gave the operation, when it reported one. */
  external_operation_id: string | null;
  idempotency_key: string;
  /**
   * done: it happened; unknown: issued without a recorded outcome (in flight when stopped and not known to have
   * been stopped in time). A call stopped before it was performed is not listed.
   */
  status: "done" | "unknown";
}

/** The run's side effects that happened or may have happened, in the order they were begun. */
export async function listSideEffects(ledger: ToolLedger, runId: string): Promise<SideEffectView[]> {
  return (await ledger.list(runId))
    .filter((entry) => entry.status !== "failed")
    .map((entry) => ({
      tool: entry.tool,
      tool_call_id: entry.toolCallId,
      external_operation_id: entry.externalOperationId,
      idempotency_key: entry.key,
      status: entry.status === "done" ? "done" : "unknown",
    }));
}

/** How long a cancel waits for the calls a run had in flight to report (the executing process notices within about a second). */
export const SETTLE_MS = 5 * LEASE_WATCH_MS;

/** The run's calls without a recorded outcome, as they are now: what {@link settledSideEffects} waits on. */
export function inFlightCalls(ledger: ToolLedger, runId: string): Promise<LedgerEntry[]> {
  return ledger.list(runId, { status: "pending" });
}

/**
 * The run's side effects once each call of `inFlight` has reported what became of it (done, stopped before it was
 * performed, or cut short with its outcome unknown) — or once `timeoutMs` passed, for a call whose process died or
 * that was left without an outcome before.
 */
export async function settledSideEffects(
  ledger: ToolLedger, runId: string, inFlight: readonly LedgerEntry[], timeoutMs = SETTLE_MS,
): Promise<SideEffectView[]> {
  const end = Date.now() + timeoutMs;
  let waiting = [...inFlight];
  while (waiting.length > 0 && Date.now() < end) {
    await sleep(50);
    // Every report of the call (a result, a failure, an abort) rewrites its entry.
    const still: LedgerEntry[] = [];
    for (const before of waiting) {
      const now = await ledger.get(before.key);
      if (now !== undefined && now.status === "pending" && now.updatedAt === before.updatedAt && now.attempts === before.attempts
        && JSON.stringify(now.error) === JSON.stringify(before.error)) still.push(before);
    }
    waiting = still;
  }
  return listSideEffects(ledger, runId);
}
