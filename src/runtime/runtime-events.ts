/**
 * Progress events a runtime emits while it executes a run, so a person
 * watching (`agentrt run` without --json) sees each step as it happens.
 * @module
 */
import type { PendingActionView } from "./run-view.js";
import type { StorageFailureCode } from "../db/index.js";
import type { RunStatus } from "../runs/index.js";

/** One thing that happened in a run, in the order it happened. */
export type RuntimeEvent =
  | {
      type: "status";
      runId: string;
      status: RunStatus;
      /**
       * The run's final state values, when it ran to its end here and they were read from its own stream
       * (SUCCEEDED, or FAILED by the graph's own stop); absent otherwise. Read the checkpoint when absent.
       */
      values?: Record<string, unknown>;
    }
  | { type: "model_call"; runId: string; turn: number; model: string; inputTokens: number; outputTokens: number; ms: number }
  | {
      type: "tool_call";
      runId: string;
      tool: string;
      toolCallId: string;
      status: string;
      ms: number;
      error?: string;
      externalOperationId?: string;
    }
  | { type: "tool_retry"; runId: string; tool: string; toolCallId: string; attempt: number; delayMs: number }
  | { type: "approval_requested"; runId: string; action: PendingActionView }
  /**
   * The disk refused a write of this execution (full, or failing): the run goes RETRYING once that can be written
   * (or, past its lease, is recovered elsewhere). Sent at once, before the write that may wait for room.
   */
  | { type: "storage_failed"; runId: string; fencingToken: number; code: StorageFailureCode; message: string };

/** Receives runtime events; must not throw. */
export type RuntimeListener = (event: RuntimeEvent) => void;
