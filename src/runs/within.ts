/**
 * Work of another module done inside a run write's own transaction (SQLite): the trace's start with a claim, the
 * trace's end with an outcome, so both are one commit and neither is on disk without the other. The callback's
 * in-memory effects are told how the transaction ended, so a rolled-back one can put them back. A callback that fails
 * never stops the run's write: it is rolled back alone (see callWithin) and its work is done after the commit.
 * @module
 */
import type { SqliteDatabase } from "../db/index.js";
import { atomically } from "../db/in-transaction.js";
import type { RunEvent, RunRecord } from "./run-record.js";

/** What a {@link WithinTransaction} callback leaves to do once its transaction has ended. */
export interface TransactionHooks {
  /** The transaction committed: what the callback held back (exports, releases) may go out. */
  commit(): void;
  /** The transaction rolled back, the callback's writes with it: its in-memory marks go back to how they were. */
  rollback(): void;
}

/**
 * Called synchronously inside the transaction that wrote `run` (as written), with a read of the run's event log in
 * that transaction. A store whose transactions span awaits (PostgreSQL) does not call it: the caller does its work
 * after the write, in a commit of its own.
 */
export type WithinTransaction = (run: RunRecord, events: () => readonly RunEvent[]) => TransactionHooks | void;

/**
 * Runs `transaction` (one top-level SQLite transaction: BEGIN … COMMIT) handing it `keep` for the hooks its
 * callbacks return, then tells each hook whether it committed or rolled back.
 */
export function settleHooks<T>(transaction: (keep: (hooks: TransactionHooks | void) => void) => T): T {
  const kept: TransactionHooks[] = [];
  let result: T;
  try {
    result = transaction((hooks) => {
      if (hooks !== undefined) kept.push(hooks);
    });
  } catch (error) {
    for (const hooks of kept) hooks.rollback();
    throw error;
  }
  for (const hooks of kept) hooks.commit();
  return result;
}

/**
 * Calls `within` in a savepoint of the run write's transaction. Its failure (a trace that could not be read or
 * written) is rolled back alone and reported: the run's own write still commits and, with no hooks returned, the
 * caller does that work after the commit as on PostgreSQL. A failure that ended the whole transaction (SQLite rolls
 * back everything on a full disk or an I/O error) is the write's own, thrown as it is.
 */
export function callWithin(db: SqliteDatabase, within: WithinTransaction, run: RunRecord, events: () => readonly RunEvent[]): TransactionHooks | void {
  try {
    return atomically(db, () => within(run, events));
  } catch (error) {
    if (!db.inTransaction) throw error;
    process.emitWarning(`agentrt: work done inside a run's commit failed and is left to after it: ${String(error)}`, "AgentrtTraceWarning");
    return undefined;
  }
}
