/**
 * A run's input checked against its graph before anything is stored: the shape LangGraph's `__start__`
 * node accepts, the graph's own input schema, and a dry run of each state key's reducer on a throwaway
 * channel. LangGraph stores a run's input as pending writes before it applies them, so an input its
 * reducers refuse (`{ messages: 5 }`) would otherwise leave a checkpoint no read of the thread survives.
 * @module
 */
import { coerceMessageLikeToMessage } from "@langchain/core/messages";
import { messagesDeltaReducer, messagesStateReducer } from "@langchain/langgraph";
import { UserInputError } from "../errors.js";
import { stateKeys, type RegisteredGraph } from "./graph-registry.js";

/** The channel API of LangGraph's BaseChannel this check uses (duck-typed: a project may load its own copy). */
interface DryRunChannel {
  fromCheckpoint(checkpoint?: unknown): DryRunChannel;
  update(values: unknown[]): boolean;
  operator?: unknown;
  reducer?: unknown;
}

/**
 * What a compiled StateGraph adds: the input validation LangGraph runs first when a run streams, and its
 * builder's input schema (LangGraph's `__start__` node ignores keys outside it). Internal to LangGraph, so
 * each is used only when present.
 */
interface ValidatingGraph extends RegisteredGraph {
  _validateInput?: (input: unknown) => Promise<unknown>;
  builder?: { _inputDefinition?: unknown; _schemaDefinitions?: { get(key: unknown): unknown } };
}

/** The keys LangGraph takes from a run's input: its input schema's, else every state key. */
function inputKeys(graph: ValidatingGraph, keys: string[]): string[] {
  const definition = graph.builder?._schemaDefinitions?.get(graph.builder._inputDefinition);
  if (definition === null || typeof definition !== "object") return keys;
  const declared = new Set(Object.keys(definition));
  return keys.filter((k) => declared.has(k));
}

/** Options of {@link validateGraphInput}. */
export interface GraphInputOptions {
  /** Where the input goes, for the reason ("input", "values"). */
  label?: string;
  /** "state": a state update, which may write any state key, not only the input schema's (default "input"). */
  scope?: "input" | "state";
  /**
   * The thread's current values, read only when a key fails on an empty channel: a reducer may depend on
   * what is there (a RemoveMessage of an existing message id is valid on its thread, not on an empty one).
   */
  current?: () => Promise<Record<string, unknown> | undefined>;
}

const firstLine = (error: unknown): string => (error instanceof Error ? error.message : String(error)).split("\n")[0] ?? "";

function isChannel(value: unknown): value is DryRunChannel {
  const channel = value as Partial<DryRunChannel> | null;
  return typeof channel?.fromCheckpoint === "function" && typeof channel.update === "function";
}

function describeKind(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "an array";
  return typeof value === "string" ? "a string" : typeof value === "object" ? "an object" : `a ${typeof value}`;
}

/** For a messages channel, the first item LangChain cannot read as a message, as a one-line reason. */
function badMessage(channel: DryRunChannel, key: string, value: unknown, label: string): string | undefined {
  const reducer = channel.operator ?? channel.reducer;
  if (reducer !== messagesStateReducer && reducer !== messagesDeltaReducer) return undefined;
  const items = Array.isArray(value) ? value : [value];
  for (const [index, item] of items.entries()) {
    try {
      coerceMessageLikeToMessage(item as never);
    } catch {
      const shown = JSON.stringify(item)?.slice(0, 60) ?? String(item);
      const where = Array.isArray(value) ? `${label}.${key}[${index}]` : `${label}.${key}`;
      return `${where}: ${shown} is not a message (send a string, {role, content}, {type, content} or a serialized LangChain message)`;
    }
  }
  return undefined;
}

function dryRun(channel: DryRunChannel, value: unknown, seed?: unknown): void {
  channel.fromCheckpoint(seed).update([value]);
}

