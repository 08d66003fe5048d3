/**
 * The set of tools one agent may call, by name.
 * @module
 */
import { toJsonSchema } from "@langchain/core/utils/json_schema";
import type { AgentTool } from "./define-tool.js";

/** An OpenAI-style function definition, the format every LangChain chat model's `bindTools` accepts. */
export interface ToolDefinition {
  type: "function";
  function: { name: string; description: string; parameters: Record<string, unknown> };
}

/** Tools by name; duplicate names are refused at construction. */
export class ToolRegistry {
  readonly #tools: Map<string, AgentTool>;

  private constructor(tools: Map<string, AgentTool>) {
    this.#tools = tools;
  }

  /** Builds a registry; throws TypeError on a duplicate tool name. */
  static create(tools: readonly AgentTool[]): ToolRegistry {
    const byName = new Map<string, AgentTool>();
    for (const tool of tools) {
      if (byName.has(tool.name)) throw new TypeError(`ToolRegistry: duplicate tool name "${tool.name}"`);
      byName.set(tool.name, tool);
    }
    return new ToolRegistry(byName);
  }

  /** The tool called `name`, or undefined. */
  get(name: string): AgentTool | undefined {
    return this.#tools.get(name);
  }

  /** True when a tool called `name` is registered. */
  has(name: string): boolean {
    return this.#tools.has(name);
  }

  /** Every tool, in registration order. */
  list(): AgentTool[] {
    return [...this.#tools.values()];
  }

  /** Names of every tool, in registration order. */
  names(): string[] {
    return [...this.#tools.keys()];
  }

  /** The definitions to pass to `model.bindTools`: all tools, or only those named. */
  definitions(names?: readonly string[]): ToolDefinition[] {
    const tools = names ? this.list().filter((t) => names.includes(t.name)) : this.list();
    return tools.map((tool) => ({
      type: "function",
      function: {
        name: tool.name,
        description: tool.description,
        parameters: toJsonSchema(tool.schema),
      },
    }));
  }
}
