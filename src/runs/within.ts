/**
 * Work of another module done inside a run write's own transaction (SQLite): the trace's start with a claim, the
 * trace's end with an outcome, so both are one commit and neither is on disk without the other. The callback's
 * in-memory effects are told how the transaction ended, so a rolled-back one can put them back.
 * @module
 */
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
