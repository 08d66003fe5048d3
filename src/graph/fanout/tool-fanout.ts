/**
 * Tool fan-out: every tool call of a model turn runs in its own branch
 * (`Send`), concurrently. A branch never throws for a bad call: unknown tool,
 * bad JSON, schema violation, denial, rejection and tool failure all become an
 * error ToolMessage plus a failed step, so siblings and the run go on. A call that
 * failed because agentrt's own database went away throws instead (see `runWithFallback`).
 * Calls linked by `$ref` arguments run together in one branch, each as soon as
 * the calls it refers to have finished (see `tool-dag.ts`).
 * @module
 */
import { isAIMessage, type BaseMessage } from "@langchain/core/messages";
import { END, Send, type LangGraphRunnableConfig } from "@langchain/langgraph";
import { connectionFailure } from "../../db/connection-failure.js";
import type { AgentrtError } from "../../errors.js";
import { isUnknownOutcome } from "../../ledger/index.js";
import { evaluatePolicy, defaultPolicy, whenTainted, type Policy } from "../../policy/policy.js";
import type { AgentTool } from "../../tools/define-tool.js";
import { idempotencyKey, type ToolExecutor, type ToolOutcome } from "../../tools/execute-tool.js";
import { createResilientExecutor } from "../../tools/resilient-executor.js";
import type { ToolRegistry } from "../../tools/registry.js";
import { toolResultMessage, type ToolStepStatus } from "../../tools/tool-message.js";
import { validateToolCall, type RawToolCall } from "../../tools/validate-call.js";
import { reviewCall, type CallEdit } from "./review.js";
import { groupLinkedTasks, runToolGroup, type ToolCallRecord } from "./tool-dag.js";
import { describeProblem, findRefs, toolRefCode, type PlannedCall, type ToolRefProblem } from "./tool-refs.js";
import { emit, type AgentHooks } from "../hooks.js";
import { mayFallBack, settleUnknownOutcome } from "../unknown-outcome.js";
import { resolveRunScope } from "../run-config.js";
import { withNestedCallHooks } from "../nested-calls.js";
import type { AgentStateUpdate, ToolStep } from "../state.js";
import { agentOf } from "../agent-of.js";

/** What one tool branch receives through `Send`; small, because it is checkpointed. */
export interface ToolTask {
  call: RawToolCall;
  /** Set when the model's call could not be parsed at all (LangChain `invalid_tool_calls`). */
  invalid?: string;
  /** Calls of the turn linked by `$ref` arguments, run together as a small DAG (`call` is the first). */
  group?: PlannedCall[];
  turn: number;
  /** Captured at the model turn so a resume in another process decides and keys the same way. */
  runId: string;
  user: string;
  roles: string[];
  /** Version part of the idempotency key, captured with the rest. @default the run scope's */
  actionVersion?: number;
}

/** Options of {@link createToolNode}. */
export interface ToolNodeOptions {
  registry: ToolRegistry;
  /** @default defaultPolicy (risk-based) */
  policy?: Policy;
  /** @default createResilientExecutor() (the tool's retry policy, breaker, limits and timeout) */
  execute?: ToolExecutor;
  /** @default {} */
  hooks?: AgentHooks;
}

/** Tool calls of the last AI message, unparseable ones included, as branch inputs. */
export function toolTasksFrom(messages: readonly BaseMessage[], base: Omit<ToolTask, "call" | "invalid">): ToolTask[] {
  const last = messages.at(-1);
  if (!last || !isAIMessage(last)) return [];
  const valid = (last.tool_calls ?? []).map((c): ToolTask => ({ ...base, call: { id: c.id ?? "", name: c.name, args: c.args } }));
  const invalid = (last.invalid_tool_calls ?? []).map((c): ToolTask => ({
    ...base,
    call: { id: c.id ?? "", name: c.name ?? "", args: c.args ?? "" },
    invalid: c.error ?? "tool call could not be parsed",
  }));
  return [...valid, ...invalid];
}

/**
 * A conditional-edge function: one `Send(toolNode, task)` per call, or `END`.
 * Pass `AgentStateValue`-shaped state; `user`/`roles`/`runId` come from config.
 */
export function routeToolCalls(toolNode: string, endNode: string = END) {
  return (state: { messages: BaseMessage[]; turns: number; error?: unknown }, config?: LangGraphRunnableConfig): Send[] | string => {
    if (state.error) return endNode;
    const scope = resolveRunScope(config);
    const tasks = groupLinkedTasks(toolTasksFrom(state.messages, { turn: state.turns, runId: scope.runId, user: scope.user, roles: scope.roles, actionVersion: scope.actionVersion }));
    return tasks.length > 0 ? tasks.map((task) => new Send(toolNode, task)) : endNode;
  };
}

