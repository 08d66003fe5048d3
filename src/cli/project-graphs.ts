/**
 * The project's graphs (langgraph.json in the working directory, or AGENTRT_CONFIG) for the commands that
 * have nothing to do without them (`graph`, `worker`): none is a one-line reason and exit 2, not silence.
 * @module
 */
import { existsSync } from "node:fs";
import { UserInputError } from "../errors.js";
// The registry itself, not the runtime's index (which brings LangGraph): it loads a graph only when asked.
import { GraphRegistry } from "../runtime/graph-registry.js";

/** The registry of langgraph.json; BAD_INPUT when there is no such file or it lists no graphs. */
export function projectGraphs(purpose: string): GraphRegistry {
  const registry = GraphRegistry.fromConfig(process.env.AGENTRT_CONFIG);
  if (registry.ids().length > 0) return registry;
  const why = existsSync(registry.configPath) ? "lists no graphs" : "does not exist (no langgraph.json here)";
  throw new UserInputError("BAD_INPUT", `${registry.configPath} ${why}: ${purpose} (run agentrt where your langgraph.json is, or set AGENTRT_CONFIG)`);
}
