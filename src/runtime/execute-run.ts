/**
 * Executes one claimed run on its LangGraph graph: builds the input (first
 * start, approval resume, or crash recovery from the last checkpoint),
 * streams it with the SQLite checkpointer, and maps where the graph stopped
 * to a run outcome.
 * @module
 */
import { END } from "@langchain/langgraph";
import type { RunDatabase } from "../db/index.js";
import type { ToolLedger } from "../ledger/index.js";
import type { SharedToolLimits } from "../resilience/index.js";
import { readPendingActions, resumeCommand, type ApprovalResume, type PendingAction } from "../graph/approval.js";
import type { AgentHooks } from "../graph/hooks.js";
import type { ForeignScope } from "../graph/foreign-hitl.js";
import { approvalPolicyOf } from "../graph/foreign-policy.js";
import { DEFAULT_RECURSION_LIMIT, FENCING_TOKEN_KEY, type RunLease, type RunOutcome, type RunRecord } from "../runs/index.js";
import { priceFor, redactArgs, type PricingTable, type TraceRecorder } from "../trace/index.js";
import type { GraphRegistry, RegisteredGraph } from "./graph-registry.js";
import { inputCommand, readInputRequests } from "./input-resume.js";
import { commandInput, isCommandResume } from "./command-resume.js";
import type { PendingActionView } from "./run-view.js";
import { createBudgetGuard } from "./budget-guard.js";
import { foreignAnswer, foreignCallbacks } from "./foreign-run.js";
import { checkpointRunId } from "./run-stamp.js";
import type { RuntimeListener } from "./runtime-events.js";
import { StepSpans } from "./step-spans.js";
import type { RunStreamSink } from "./run-stream-sink.js";
import { StreamOutcome } from "./stream-outcome.js";
import { stateForCheck, tasksForCheck, type CheckedGraph } from "./state-check.js";
import { reportsOwnCalls } from "../graph/own-nodes.js";

/** What executing a run needs from the runtime. */
export interface ExecutionDeps {
  /** Handed to tools as `ctx.db`. */
  db: RunDatabase;
  /** Where side-effecting tool calls record intent and result. */
  ledger: ToolLedger;
  /** Limits and breakers of tools that declare them, shared by the processes on the database. @default this process's */
  sharedLimits?: SharedToolLimits;
  /** Bound to the runtime's checkpointer and store (see GraphRegistry.bind). */
  registry: GraphRegistry;
  emit: RuntimeListener;
  /** `init`: see RecorderOptions.init (a claim's state changes, committed with a new root on SQLite). */
  recorder: (run: RunRecord, init?: (recorder: TraceRecorder) => void) => Promise<TraceRecorder>;
  pricing: PricingTable;
  /** Live chunks for listeners (the server's SSE, or any process on PostgreSQL); runs stream only "values" and "updates" without it. @default none */
  streams?: RunStreamSink;
}

/** The minimal surface of a compiled graph the executor drives. */
interface RunnableGraph extends RegisteredGraph {
  getState(config: object): Promise<{ values: Record<string, unknown>; tasks: unknown[]; next: string[]; config: object; createdAt?: string }>;
  stream(input: unknown, options: object): Promise<AsyncIterable<unknown>>;
  updateState(config: object, values: unknown, asNode?: string): Promise<unknown>;
  interruptBefore?: unknown;
  interruptAfter?: unknown;
}

const checked = (graph: RunnableGraph): CheckedGraph => graph as unknown as CheckedGraph;

const SPAN_STATUS = { done: "ok", failed: "error", denied: "canceled", rejected: "canceled" } as const;

/** Where an execution stopped; `values` when its stream showed it ran to its end (no checkpoint read needed). */
export interface ExecutedRun {
  outcome: RunOutcome;
  values?: Record<string, unknown>;
}

/**
 * Runs `run` under `lease` until the graph finishes or waits; never throws for graph-level failures. `started`: the
 * recorder its start was just recorded with (no need to obtain it, and reload the run's spans, again).
 */