interface Finished {
  status: ToolStepStatus;
  data?: unknown;
  error?: AgentrtError | { code: string; message: string };
  approvedBy?: string;
  /** Set when an approver edited the arguments: what ran, and under which action version. */
  edited?: { args: Record<string, unknown>; edit: CallEdit; actionVersion: number };
  via?: string;
  externalOperationId?: string;
  attempts?: number;
  startedAt: number;
}

function failure(code: string, message: string, startedAt: number): Finished {
  return { status: "failed", error: { code, message }, startedAt };
}

type Resolved = Omit<Required<ToolNodeOptions>, "execute"> & { execute: ToolExecutor | undefined };

/**
 * `policy` judges the call; a call whose arguments were filled from another
 * call's result carries tool output, so it is judged as in a tainted run.
 */
async function decideAndRun(task: ToolTask, options: Resolved, config: LangGraphRunnableConfig | undefined, policy = options.policy): Promise<Finished> {
  const startedAt = Date.now();
  if (task.invalid !== undefined) return failure("TOOL_ARGS_INVALID", `arguments of ${task.call.name} are not valid JSON: ${task.invalid}`, startedAt);
  const checked = validateToolCall(options.registry, task.call);
  if (!checked.ok) return { status: "failed", error: checked.error, startedAt };
  const { tool } = checked;
  const review = reviewCall({ tool, args: checked.args, toolCallId: task.call.id, user: task.user, roles: task.roles }, policy);
  if (review.kind === "denied") {
    return { status: "denied", error: { code: "PERMISSION_DENIED", message: `permission denied: ${review.reason}` }, startedAt };
  }
  if (review.kind === "rejected") {
    const why = review.comment ? `: ${review.comment}` : "";
    return { status: "rejected", error: { code: "REJECTED", message: `rejected by ${review.by}${why}` }, startedAt };
  }
  const { args, approvedBy, approvers } = review;
  const baseVersion = task.actionVersion ?? resolveRunScope(config).actionVersion;
  const edited = review.edit === undefined ? undefined : { args, edit: review.edit, actionVersion: baseVersion + review.edit.count };
  if (edited !== undefined) task = { ...task, actionVersion: edited.actionVersion };
  // A side effect that may or may not have happened waits for a person instead of going back to the model.
  const ask = { tool: tool.name, args, toolCallId: task.call.id, user: task.user, approvers };
  const settled = await settleUnknownOutcome(ask, (confirmed) => runWithFallback(tool, args, task, options, config, confirmed));
  const editedPart = edited === undefined ? {} : { edited };
  if (settled.kind === "declined") return { status: "failed", error: { code: "UNKNOWN_OUTCOME", message: settled.message }, approvedBy, ...editedPart, startedAt };
  const { outcome, via } = settled.value;
  const base = { approvedBy, via, externalOperationId: outcome.externalOperationId, attempts: outcome.attempts, startedAt: outcome.startedAt, ...editedPart };
  return outcome.ok ? { ...base, status: "done", data: outcome.result } : { ...base, status: "failed", error: outcome.error };
}

/**
 * Executes the call; when it fails for good and the tool names a `fallback`
 * that policy allows outright and that accepts the same arguments, runs that
 * instead (under its own call id suffix, so idempotency keys stay distinct).
 * A failure caused by agentrt's own database going away (DB_CONNECTION_LOST, DB_UNREACHABLE) is thrown, not
 * returned: the tool did not fail, the step did not happen, and the run goes RETRYING and makes the call again
 * once the server is back, instead of the model answering from "tool failed" (a database restart in the middle of
 * a batch). A side effect whose outcome is unknown still asks a person.
 */
async function runWithFallback(
  tool: AgentTool, args: Record<string, unknown>, task: ToolTask, options: Resolved, config: LangGraphRunnableConfig | undefined,
  confirmedReissue?: number,
): Promise<{ outcome: ToolOutcome & { startedAt: number }; via: string | undefined }> {
  const scope = resolveRunScope(config);
  const execute = options.execute ?? createResilientExecutor({
    onRetry: (event) => emit([options.hooks, scope.hooks], "onToolRetry", event),
  });
  const callScope = {
    runId: task.runId, threadId: scope.threadId, toolCallId: task.call.id, user: task.user,
    actionVersion: task.actionVersion ?? scope.actionVersion, db: scope.db, ledger: scope.ledger, sharedLimits: scope.sharedLimits, signal: scope.signal, guard: scope.guard, confirmedReissue,
  };
  const startedAt = Date.now();
  const outcome = throwIfStorageLost(await execute(tool, args, callScope));
  const alt = tool.fallback === undefined ? undefined : options.registry.get(tool.fallback);
  if (outcome.ok || !alt || !mayFallBack(tool, outcome.error)) return { outcome: { ...outcome, startedAt }, via: undefined };
  const parsed = alt.schema.safeParse(args);
  const allowed = evaluatePolicy(options.policy, { tool: alt, user: task.user, roles: task.roles }).effect === "allow";
  if (!parsed.success || !allowed) return { outcome: { ...outcome, startedAt }, via: undefined };
  const second = throwIfStorageLost(await execute(alt, parsed.data, { ...callScope, toolCallId: `${task.call.id}:fallback:${alt.name}` }));
  return { outcome: { ...second, startedAt }, via: alt.name };
}

