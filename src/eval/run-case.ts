/**
 * Runs one case in isolation: its own SQLite file (so the simulated world
 * starts fresh and its counts are the case's own), its env applied to that
 * world only, approvals decided in order as the run waits.
 * @module
 */
import { mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { AgentrtError, isUserInputError } from "../errors.js";
import { actionIdFor } from "../graph/approval.js";
import { Runtime, type RunView, type RuntimeEvent } from "../runtime/index.js";
import { openWorld } from "../testing/sim-open.js";
import type { CaseApproval, EvalCase } from "./case-schema.js";
import { emptyObservation, type CaseObservation, type ObservedDecision, type ObservedToolCall, type ObservedToolStatus } from "./observation.js";
import { runtimeInternals } from "../runtime/internals.js";

/** Options of {@link runCase}. */
export interface RunCaseOptions {
  /** Graph id from langgraph.json. */
  graph: string;
  /** The langgraph.json listing the graph. @default "./langgraph.json" */
  config?: string;
  /** Keep the case's database as `<keepDir>/<case id>.db` (for `agentrt trace`). @default removed after the case */
  keepDir?: string;
  /** Environment the case's env is laid over. @default process.env */
  env?: NodeJS.ProcessEnv;
}

/** Most approval rounds a case may go through; a run that keeps asking is left waiting. */
const MAX_ROUNDS = 20;

/** Runs `evalCase` to completion (or a wait) and returns what was observed; never throws for run failures. */
export async function runCase(evalCase: EvalCase, options: RunCaseOptions): Promise<CaseObservation> {
  const dir = options.keepDir ?? mkdtempSync(join(tmpdir(), "agentrt-eval-"));
  if (options.keepDir !== undefined) mkdirSync(dir, { recursive: true });
  const dbPath = join(dir, `${options.keepDir === undefined ? "case" : evalCase.id.replace(/[^\w.-]/g, "_")}.db`);
  if (options.keepDir !== undefined) rmSync(dbPath, { force: true });
  const statuses = new Map<string, ObservedToolStatus>();
  const onEvent = (event: RuntimeEvent) => {
    if (event.type === "tool_call") statuses.set(event.toolCallId, event.status as ObservedToolStatus);
  };
  const env = { ...(options.env ?? process.env), ...evalCase.env };
  const started = performance.now();
  let runtime: Runtime | undefined;
  try {
    runtime = Runtime.open({ db: dbPath, config: options.config, onEvent });
    // The world on this connection is opened first with the case's env, so every tool call of the case sees it.
    openWorld({ db: runtimeInternals(runtime).db, env });
    const decisions: ObservedDecision[] = [];
    const requested: string[] = [];
    const notes: string[] = [];
    const submitted = await runtime.submit({ graph: options.graph, ...caseInput(evalCase), user: evalCase.user });
    const view = await decideApprovals(runtime, submitted, evalCase.approvals ?? [], { decisions, requested, notes });
    return await observe(runtime, evalCase, view, { decisions, requested, notes, statuses, env, latencyMs: performance.now() - started });
  } catch (error) {
    const code = error instanceof AgentrtError ? error.code : "INTERNAL";
    const message = error instanceof Error ? error.message.split("\n")[0] ?? "" : String(error);
    return emptyObservation(evalCase.id, { error: { code, message }, latencyMs: performance.now() - started, faultsInjected: hasFaults(env) });
  } finally {
    await runtime?.close();
    if (options.keepDir === undefined) rmSync(dir, { recursive: true, force: true });
  }
}

function caseInput(evalCase: EvalCase): { message: string } | { input: unknown } {
  return "message" in evalCase.input ? { message: evalCase.input.message } : { input: evalCase.input.input };
}

interface DecisionLog { decisions: ObservedDecision[]; requested: string[]; notes: string[] }

/** Answers pending actions with the case's approvals, in order, until the run rests without asking. */
async function decideApprovals(runtime: Runtime, first: RunView, approvals: readonly CaseApproval[], log: DecisionLog): Promise<RunView> {
  let view = first;
  let next = 0;
  for (let round = 0; round < MAX_ROUNDS && view.status === "WAITING_APPROVAL"; round++) {
    const action = view.pending[0];
    if (action === undefined) break;
    if (!log.requested.includes(action.tool)) log.requested.push(action.tool);
    const approval = approvals[next];
    if (approval === undefined) {
      log.notes.push(`left waiting: no approval scripted for ${action.tool}`);
      break;
    }
    if (approval.tool !== action.tool) {
      log.notes.push(`left waiting: approval ${next + 1} is for ${approval.tool}, the run asks for ${action.tool}`);
      break;
    }
    next++;
    const by = approval.by ?? view.user;
    const decision = { actionId: action.action_id, argsHash: action.args_hash, by, reason: approval.reason };
    try {
      view = approval.decision === "approve" ? await runtime.approve(view.run_id, decision) : await runtime.reject(view.run_id, decision);
    } catch (error) {
      // A refused decision (wrong approver, say) changes nothing: the run stays waiting, which the case may expect.
      if (!isUserInputError(error)) throw error;
      log.notes.push(`${approval.decision} by ${by} refused: ${error.message} [${error.code}]`);
      break;
    }
    log.decisions.push({ tool: action.tool, actionId: action.action_id, decision: approval.decision, by });
  }
  for (const action of view.pending) if (!log.requested.includes(action.tool)) log.requested.push(action.tool);
  if (next < approvals.length) log.notes.push(`${approvals.length - next} scripted approval(s) unused`);
  return view;
}

interface Seen extends DecisionLog {
  statuses: Map<string, ObservedToolStatus>;
  env: NodeJS.ProcessEnv;
  latencyMs: number;
}

async function observe(runtime: Runtime, evalCase: EvalCase, view: RunView, seen: Seen): Promise<CaseObservation> {
  await runtime.trace.flush();
  const approved = new Map(seen.decisions.filter((d) => d.decision === "approve").map((d) => [d.actionId, d.by]));
  const spans = (await runtime.trace.spans(view.run_id)).filter((span) => span.kind === "tool_call" && span.tool !== null);
  // One entry per tool call: a step recorded again (say, after recovery) keeps its last record.
  const last = new Map(spans.map((span, index) => [span.toolCallId ?? `#${index}`, index]));
  const toolCalls: ObservedToolCall[] = spans
    .filter((span, index) => last.get(span.toolCallId ?? `#${index}`) === index)
    .map((span) => {
      const toolCallId = span.toolCallId ?? "";
      const status = seen.statuses.get(toolCallId) ?? (span.status === "ok" ? "done" : "failed");
      return {
        tool: span.tool ?? "", toolCallId, args: span.args, status, error: span.error,
        approvedBy: approved.get(actionIdFor(toolCallId)) ?? null,
      };
    });
  const world = await openWorld({ db: runtimeInternals(runtime).db }).snapshot();
  return emptyObservation(evalCase.id, {
    runId: view.run_id,
    status: view.status,
    answer: answerOf(view.result),
    error: view.error,
    toolCalls,
    approvalRequested: seen.requested,
    decisions: seen.decisions,
    steps: view.usage.steps,
    modelCalls: view.usage.model_calls,
    tokens: view.usage.tokens,
    costUsd: view.usage.cost_usd,
    worldCalls: world.calls,
    worldFaults: world.failures,
    faultsInjected: hasFaults(seen.env),
    latencyMs: seen.latencyMs,
    notes: seen.notes,
  });
}

function answerOf(result: unknown): string | null {
  if (typeof result === "string") return result;
  const nested = (result as { result?: unknown } | null)?.result;
  return typeof nested === "string" ? nested : null;
}

function hasFaults(env: NodeJS.ProcessEnv): boolean {
  return (env.AGENTRT_SIM_FAULTS ?? "").trim() !== "";
}