export async function executeRun(deps: ExecutionDeps, run: RunRecord, lease: RunLease, started?: TraceRecorder): Promise<ExecutedRun> {
  const graph = (await deps.registry.load(run.graphId)) as RunnableGraph;
  // The registry hands out this runtime's copy with its checkpointer and store attached.
  const recorder = started ?? (await deps.recorder(run));
  const steps = new StepSpans(recorder);
  const hooks = traceHooks(run, lease, recorder, deps, steps);
  const config = {
    // The caller's keys first: the run's own ids always win (validateGraphConfig refuses them anyway).
    configurable: { ...run.config?.configurable, thread_id: run.threadId, run_id: run.runId, user: run.userId, [FENCING_TOKEN_KEY]: lease.token },
    context: { db: deps.db, ledger: deps.ledger, sharedLimits: deps.sharedLimits, hooks, signal: lease.signal, guard: createBudgetGuard(run, lease, deps) },
  };
  try {
    // A first claim without a resume cannot have written a checkpoint yet: its input is due, no read needed.
    // (Claims are counted by the fencing token, which every claim bumps; attempts skip resumes and hand-backs.)
    const firstStart = run.fencingToken <= 1 && run.resume == null;
    const foreign: ForeignScope = { requester: run.userId, policy: approvalPolicyOf(graph) };
    // Checks only (read-only, shared with the checkpointer's cache): where the thread stopped, and for a foreign
    // agent how many model turns it took (its messages); an agentrt graph's check reads no message history.
    const snapshot = firstStart ? undefined : reportsOwnCalls(graph) ? await tasksForCheck(checked(graph), config) : await stateForCheck(checked(graph), config);
    const inputDue = snapshot === undefined || !resumesOwnCheckpoint(run, snapshot);
    const input = inputDue ? run.input : await resumeInput(graph, config, run, snapshot as never, foreign);
    const options = {
      ...config, durability: "sync", signal: lease.signal, recursionLimit: run.config?.recursionLimit ?? DEFAULT_RECURSION_LIMIT,
      // A fork's input goes in at its checkpoint, as LangGraph's server runs it: the new branch's first checkpoint is
      // that one's child, with no copy of it written first. Later starts continue from the run's own checkpoints.
      ...(inputDue && run.config?.fromCheckpoint !== undefined
        ? { configurable: { ...config.configurable, checkpoint_id: run.config.fromCheckpoint } }
        : {}),
      // A foreign agent's model and tool calls reach the same hooks through LangChain callbacks.
      callbacks: foreignCallbacks(graph, hooks, snapshot !== undefined && "values" in snapshot ? (snapshot.values as Record<string, unknown>) : undefined),
    };
    // With a sink its listeners pick the modes (and streamEvents for "events"); "values" and "updates" always; without
    // one "values" alone. Either way a run that ends without an interrupt is decided from its stream, not from a checkpoint read.
    const published = deps.streams?.open(run);
    const watched = new StreamOutcome(graph);
    try {
      const stream = published === undefined ? await graph.stream(input, { ...options, streamMode: [...StreamOutcome.SETTLING_MODES] }) : await published.stream(graph, input, options);
      // Every checkpoint write checks the lease (checkpoint-fence.ts); a lost one aborts the signal too.
      for await (const chunk of stream) {
        watched.observe(chunk);
        published?.publish(chunk);
      }
    } finally {
      // Durable before the outcome is written: a reader that sees the run at rest finds every chunk.
      await published?.end();
    }
    const settled = watched.settled();
    // A check too: the outcome keeps only strings of the state (result, error, a foreign agent's answer), and a
    // foreign agent's whole state is stored as JSON.
    const outcome = outcomeOf(run, settled ?? (await stateForCheck(checked(graph), config)), deps.emit, foreign);
    return settled === undefined ? { outcome } : { outcome, values: settled.values };
  } catch (error) {
    recorder.recordError(error);
    throw error;
  } finally {
    // Written by the caller after the outcome (executeAndRecord).
    steps.close();
  }
}

/**
 * What a run that resumes its own checkpoint is streamed with (its input was applied already). A stored command
 * ending the wait clears the thread's pending tasks first, in a checkpoint written under the run's lease.
 */
