// The run the crash and partition tests recover: seed 001's ops_rollback on a PostgreSQL schema, run by the test
// process up to its approval and approved for a worker (QUEUED), with readers for what the tests check afterwards.
import { expect } from "vitest";
import type { PostgresDatabase } from "../../src/db/postgres/index.js";
import type { LedgerEntry } from "../../src/ledger/index.js";
import { Runtime } from "../../src/runtime/index.js";
import { runtimeInternals } from "../../src/runtime/internals.js";
import { openWorld } from "../../src/testing/index.js";

const CONFIG = new URL("../../langgraph.json", import.meta.url).pathname;
/** Seed 001's request. */
export const ROLLBACK_MESSAGE = "Find out why the payments deploy failed; if it needs a rollback, ask me first; after the rollback confirm the service recovered.";

/** An approved ops_rollback waiting in the queue, and what the tests read of it. */
export interface ApprovedRollback {
  rt: Runtime;
  runId: string;
  /** The ledger's entries for rollback_deployment (one per key). */
  rollbackEntries(): Promise<LedgerEntry[]>;
  /** How many rollbacks the simulated deploy platform really performed. */
  rollbacks(): Promise<number>;
}

/** Runs ops_rollback up to its approval on `url` and approves it for a worker; the caller closes `rt`. */
export async function approvedRollback(url: string): Promise<ApprovedRollback> {
  const rt = Runtime.open({ db: url, config: CONFIG });
  const waiting = await rt.submit({ graph: "ops_rollback", message: ROLLBACK_MESSAGE, user: "alice" });
  expect(waiting.status).toBe("WAITING_APPROVAL");
  const action = waiting.pending[0]!;
  expect((await rt.approve(waiting.run_id, { actionId: action.action_id, argsHash: action.args_hash, queue: true })).status).toBe("QUEUED");
  const { storage } = runtimeInternals(rt);
  const rollbackEntries = async () => (await storage.ledger.list(waiting.run_id)).filter((entry) => entry.tool === "rollback_deployment");
  // Reading the ledger creates its table now, not in a worker: a test's audit or write count then covers it the same way.
  expect(await rollbackEntries()).toEqual([]);
  const rollbacks = async () => (await openWorld({ db: storage.db as PostgresDatabase }).snapshot()).calls.rollback_deployment ?? 0;
  return { rt, runId: waiting.run_id, rollbackEntries, rollbacks };
}
