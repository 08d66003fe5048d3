/**
 * A thread's graph, as its `graph_id` metadata key records it: the server binds a thread to the graph of
 * its first run (its checkpoints are that graph's state) and reads the thread through it. Clients may name
 * it when they create a thread (the SDK's `threads.create({ graphId })` sends `metadata.graph_id`) and may
 * repeat it in a patch, but never change or remove it: that would run one graph on another's checkpoints,
 * lock the thread (`null`) or make it unreadable (an unknown graph).
 * @module
 */
import { HttpError } from "./http-error.js";
import { assistantIdFor } from "./ids.js";
import type { RunService } from "./run-service.js";

/** The thread metadata key the server owns. */
export const GRAPH_ID_KEY = "graph_id";

/** The graph id `value` names (a graph id or its assistant id), or a 422 naming the known graphs. */
function namedGraph(service: RunService, value: unknown): string {
  const known = service.runtime.registry.ids();
  if (typeof value !== "string") {
    throw new HttpError(422, "BAD_INPUT", `metadata.${GRAPH_ID_KEY} must be a graph id (known: ${known.join(", ") || "none"}), got ${JSON.stringify(value)}`);
  }
  try {
    return service.graphOf(value);
  } catch {
    throw new HttpError(422, "UNKNOWN_GRAPH", `metadata.${GRAPH_ID_KEY}: no graph ${value} (known: ${known.join(", ") || "none"})`);
  }
}

function without(metadata: Record<string, unknown>, key: string): Record<string, unknown> {
  return Object.fromEntries(Object.entries(metadata).filter(([k]) => k !== key));
}

/** The metadata a new thread is stored with: a `graph_id` must name a graph of langgraph.json (null means none). */
export function newThreadMetadata(service: RunService, metadata: Record<string, unknown>): Record<string, unknown> {
  if (!(GRAPH_ID_KEY in metadata)) return metadata;
  const value = metadata[GRAPH_ID_KEY];
  if (value === null) return without(metadata, GRAPH_ID_KEY);
  return { ...metadata, [GRAPH_ID_KEY]: namedGraph(service, value) };
}

/**
 * The keys a PATCH may merge into the thread's metadata: its `graph_id` only when the thread has no graph
 * yet (then as at creation) or unchanged; any other value is a 422 and nothing is stored.
 */
export async function threadPatchMetadata(service: RunService, threadId: string, metadata: Record<string, unknown>): Promise<Record<string, unknown>> {
  if (!(GRAPH_ID_KEY in metadata)) return metadata;
  const owner = await service.graphOfThread(threadId);
  if (owner === undefined) return newThreadMetadata(service, metadata);
  const value = metadata[GRAPH_ID_KEY];
  // Echoed back as read (a client saving the whole metadata), or as the graph's assistant id.
  if (value === owner || (typeof value === "string" && service.runtime.registry.ids().some((id) => id === owner && assistantIdFor(id) === value))) {
    return { ...metadata, [GRAPH_ID_KEY]: owner };
  }
  throw new HttpError(422, "BAD_INPUT", `thread ${threadId} belongs to graph ${owner}: metadata.${GRAPH_ID_KEY} is the server's and cannot be changed to ${JSON.stringify(value)} (start a new thread for another graph)`);
}