async function resumeInput(
  graph: RunnableGraph, config: object, run: RunRecord, snapshot: { tasks: never[]; createdAt?: string; next: string[]; metadata?: unknown }, foreign: ForeignScope,
): Promise<unknown> {
  if (!isCommandResume(run.resume)) return inputFor(run, snapshot, foreign);
  const live = new Set((snapshot.tasks as { interrupts?: { id?: string }[] }[]).flatMap((t) => (t.interrupts ?? []).flatMap((i) => (i.id === undefined ? [] : [i.id]))));
  const plan = commandInput(run.resume, live);
  // Applied before a crash: continue from the checkpoint.
  if (plan === undefined) return null;
  if (plan.clear) await graph.updateState(config, null, END);
  return plan.input;
}

function inputFor(run: RunRecord, snapshot: { tasks: never[]; createdAt?: string; next: string[]; metadata?: unknown }, foreign: ForeignScope): unknown {
  // An answer to a plain interrupt() resumes exactly the question it answers (if still live).
  const answer = inputCommand(run.resume, snapshot);
  if (answer !== undefined) return answer;
  const live = readPendingActions(snapshot, foreign);
  const decisions = (Array.isArray(run.resume) ? run.resume : run.resume == null ? [] : [run.resume]) as ApprovalResume[];
  // A resume already consumed before a crash must not be sent again: only still-pending actions get it.
  const open = decisions.filter((d) => live.some((p) => p.action_id === d.action_id));
  if (open.length > 0) return resumeCommand(live, open);
  // Nothing to resume with: continue from the last checkpoint (crash recovery).
  return null;
}

/**
 * True when the thread's latest checkpoint was written by this run: it resumes (approval, answer,
 * crash recovery) and never re-sends its input. Otherwise it is a new turn, or its first attempt
 * died before its first checkpoint, and its input is due.
 */
function resumesOwnCheckpoint(run: RunRecord, snapshot: { createdAt?: string; metadata?: unknown }): boolean {
  if (snapshot.createdAt === undefined) return false;
  const writer = checkpointRunId(snapshot.metadata);
  if (writer !== undefined) return writer === run.runId;
  // A checkpoint from before runs were stamped: only a retry or a resume recovers.
  return !(run.fencingToken <= 1 && run.resume == null && run.input != null);
}

function outcomeOf(run: RunRecord, snapshot: { values: Record<string, unknown>; tasks: unknown[] }, emit: RuntimeListener, foreign: ForeignScope): RunOutcome {
  const pending = readPendingActions(snapshot as never, foreign);
  if (pending.length > 0) {
    const views = pending.map(toPendingView);
    for (const action of views) emit({ type: "approval_requested", runId: run.runId, action });
    return { status: "WAITING_APPROVAL", pending: views, reason: `${views.length} action(s) need approval` };
  }
  // The same reading `agentrt input` answers against; stored as { interrupt_id, value } for `status`.
  const other = readInputRequests(snapshot as never).map((r) => ({ interrupt_id: r.interrupt_id, value: r.value }));
  // Paused by a plain interrupt(): waiting for a person, never a success.
  if (other.length > 0) return { status: "WAITING_INPUT", pending: other, reason: "the graph asked for input" };
  if (((snapshot as { next?: string[] }).next ?? []).length > 0) {
    return { status: "FAILED", errorCode: "INTERNAL", errorMessage: "the graph stopped before its end without an interrupt" };
  }
  const values = snapshot.values;
  const error = values.error as { code: string; message: string } | null | undefined;
  // A foreign agent's state has no `result`: its answer is its last AI message.
  const result = "result" in values ? values.result : foreignAnswer(values) ?? values;
  if (error != null) return { status: "FAILED", errorCode: error.code, errorMessage: error.message, result };
  return { status: "SUCCEEDED", result };
}

/** The contract view of a pending action: what approving it must quote. */
export function toPendingView(action: PendingAction): PendingActionView {
  return {
    action_id: action.action_id,
    tool: action.tool,
    args: action.args,
    args_hash: action.args_hash,
    reason: action.reason,
    approvers: action.approvers,
    allowed_decisions: action.allowed_decisions ?? ["approve", "reject"],
  };
}

