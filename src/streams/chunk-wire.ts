/**
 * A stream chunk's payload as its SSE event carries it (JSON: messages as dicts, LangGraph's debug, task,
 * checkpoint and event objects without their internals). Computed where the chunk is sent, or, for a run streamed
 * across processes, once by the process executing it before the chunk is stored.
 * @module
 */
import { checkpointToWire, debugToWire, eventToWire, plainValues, taskToWire } from "./debug-wire.js";
import { toWire } from "./value-wire.js";

/** The JSON form of one chunk of LangGraph stream mode `mode`. */
export function chunkToWire(mode: string, payload: unknown): unknown {
  switch (mode) {
    case "messages": {
      const [message, metadata] = Array.isArray(payload) ? (payload as [unknown, unknown]) : [payload, {}];
      return [toWire(message), plainValues(metadata)];
    }
    case "debug":
      return debugToWire(payload);
    case "checkpoints":
      return checkpointToWire(payload);
    case "tasks":
      return taskToWire(payload);
    case "events":
      return eventToWire(payload);
    default:
      return toWire(payload);
  }
}