/** `outcome`, unless it failed because agentrt's own database went away: then that StorageError is thrown. */
function throwIfStorageLost(outcome: ToolOutcome): ToolOutcome {
  const lost = outcome.ok || isUnknownOutcome(outcome.error) ? undefined : connectionFailure(outcome.error);
  if (lost !== undefined) throw lost;
  return outcome;
}

/** Records one finished call: its step, the `onToolCall` hook, and the data references read. */
function record(task: ToolTask, done: Finished, resolved: Resolved, config: LangGraphRunnableConfig | undefined): ToolCallRecord {
  const endedAt = Date.now();
  const error = done.error ? { code: done.error.code, message: done.error.message } : undefined;
  const step: ToolStep = {
    turn: task.turn, toolCallId: task.call.id, tool: task.call.name, status: done.status, error: error ?? null,
    approvedBy: done.approvedBy ?? null, externalOperationId: done.externalOperationId ?? null,
    attempts: done.attempts ?? 0, fallback: done.via ?? null, startedAt: done.startedAt, endedAt,
  };
  const agent = agentOf(config);
  const version = done.edited?.actionVersion ?? task.actionVersion ?? resolveRunScope(config).actionVersion;
  const edit = done.edited === undefined ? {} : { edit: { originalArgs: done.edited.edit.originalArgs, by: done.edited.edit.by } };
  emit([resolved.hooks, resolveRunScope(config).hooks], "onToolCall", {
    tool: task.call.name, toolCallId: task.call.id, args: done.edited?.args ?? task.call.args, ...edit, startedAt: done.startedAt, endedAt,
    status: done.status, error, externalOperationId: done.externalOperationId, attempts: done.attempts ?? 0,
    turn: task.turn, idempotencyKey: idempotencyKey(task.runId, task.call.id, version),
    resultSize: done.data === undefined ? 0 : (JSON.stringify(done.data)?.length ?? 0),
    redact: resolved.registry.get(task.call.name)?.redact ?? [],
    ...(agent === undefined ? {} : { agent }),
  });
  return done.status === "done" ? { step, data: done.data } : { step };
}

function messageOf({ step, data }: ToolCallRecord) {
  return toolResultMessage({
    tool: step.tool, callId: step.toolCallId, status: step.status, data, error: step.error ?? undefined, fallback: step.fallback ?? undefined,
  });
}

/** Runs a group of linked calls; a refused call (bad reference) is a failed step with a TOOL_REF_* code. */
function runGroup(task: ToolTask & { group: PlannedCall[] }, resolved: Resolved, config: LangGraphRunnableConfig | undefined): Promise<ToolCallRecord[]> {
  const single = (call: PlannedCall): ToolTask => ({ ...task, call, group: undefined });
  const refPolicy = whenTainted(resolved.policy);
  return runToolGroup(task.group, {
    run: async (call) => {
      const original = task.group.find((c) => c.id === call.id);
      const refers = original !== undefined && findRefs(original.args).length > 0;
      return record(single(call), await decideAndRun(single(call), resolved, config, refers ? refPolicy : resolved.policy), resolved, config);
    },
    refuse: (call, problem: ToolRefProblem) =>
      record(single(call), failure(toolRefCode(problem), describeProblem(problem), Date.now()), resolved, config),
  }, config);
}

/** True for a branch input made by {@link routeToolCalls}: a `call` with a name. */
function isToolTask(value: unknown): value is ToolTask {
  const call = (value as { call?: { name?: unknown } } | null)?.call;
  return typeof call === "object" && call !== null && typeof call.name === "string";
}

/** The tool branch node: input is a {@link ToolTask}, output one ToolMessage and one step per call. */
export function createToolNode(options: ToolNodeOptions) {
  const resolved: Resolved = {
    registry: options.registry,
    policy: options.policy ?? defaultPolicy,
    execute: options.execute,
    hooks: options.hooks ?? {},
  };
  return async (task: ToolTask, config?: LangGraphRunnableConfig): Promise<AgentStateUpdate> => {
    // Started by a Command's goto, it gets the graph's state, not a call: it runs nothing, least of all the last
    // turn's calls, which run only in their own branches (each through policy, and approval where it asks).
    if (!isToolTask(task)) return {};
    // A model call the tool makes itself is reported to the run's hooks like a turn's (see nested-calls.ts).
    const records = await withNestedCallHooks(config, resolveRunScope(config).hooks, task.turn, async () => task.group !== undefined
      ? await runGroup(task as ToolTask & { group: PlannedCall[] }, resolved, config)
      : [record(task, await decideAndRun(task, resolved, config), resolved, config)]);
    return { messages: records.map(messageOf), steps: records.map((r) => r.step) };
  };
}
