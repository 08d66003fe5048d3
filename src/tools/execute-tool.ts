/**
 * Runs one validated tool call with its ToolContext and timeout, exactly one
 * attempt. {@link createResilientExecutor} adds retries, breaker and limits.
 * @module
 */
import { AgentrtError, ToolError } from "../errors.js";
import type { RunDatabase } from "../db/index.js";
import type { ToolLedger } from "../ledger/ledger.js";
import type { AgentTool, ToolContext } from "./define-tool.js";
import { type SharedToolLimits, withTimeout } from "../resilience/index.js";
import type { ToolGuard } from "./tool-guard.js";

/** Who and what a call runs for; everything in ToolContext except the per-attempt parts. */
export interface ToolCallScope {
  runId: string;
  threadId: string;
  toolCallId: string;
  user: string;
  /** Bumped when an action is deliberately redone with a new identity. @default 1 */
  actionVersion?: number;
  /** @default 1 */
  attempt?: number;
  db: RunDatabase | undefined;
  /** Where side-effecting calls record intent and result. @default the ledger on a SQLite `db`, else none */
  ledger?: ToolLedger;
  /** Aborts the call from outside (run cancel); combined with the timeout. */
  signal?: AbortSignal;
  /** Where a tool's declared limits and breaker live when processes share them. @default this process's */
  sharedLimits?: SharedToolLimits;
  /** The run's checks around each attempt (deadline, RETRYING while backing off). @default none */
  guard?: ToolGuard;
  /**
   * A person confirmed re-issuing a side effect whose outcome is unknown, after
   * this many attempts (see `ToolLedger.begin`). @default none
   */
  confirmedReissue?: number;
}

/** The outcome of a call (after any retries); never thrown. */
export type ToolOutcome =
  | { ok: true; result: unknown; externalOperationId: string | undefined; attempts: number }
  | { ok: false; error: AgentrtError; externalOperationId: string | undefined; attempts: number };

/** Runs one validated call; the agent graph calls it, the runtime may replace it (e.g. to add the ledger). */
export type ToolExecutor = (tool: AgentTool, args: unknown, scope: ToolCallScope) => Promise<ToolOutcome>;

/** The ToolContext of one attempt. */
export function toolContext(scope: ToolCallScope, attempt: number, signal: AbortSignal, setExternalOperationId: (id: string) => void): ToolContext {
  return {
    runId: scope.runId,
    threadId: scope.threadId,
    toolCallId: scope.toolCallId,
    idempotencyKey: idempotencyKey(scope.runId, scope.toolCallId, scope.actionVersion),
    user: scope.user,
    attempt,
    signal,
    db: scope.db,
    setExternalOperationId,
  };
}

/** Keeps agentrt errors as they are and wraps anything else as TOOL_FAILED. */
export function asToolError(tool: AgentTool, cause: unknown): AgentrtError {
  if (cause instanceof AgentrtError) return cause;
  return new ToolError("TOOL_FAILED", `${tool.name} failed: ${cause instanceof Error ? cause.message : String(cause)}`, {
    cause, details: { tool: tool.name },
  });
}

/** `${runId}:${toolCallId}:${actionVersion}`: the same on every retry and in every process. */
export function idempotencyKey(runId: string, toolCallId: string, actionVersion = 1): string {
  return `${runId}:${toolCallId}:${actionVersion}`;
}

/**
 * A {@link ToolExecutor} that calls `tool.execute` once under {@link withTimeout}: its signal aborts after
 * `tool.timeoutMs` (TOOL_TIMEOUT) or on `scope.signal` (CANCELED), and the call stops at once even when the tool
 * ignores it; on a cancel, a tool that honours it and says it never performed the call is believed (see rejectStopped).
 */
export const executeTool: ToolExecutor = async (tool, args, scope) => {
  let externalOperationId: string | undefined;
  const attempts = scope.attempt ?? 1;
  // The run's cancel, named after the tool (its reason is the run's, not this call's).
  const canceled = new AbortController();
  const cancel = () => canceled.abort(new ToolError("CANCELED", `${tool.name} was canceled`, { details: { tool: tool.name } }));
  if (scope.signal?.aborted) cancel();
  else scope.signal?.addEventListener("abort", cancel, { once: true });
  try {
    const result = await withTimeout(
      async (signal) => tool.execute(args, toolContext(scope, attempts, signal, (id) => { externalOperationId = id; })),
      tool.timeoutMs, canceled.signal, { label: tool.name },
    );
    return { ok: true, result, externalOperationId, attempts };
  } catch (error) {
    return { ok: false, error: asToolError(tool, error), externalOperationId, attempts };
  } finally {
    scope.signal?.removeEventListener("abort", cancel);
  }
};
