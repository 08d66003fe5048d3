/**
 * The approval turns of the history bench and its profiling driver: a Runtime on `db` running the history agent,
 * one approval turn on a thread (its resume latency: approve → the next model call starts), and a getState of a
 * thread through a plain LangGraph reader on the same file.
 */
import { SqliteSaver } from "../checkpointers/index.js";
import { Runtime } from "../src/runtime/index.js";
import { runtimeSqlite } from "../src/runtime/internals.js";

/** What the history benches drive. */
export interface HistoryTurns {
  runtime: Runtime;
  /**
   * One turn on `threadId`: submitted, waits for approval, approved (inside `around`, when given) after `thinkMs` of
   * idle time (a person reading the pending action); the resume latency (ms).
   */
  turn(threadId: string, around?: <T>(approve: () => Promise<T>) => Promise<T>, thinkMs?: number): Promise<number>;
  /** The time (ms) of one getState of `threadId`. */
  getState(threadId: string): Promise<number>;
  /** CPU time (ms, user + system) of the last turn's approve call and of the last getState: less sensitive to load than wall time. */
  cpu: { approve: number; getState: number };
}

const cpuSince = (start: NodeJS.CpuUsage): number => {
  const used = process.cpuUsage(start);
  return (used.user + used.system) / 1000;
};

/** Opens the runtime on `db` with `config` (which must list `history_agent`). */
export async function openHistoryTurns(db: string, config: string): Promise<HistoryTurns> {
  const modelCalls = new Map<string, number>();
  const runtime = Runtime.open({ db, config, onEvent: (e) => {
    if (e.type === "model_call" && !modelCalls.has(e.runId)) modelCalls.set(e.runId, performance.now());
  } });
  const { graph } = await import("./_history-graph.js");
  const reader = graph.withConfig({});
  reader.checkpointer = new SqliteSaver(runtimeSqlite(runtime));
  const cpu = { approve: 0, getState: 0 };
  return {
    runtime,
    cpu,
    async turn(threadId, around = (approve) => approve(), thinkMs = 0) {
      const waiting = await runtime.submit({ graph: "history_agent", message: "restart payments", threadId });
      const action = waiting.pending?.[0];
      if (waiting.status !== "WAITING_APPROVAL" || action === undefined) throw new Error(`turn on ${threadId} ended ${waiting.status}`);
      modelCalls.delete(waiting.run_id);
      if (thinkMs > 0) await new Promise((resolve) => setTimeout(resolve, thinkMs));
      const start = performance.now();
      const used = process.cpuUsage();
      const done = await around(() => runtime.approve(waiting.run_id, { actionId: action.action_id, argsHash: action.args_hash }));
      cpu.approve = cpuSince(used);
      if (done.status !== "SUCCEEDED") throw new Error(`approved turn on ${threadId} ended ${done.status}`);
      return (modelCalls.get(waiting.run_id) ?? Number.NaN) - start;
    },
    async getState(threadId) {
      const start = performance.now();
      const used = process.cpuUsage();
      await reader.getState({ configurable: { thread_id: threadId } });
      cpu.getState = cpuSince(used);
      return performance.now() - start;
    },
  };
}
