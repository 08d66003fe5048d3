/**
 * The `debug`, `tasks`, `checkpoints` and `events` SSE payloads in the shapes
 * the official Agent Server sends (libs/langgraph-api stream.mts): debug
 * checkpoints gain `checkpoint`/`parent_checkpoint` and `parent_config`,
 * lose LangGraph's internal `__pregel_*` configurable keys and callbacks, and
 * a task's subgraph state config becomes its `checkpoint`.
 * @module
 */
import { toWire } from "./value-wire.js";

type Obj = Record<string, unknown>;

const isObj = (v: unknown): v is Obj => v !== null && typeof v === "object" && !Array.isArray(v);

/** A config without callbacks and without `__`-prefixed (internal) configurable keys. */
function publicConfig(config: unknown): unknown {
  if (!isObj(config)) return config ?? null;
  const { callbacks: _callbacks, ...rest } = config;
  const configurable = isObj(rest.configurable) ? Object.fromEntries(Object.entries(rest.configurable).filter(([k]) => !k.startsWith("__"))) : rest.configurable;
  return toWire({ ...rest, configurable });
}

/** `{ thread_id, checkpoint_ns, checkpoint_id, checkpoint_map }` of a config, or null; the id is optional for a task. */
function checkpointOf(config: unknown, idRequired: boolean): Obj | null {
  const c = isObj(config) && isObj(config.configurable) ? config.configurable : undefined;
  if (typeof c?.thread_id !== "string") return null;
  if (idRequired && typeof c.checkpoint_id !== "string") return null;
  return {
    thread_id: c.thread_id,
    checkpoint_id: typeof c.checkpoint_id === "string" ? c.checkpoint_id : null,
    checkpoint_ns: typeof c.checkpoint_ns === "string" ? c.checkpoint_ns : "",
    checkpoint_map: isObj(c.checkpoint_map) ? toWire(c.checkpoint_map) : null,
  };
}

/** A debug task or task result; a subgraph task's `state` config becomes `checkpoint`. */
export function taskToWire(task: unknown): unknown {
  if (!isObj(task)) return toWire(task);
  const checkpoint = checkpointOf(task.state, false);
  if (checkpoint === null) return toWire(task);
  const { state: _state, ...rest } = task;
  return { ...(toWire(rest) as Obj), checkpoint };
}

/** A debug checkpoint (also the `checkpoints` mode payload). */
export function checkpointToWire(payload: unknown): unknown {
  if (!isObj(payload)) return toWire(payload);
  const { config, parentConfig, tasks, ...rest } = payload;
  return {
    ...(toWire(rest) as Obj),
    config: publicConfig(config),
    parent_config: publicConfig(parentConfig),
    checkpoint: checkpointOf(config, true),
    parent_checkpoint: checkpointOf(parentConfig, true),
    tasks: Array.isArray(tasks) ? tasks.map(taskToWire) : [],
  };
}

/** One `debug` chunk: `{ type: "checkpoint" | "task" | "task_result", step, timestamp, payload }`. */
export function debugToWire(chunk: unknown): unknown {
  if (!isObj(chunk)) return toWire(chunk);
  const payload = chunk.type === "checkpoint" ? checkpointToWire(chunk.payload) : taskToWire(chunk.payload);
  return { ...(toWire({ ...chunk, payload: undefined }) as Obj), payload };
}

/** One `streamEvents` v2 event; `parent_ids` is always present, as the SDK's type declares it. */
export function eventToWire(event: unknown): unknown {
  if (!isObj(event)) return toWire(event);
  return toWire({ parent_ids: [], ...event, metadata: plainValues(event.metadata) });
}

/** Only the plain (string, number, boolean, null) entries: run metadata may carry live objects. */
export function plainValues(metadata: unknown): Obj {
  const out: Obj = {};
  if (!isObj(metadata)) return out;
  for (const [key, value] of Object.entries(metadata)) {
    if (value === null || ["string", "number", "boolean"].includes(typeof value)) out[key] = value;
  }
  return out;
}
