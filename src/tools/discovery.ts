/**
 * Tool discovery: with hundreds of tools, the model should see only the few
 * relevant to the request. A lexical index over name, description and tags
 * picks them; pinned tools are always offered.
 * @module
 */
import MiniSearch from "minisearch";
import type { AgentTool } from "./define-tool.js";

/** Options of {@link ToolIndex.select}. */
export interface ToolSelectOptions {
  /** Most tools to offer. */
  max: number;
  /** Tool names always offered (counted in `max` only if found by search too). @default [] */
  pinned?: readonly string[];
  /** Offer only tools carrying one of these tags. @default any tags */
  tags?: readonly string[];
  /** Tools the caller may see at all (e.g. not denied by policy); others are never offered, pinned or not. @default every tool */
  visible?: (tool: AgentTool) => boolean;
}

interface Doc {
  name: string;
  words: string;
  description: string;
  tags: string;
}

/** A search index over a set of tools. */
export class ToolIndex {
  readonly #tools: Map<string, AgentTool>;
  readonly #search: MiniSearch<Doc>;

  private constructor(tools: readonly AgentTool[]) {
    this.#tools = new Map(tools.map((t) => [t.name, t]));
    this.#search = new MiniSearch<Doc>({ idField: "name", fields: ["words", "description", "tags"] });
    this.#search.addAll(tools.map((t) => ({
      name: t.name, words: t.name.replace(/[_-]+/g, " "), description: t.description, tags: t.tags.join(" "),
    })));
  }

  /** Indexes `tools`. */
  static create(tools: readonly AgentTool[]): ToolIndex {
    return new ToolIndex(tools);
  }

  /** The tools most relevant to `query`, best first, pinned ones first of all. */
  select(query: string, options: ToolSelectOptions): AgentTool[] {
    const visible = options.visible ?? (() => true);
    const allowed = (t: AgentTool) => visible(t) && (!options.tags || t.tags.some((tag) => options.tags?.includes(tag)));
    const chosen = new Map<string, AgentTool>();
    for (const name of options.pinned ?? []) {
      const tool = this.#tools.get(name);
      if (tool && visible(tool)) chosen.set(name, tool);
    }
    const hits = this.#search.search(query, { prefix: true, fuzzy: 0.2, boost: { words: 2, tags: 1.5 } });
    for (const hit of hits) {
      if (chosen.size >= Math.max(options.max, options.pinned?.length ?? 0)) break;
      const tool = this.#tools.get(String(hit.id));
      if (tool && allowed(tool)) chosen.set(tool.name, tool);
    }
    return [...chosen.values()];
  }
}
