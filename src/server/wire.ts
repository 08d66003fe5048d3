/**
 * The JSON shapes of the Agent Server API: state values with LangChain
 * messages as plain dicts (not the `lc` constructor form), thread states
 * from LangGraph snapshots, and run statuses in the API's vocabulary.
 * @module
 */
import type { StateSnapshot } from "@langchain/langgraph";
import type { RunRecord, RunStatus } from "../runs/index.js";
import { toWire } from "../streams/value-wire.js";
import { assistantIdFor } from "./ids.js";

/** The API's run status for an agentrt status. */
export function apiRunStatus(status: RunStatus): "pending" | "running" | "success" | "error" | "interrupted" | "timeout" {
  switch (status) {
    case "QUEUED":
    case "RETRYING":
      return "pending";
    case "RUNNING":
      return "running";
    case "SUCCEEDED":
      return "success";
    case "FAILED":
      return "error";
    case "EXPIRED":
      return "timeout";
    default:
      return "interrupted";
  }
}

/** A run as the API returns it, with agentrt's own status alongside. */
export function runToWire(run: RunRecord): Record<string, unknown> {
  return {
    run_id: run.runId,
    thread_id: run.threadId,
    assistant_id: assistantIdFor(run.graphId),
    created_at: new Date(run.createdAt).toISOString(),
    updated_at: new Date(run.updatedAt).toISOString(),
    status: apiRunStatus(run.status),
    metadata: { ...run.metadata, graph_id: run.graphId, user: run.userId, agentrt_status: run.status },
    multitask_strategy: "reject",
    kwargs: {
      input: run.input ?? null,
      config: { configurable: run.config?.configurable ?? {}, ...(run.config?.recursionLimit === undefined ? {} : { recursion_limit: run.config.recursionLimit }) },
    },
  };
}

function checkpointOf(config: StateSnapshot["config"] | undefined): Record<string, unknown> | null {
  const c = config?.configurable;
  if (c?.checkpoint_id === undefined) return null;
  return { thread_id: c.thread_id, checkpoint_ns: c.checkpoint_ns ?? "", checkpoint_id: c.checkpoint_id, checkpoint_map: null };
}

function isSnapshot(value: unknown): value is StateSnapshot {
  return typeof value === "object" && value !== null && "values" in value && "tasks" in value;
}

/** A thread state (current or one history entry) as the API returns it. */
export function stateToWire(snapshot: StateSnapshot): Record<string, unknown> {
  const tasks = snapshot.tasks.map((t) => ({
    id: t.id,
    name: t.name,
    error: t.error === undefined || t.error === null ? null : String((t.error as Error).message ?? t.error),
    interrupts: t.interrupts.map((i) => ({ value: toWire(i.value), id: i.id })),
    checkpoint: null,
    // With `subgraphs`, LangGraph puts the paused subgraph's own snapshot here (else its config, not shown).
    state: isSnapshot(t.state) ? stateToWire(t.state) : null,
    ...(t.result === undefined ? {} : { result: toWire(t.result) }),
  }));
  return {
    values: toWire(snapshot.values),
    next: snapshot.next,
    tasks,
    checkpoint: checkpointOf(snapshot.config),
    metadata: toWire(snapshot.metadata ?? {}),
    created_at: snapshot.createdAt ?? null,
    parent_checkpoint: checkpointOf(snapshot.parentConfig),
    interrupts: tasks.filter((t) => !("result" in t)).flatMap((t) => t.interrupts),
  };
}

/** The state of a thread that has no checkpoint yet. */
export function emptyState(): Record<string, unknown> {
  return { values: {}, next: [], tasks: [], checkpoint: null, metadata: {}, created_at: null, parent_checkpoint: null, interrupts: [] };
}
