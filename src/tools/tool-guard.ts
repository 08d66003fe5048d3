/**
 * What a tool executor asks of the run it executes for: whether an attempt
 * may start (the run's deadline), and where to report a retry backoff so the
 * run can show RETRYING. The runtime passes one in the run scope; without it
 * calls run unguarded.
 * @module
 */
import type { StoreTransaction } from "../db/index.js";
import type { AgentrtError } from "../errors.js";

/** One tool attempt about to start, or one backoff. */
export interface ToolAttemptEvent {
  tool: string;
  toolCallId: string;
  /** 1-based: the attempt about to start, or (for a backoff) the attempt that just failed. */
  attempt: number;
}

/** The run-side checks and reports around each tool attempt. Implementations must not throw. */
export interface ToolGuard {
  /**
   * Before each attempt (a retry: before its backoff of `delayMs`): an error to
   * fail the call with instead of starting (or waiting for) it, e.g. DEADLINE_EXCEEDED.
   */
  beforeToolAttempt?(event: ToolAttemptEvent & { delayMs?: number }): AgentrtError | undefined;
  /** A failed attempt is about to back off for `delayMs` before the next one. */
  backoffStarted?(event: ToolAttemptEvent & { delayMs: number }): void;
  /** The backoff of that call ended: its next attempt starts, or the call was given up. */
  backoffEnded?(event: ToolAttemptEvent): void;
  /**
   * Called in the transaction `tx` that writes a side effect's intent (synchronously on SQLite); the one
   * method that throws: when the run's lease is lost (taken over, canceled), so a stale worker records
   * no intent and issues no call.
   */
  assertHeld?(tx: StoreTransaction): void | Promise<void>;
}
