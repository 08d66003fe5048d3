/**
 * Observation points the runtime and the trace module plug into. Hooks are
 * called after the fact and must not throw; a throwing hook is ignored.
 * @module
 */
import type { ToolStepStatus } from "../tools/tool-message.js";
import type { ContextTrim } from "./context-budget.js";

/** One model call, reported after it returns. */
export interface ModelCallEvent {
  model: string;
  turn: number;
  /** The sub-agent (subgraph node, e.g. a specialist) that made the call; undefined in the root graph. */
  agent?: string;
  inputTokens: number;
  outputTokens: number;
  startedAt: number;
  endedAt: number;
  /** Which HTTP attempt answered, when the client retried (the failed ones went to `onModelAttemptFailed`). @default 1 */
  attempt?: number;
}

/** One HTTP attempt of a model call that failed (no answer in time, an error status), reported when the call ends. */
export interface ModelAttemptFailedEvent {
  model: string;
  turn: number;
  agent?: string;
  /** 1, 2, … within the call. */
  attempt: number;
  startedAt: number;
  endedAt: number;
  /** The HTTP status, when the server answered. */
  status?: number;
  /** One line: why the attempt failed. */
  error: string;
}

/** One tool step (including refused and invalid calls), reported when it ends. */
export interface ToolCallEvent {
  tool: string;
  toolCallId: string;
  /** The arguments the tool ran with (an approver's edit, when there was one). */
  args: unknown;
  /** Set when an approver edited the model's arguments: the model's originals and who edited. */
  edit?: { originalArgs: unknown; by: string };
  startedAt: number;
  endedAt: number;
  status: ToolStepStatus;
  error: { code: string; message: string } | undefined;
  externalOperationId: string | undefined;
  /** Attempts made; 0 when the tool was never called. */
  attempts: number;
  /** The model turn whose call this is; 0 for a call no model turn asked for (a declared DAG's node). */
  turn: number;
  /** The sub-agent (subgraph node) whose call this is; undefined in the root graph. */
  agent?: string;
  /** The key the tool received (run, call and action version). */
  idempotencyKey: string;
  /** Characters of the JSON result; 0 when there is none. */
  resultSize: number;
  /** The tool's `redact` paths, for whoever stores the arguments. */
  redact: readonly string[];
}

/** A failed attempt about to be retried after `delayMs`. */
export interface ToolRetryEvent {
  tool: string;
  toolCallId: string;
  attempt: number;
  delayMs: number;
  error: unknown;
}

/** What context building cut before one model call (see `defineAgent({ context })`). */
export interface ContextTrimEvent extends ContextTrim {
  turn: number;
}

/** Optional observers of an agent's model and tool calls. */
export interface AgentHooks {
  onModelCall?: (event: ModelCallEvent) => void;
  /** Each failed HTTP attempt of a model call (before its answer, or before the call failed). */
  onModelAttemptFailed?: (event: ModelAttemptFailedEvent) => void;
  onToolCall?: (event: ToolCallEvent) => void;
  /** Before each retry backoff: the runtime shows the run as RETRYING. */
  onToolRetry?: (event: ToolRetryEvent) => void;
  /** Before a model call whose context was cut to fit the budget. */
  onContextTrim?: (event: ContextTrimEvent) => void;
}

/** Calls each hook set's callback, isolating the agent from observer bugs. */
export function emit<K extends keyof AgentHooks>(
  hookSets: readonly AgentHooks[],
  name: K,
  event: Parameters<NonNullable<AgentHooks[K]>>[0],
): void {
  for (const hooks of hookSets) {
    const fn = hooks[name] as ((e: typeof event) => void) | undefined;
    try {
      fn?.(event);
    } catch {
      // Observers must never change the run's outcome.
    }
  }
}
