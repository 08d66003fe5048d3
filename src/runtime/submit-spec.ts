/**
 * What `Runtime.submit` checks before anything is stored: the graph loads (when it runs here), the input fits its
 * channels and reducers, the thread belongs to the graph; and the run it stores.
 * @module
 */
import { UserInputError } from "../errors.js";
import { defaultWaitTtlMs, type CreateRunInput, type RunStore } from "../runs/index.js";
import { threadValues, validateGraphInput } from "./graph-input.js";
import { stateKeys, type GraphRegistry } from "./graph-registry.js";
import { runIdempotency } from "./idempotent-create.js";
import type { SubmitOptions } from "./runtime-options.js";

/** The run to store for `options`, once every check passed; BAD_INPUT (or the graph's load error) otherwise. */
export async function submitSpec(registry: GraphRegistry, runs: RunStore, options: SubmitOptions): Promise<CreateRunInput> {
  // Run here: loaded before anything is stored, so a broken graph is refused (exit 2) rather than stored as a
  // FAILED run, and its import time does not count against the run's deadline. Queued: only the id is checked.
  const graph = options.queue !== true || !registry.entries.has(options.graph) ? await registry.load(options.graph) : undefined;
  if (options.message === undefined && options.input === undefined) {
    throw new UserInputError("BAD_INPUT", "a run needs --message TEXT or --input JSON");
  }
  // A message becomes { messages: [...] }: a graph without that channel would silently drop it. A graph with
  // no state keys at all (a functional-API entrypoint, a declared DAG) receives its input whole, messages included.
  const keys = graph?.channels === undefined ? [] : stateKeys(graph.channels);
  if (options.input === undefined && keys.length > 0 && !keys.includes("messages")) {
    throw new UserInputError("BAD_INPUT", `graph ${options.graph} has no messages channel for --message: pass its state with --input JSON (keys: ${keys.join(", ")})`);
  }
  if (options.threadId !== undefined) await assertThreadGraph(runs, options.threadId, options.graph);
  const input = options.input ?? { messages: [{ role: "user", content: options.message }] };
  // Refused before it is stored: a run whose input its graph's reducers refuse would leave an unreadable thread.
  if (graph !== undefined) await validateGraphInput(graph, options.graph, input, { current: threadValues(graph, options.threadId) });
  const { idempotencyKey: key, ...request } = options;
  return {
    graphId: options.graph, input, threadId: options.threadId, userId: options.user ?? "anonymous",
    priority: options.priority, budget: options.budget, waitTtlMs: options.waitTtlMs ?? defaultWaitTtlMs(),
    config: options.config, metadata: options.metadata,
    ...(key === undefined ? {} : { idempotency: runIdempotency({ key, request }, () => request) }),
  };
}

/** A thread's checkpoints belong to the graph that wrote them: another graph cannot continue it. */
async function assertThreadGraph(runs: RunStore, threadId: string, graphId: string): Promise<void> {
  const previous = (await runs.list({ threadId, order: "newest", limit: 1 }))[0];
  if (previous !== undefined && previous.graphId !== graphId) {
    throw new UserInputError("BAD_INPUT", `thread ${threadId} belongs to graph ${previous.graphId}, not ${graphId}: use another thread`);
  }
}
