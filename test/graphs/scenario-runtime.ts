// Shared by the scenario graph tests: a real Runtime on a temp SQLite file over the repo's langgraph.json, offline.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { Runtime } from "../../src/runtime/index.js";
import { openWorld } from "../../graphs/sim/index.js";
import type { SimSnapshot } from "agentrt/testing";
import { SqliteSaver } from "agentrt/checkpointers";
import type { ToolStep } from "agentrt";
import { runtimeSqlite } from "../../src/runtime/internals.js";

/** The repository's langgraph.json, exactly the file Studio reads. */
export const LANGGRAPH_JSON = fileURLToPath(new URL("../../langgraph.json", import.meta.url));

/** What the tests need of a compiled graph to read a thread's state with the runtime's saver. */
export interface StatefulGraph {
  checkpointer?: unknown;
  getState(config: { configurable: { thread_id: string } }): Promise<{ values: unknown }>;
  /** A copy of the graph (LangGraph's withConfig): the tests bind the copy, never the module's shared graph. */
  withConfig(config: Record<string, never>): StatefulGraph;
}

export interface ScenarioRuntime {
  runtime: Runtime;
  /** The simulated world of the run database: calls performed, faults fired, system state. */
  world(): Promise<SimSnapshot>;
  /** The tool steps a run's thread recorded in its checkpointed state (each with its model turn). */
  steps(graph: StatefulGraph, threadId: string): Promise<ToolStep[]>;
  close(): void | Promise<void>;
}

/** Opens a runtime on a fresh database; graphs use their scripted model (no OPENAI_API_KEY). */
export function openScenarioRuntime(): ScenarioRuntime {
  delete process.env.OPENAI_API_KEY;
  const dir = mkdtempSync(join(tmpdir(), "agentrt-scenario-"));
  const runtime = Runtime.open({ db: join(dir, "runs.db"), config: LANGGRAPH_JSON });
  return {
    runtime,
    world: async () => (await openWorld({ db: runtimeSqlite(runtime) })).snapshot(),
    steps: async (graph, threadId) => {
      // A copy reads through the runtime's saver: the module's graph is shared with every test file in the worker.
      const reader = graph.withConfig({});
      reader.checkpointer = new SqliteSaver(runtimeSqlite(runtime));
      const snapshot = await reader.getState({ configurable: { thread_id: threadId } });
      return (snapshot.values as { steps?: ToolStep[] }).steps ?? [];
    },
    close: async () => {
      await runtime.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** Runs `body` with simulated-world environment knobs set, restoring them afterwards. */
export async function withSimEnv<T>(env: { AGENTRT_SIM_FAULTS?: string; AGENTRT_SIM_LATENCY_MS?: string }, body: () => Promise<T>): Promise<T> {
  const saved = { AGENTRT_SIM_FAULTS: process.env.AGENTRT_SIM_FAULTS, AGENTRT_SIM_LATENCY_MS: process.env.AGENTRT_SIM_LATENCY_MS };
  Object.assign(process.env, env);
  try {
    return await body();
  } finally {
    for (const [key, value] of Object.entries(saved)) {
      if (value === undefined) delete process.env[key];
      else process.env[key] = value;
    }
  }
}