/**
 * Throws BAD_INPUT (422 over HTTP, exit 2 in the CLI) with a one-line reason when LangGraph would refuse
 * `input` as the start of a run of `graph`; null or undefined (continue from the checkpoint) always passes.
 * What LangGraph accepts passes: message strings, {role, content}, {type, content}, serialized messages.
 */
export async function validateGraphInput(graph: RegisteredGraph, graphId: string, input: unknown, options: GraphInputOptions = {}): Promise<void> {
  if (input === null || input === undefined) return;
  const label = options.label ?? "input";
  const channels = graph.channels ?? {};
  const keys = stateKeys(channels);
  // A graph whose whole state is one value (`__root__`), or a functional-API entrypoint, takes any input.
  if (keys.length === 0 || "__root__" in channels) return;
  if (typeof input !== "object" || Array.isArray(input)) {
    throw new UserInputError("BAD_INPUT", `${label} of graph ${graphId} must be an object of its state keys (${keys.join(", ")}), got ${describeKind(input)}`);
  }
  const given = input as Record<string, unknown>;
  let parsed = given;
  const validating = graph as ValidatingGraph;
  if (typeof validating._validateInput === "function") {
    try {
      parsed = ((await validating._validateInput(input)) ?? input) as Record<string, unknown>;
    } catch (error) {
      throw new UserInputError("BAD_INPUT", `${label} of graph ${graphId}: ${firstLine(error)}`, { cause: error });
    }
  }
  let current: Record<string, unknown> | undefined | null = null;
  // Only the keys given: a schema's defaults for the others are not the caller's to answer for.
  for (const key of options.scope === "state" ? keys : inputKeys(validating, keys)) {
    const channel = channels[key];
    if (!(key in given) || !isChannel(channel)) continue;
    const value = key in parsed ? parsed[key] : given[key];
    try {
      dryRun(channel, value);
      continue;
    } catch (error) {
      if (current === null) current = await options.current?.().catch(() => undefined);
      if (current !== undefined && key in current) {
        try {
          dryRun(channel, value, current[key]);
          continue;
        } catch {
          // Refused on the thread's own state too: report the first failure.
        }
      }
      throw new UserInputError("BAD_INPUT", badMessage(channel, key, value, label) ?? `${label}.${key}: ${firstLine(error)}`, { cause: error });
    }
  }
}

/**
 * Throws BAD_INPUT when `input` has a key the graph does not take: LangGraph drops such keys without a word,
 * so a mistyped key would run without what was meant. `agentrt run --input` checks this; the HTTP API keeps
 * LangGraph's leniency. A graph whose state is one value, or that has no keys, takes anything.
 */
export function assertKnownInputKeys(graph: RegisteredGraph, graphId: string, input: unknown): void {
  const channels = graph.channels ?? {};
  const keys = stateKeys(channels);
  if (keys.length === 0 || "__root__" in channels || input === null || typeof input !== "object" || Array.isArray(input)) return;
  const known = inputKeys(graph, keys);
  const unknown = Object.keys(input).filter((key) => !known.includes(key));
  if (unknown.length === 0) return;
  const named = unknown.map((key) => JSON.stringify(key)).join(", ");
  throw new UserInputError("BAD_INPUT", `graph ${graphId} takes no input key ${named} (its input keys: ${known.join(", ")})`);
}

/**
 * {@link GraphInputOptions.current} for a run on `threadId`: its values read through `graph` (loaded from a
 * bound registry, so with the runtime's checkpointer); undefined when there is no thread to read.
 */
export function threadValues(graph: RegisteredGraph, threadId: string | undefined): GraphInputOptions["current"] {
  const reader = graph as RegisteredGraph & { getState?: (config: object) => Promise<{ values?: unknown }> };
  if (threadId === undefined || typeof reader.getState !== "function") return undefined;
  return async () => (await reader.getState?.({ configurable: { thread_id: threadId } }))?.values as Record<string, unknown> | undefined;
}