function traceHooks(run: RunRecord, lease: RunLease, recorder: TraceRecorder, deps: ExecutionDeps, steps: StepSpans): AgentHooks {
  const emit = deps.emit;
  return {
    onModelCall: (e) => {
      const costUsd = priceFor(e.model, e, deps.pricing).totalUsd;
      const step = steps.enter(e.turn, e.startedAt, e.endedAt, "model", e.agent);
      recorder.recordModelCall({
        agent: e.agent,
        model: e.model, inputTokens: e.inputTokens, outputTokens: e.outputTokens, costUsd, startTime: e.startedAt, endTime: e.endedAt,
        parentId: step.id, stepId: step.stepId ?? undefined, extra: e.attempt === undefined ? { turn: e.turn } : { turn: e.turn, attempt: e.attempt },
      });
      // Committed with the model turn's checkpoint writes (the fenced write flushes it), not on its own.
      lease.deferUsage({ modelCalls: 1, steps: 1, tokens: e.inputTokens + e.outputTokens, costUsd });
      emit({ type: "model_call", runId: run.runId, turn: e.turn, model: e.model, inputTokens: e.inputTokens, outputTokens: e.outputTokens, ms: e.endedAt - e.startedAt });
    },
    onModelAttemptFailed: (e) => {
      // A request the model's service did not answer still was a call: traced as one, counted as one.
      const step = steps.enter(e.turn, e.startedAt, e.endedAt, "model", e.agent);
      recorder.recordModelCall({
        agent: e.agent, model: e.model, inputTokens: 0, outputTokens: 0, costUsd: 0, startTime: e.startedAt, endTime: e.endedAt,
        name: `model_turn ${e.turn} attempt ${e.attempt}`, parentId: step.id, stepId: step.stepId ?? undefined,
        extra: { turn: e.turn, attempt: e.attempt, ...(e.status === undefined ? {} : { status: e.status }) }, status: "error", error: e.error,
      });
      lease.deferUsage({ modelCalls: 1 });
    },
    onToolCall: (e) => {
      // Turn 0: a call no model turn asked for (a declared DAG's node calling a tool) hangs under the run itself.
      const step = e.turn === 0 ? undefined : steps.enter(e.turn, e.startedAt, e.endedAt, "tool", e.agent);
      recorder.recordToolCall({
        agent: e.agent,
        tool: e.tool, toolCallId: e.toolCallId, args: e.args, redact: e.redact, startTime: e.startedAt, endTime: e.endedAt,
        // A foreign agent's tool gets no idempotency key: none is recorded.
        parentId: step?.id, stepId: step?.stepId ?? undefined, attempt: Math.max(1, e.attempts), idempotencyKey: e.idempotencyKey || undefined,
        resultSize: e.resultSize,
        ...(e.edit === undefined ? {} : { extra: { edited_by: e.edit.by, original_args: JSON.stringify(redactArgs(e.edit.originalArgs, e.redact)) } }),
        // Denied and rejected calls never ran: they are not tool failures.
        status: SPAN_STATUS[e.status], error: e.error?.message, externalOperationId: e.externalOperationId,
      });
      // Written with the next model call's usage or the outcome: no commit of its own per tool call.
      lease.deferUsage({ steps: 1 });
      emit({
        type: "tool_call", runId: run.runId, tool: e.tool, toolCallId: e.toolCallId, status: e.status, ms: e.endedAt - e.startedAt,
        ...(e.error === undefined ? {} : { error: e.error.message }),
        ...(e.externalOperationId === undefined ? {} : { externalOperationId: e.externalOperationId }),
      });
    },
    onContextTrim: (e) => {
      // What the model did not see this turn, so a surprising answer can be traced to a cut context.
      const now = Date.now();
      recorder.startSpan({
        kind: "step", name: `context_trim turn ${e.turn}`, startTime: now,
        attributes: {
          extra: {
            droppedMessages: e.droppedMessages, droppedTokens: e.droppedTokens, truncatedResults: e.truncatedResults,
            truncatedTokens: e.truncatedTokens, keptTokens: e.keptTokens, files: e.files.join(","),
          },
        },
      }).end({ endTime: now });
    },
    onToolRetry: (e) => {
      const now = Date.now();
      recorder.startSpan({
        kind: "retry", name: `retry ${e.tool}`, startTime: now,
        attributes: { tool: e.tool, toolCallId: e.toolCallId, attempt: e.attempt + 1, error: e.error instanceof Error ? e.error.message : String(e.error) },
      }).end({ endTime: now + e.delayMs });
      emit({ type: "tool_retry", runId: run.runId, tool: e.tool, toolCallId: e.toolCallId, attempt: e.attempt, delayMs: e.delayMs });
    },
  };
}
