/**
 * Reads a thread's state and history through its graph and the shared SQLite
 * checkpointer, so tasks, `next` and interrupts are computed by LangGraph.
 * @module
 */
import type { StateSnapshot } from "@langchain/langgraph";
import type { CheckpointTuple } from "@langchain/langgraph-checkpoint";
import type { ThreadCopyingSaver } from "../runtime/storage/runtime-storage.js";
import type { GraphRegistry, RegisteredGraph } from "../runtime/index.js";
import { readPendingActions, type PendingAction } from "../graph/approval.js";
import { approvalPolicyOf } from "../graph/foreign-policy.js";

interface StatefulGraph extends RegisteredGraph {
  getState(config: object, options?: { subgraphs?: boolean }): Promise<StateSnapshot>;
  updateState(config: object, values: unknown, asNode?: string): Promise<{ configurable?: Record<string, unknown> }>;
  getStateHistory(config: object, options?: { limit?: number; before?: object }): AsyncIterable<StateSnapshot>;
}

/** State, history and pending approvals of threads. */
export class ThreadStateReader {
  constructor(
    private readonly registry: GraphRegistry,
    private readonly checkpointer: ThreadCopyingSaver,
  ) {}

  /** The graph with the runtime's persistence attached (the runtime's registry binds it). */
  async graph(graphId: string): Promise<StatefulGraph> {
    return (await this.registry.load(graphId)) as StatefulGraph;
  }

  /**
   * The newest state (or the one at `checkpointId`); undefined when the thread has no checkpoint. `subgraphs`:
   * a task paused inside a subgraph carries that subgraph's state.
   */
  async state(graphId: string, threadId: string, checkpointId?: string, subgraphs = false): Promise<StateSnapshot | undefined> {
    const graph = await this.graph(graphId);
    const configurable = checkpointId === undefined ? { thread_id: threadId } : { thread_id: threadId, checkpoint_id: checkpointId };
    const snapshot = await graph.getState({ configurable }, { subgraphs });
    return snapshot.createdAt === undefined ? undefined : snapshot;
  }

  /** Past states, newest first; `metadata`: only checkpoints whose metadata has these values (e.g. `{ source: "input" }`). */
  async history(graphId: string, threadId: string, options: { limit: number; before?: string; metadata?: Record<string, unknown> }): Promise<StateSnapshot[]> {
    const graph = await this.graph(graphId);
    const before = options.before === undefined ? undefined : { configurable: { thread_id: threadId, checkpoint_id: options.before } };
    const out: StateSnapshot[] = [];
    for await (const snapshot of graph.getStateHistory({ configurable: { thread_id: threadId } }, { limit: options.limit, before, ...(options.metadata === undefined ? {} : { filter: options.metadata }) })) {
      out.push(snapshot);
    }
    return out;
  }

  /** Writes `values` as if `asNode` returned them, on top of `checkpointId` (a fork) or the newest checkpoint. */
  async update(graphId: string, threadId: string, values: unknown, options: { asNode?: string; checkpointId?: string }): Promise<Record<string, unknown>> {
    const graph = await this.graph(graphId);
    const configurable = options.checkpointId === undefined ? { thread_id: threadId } : { thread_id: threadId, checkpoint_id: options.checkpointId, checkpoint_ns: "" };
    const next = await graph.updateState({ configurable }, values, options.asNode);
    return next.configurable ?? {};
  }

  /**
   * The thread's newest checkpoint (or the one at `checkpointId`) as stored, without replaying it through the
   * graph's reducers (which a damaged state fails); undefined when there is none or even that cannot be read.
   */
  async storedCheckpoint(threadId: string, checkpointId?: string): Promise<CheckpointTuple | undefined> {
    const configurable = { thread_id: threadId, checkpoint_ns: "", ...(checkpointId === undefined ? {} : { checkpoint_id: checkpointId }) };
    return this.checkpointer.getTuple({ configurable }).catch(() => undefined);
  }

  /** Copies every checkpoint of `from` to the new thread `to` (synchronous on SQLite, so it joins a caller's transaction). */
  copyThread(from: string, to: string): void | Promise<void> {
    return this.checkpointer.copyThread(from, to);
  }

  /** Removes every checkpoint of the thread. */
  async deleteThread(threadId: string): Promise<void> {
    await this.checkpointer.deleteThread(threadId);
  }

  /** Approvals the thread is waiting on, live from its newest checkpoint; a foreign agent's judged for `requester`. */
  async pending(graphId: string, threadId: string, requester?: string): Promise<PendingAction[]> {
    const snapshot = await this.state(graphId, threadId);
    const foreign = { requester, policy: approvalPolicyOf(await this.graph(graphId)) };
    return snapshot === undefined ? [] : readPendingActions(snapshot, foreign);
  }
}
