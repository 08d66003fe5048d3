import { existsSync, readFileSync } from "node:fs";
import { dirname, extname, isAbsolute, join, resolve } from "node:path";
import { pathToFileURL } from "node:url";
import { z } from "zod";
import { UserInputError } from "../errors.js";
import { compiledGraphOf } from "./foreign-graph.js";

/** The subset of a compiled LangGraph graph the runtime relies on. */
export interface RegisteredGraph {
  /** Set by the runtime: graphs listed in langgraph.json must not bring their own. */
  checkpointer?: unknown;
  store?: unknown;
  getGraphAsync(config?: unknown): Promise<{ drawMermaid(options?: unknown): string }>;
  /** Its state channels by name (a compiled graph's `channels`). */
  channels?: Record<string, unknown>;
  withConfig(config: object): RegisteredGraph;
}

/** The state keys of a graph's channels, without LangGraph's internal ones (`__start__`, `branch:…`). */
export function stateKeys(channels: Record<string, unknown>): string[] {
  return Object.keys(channels).filter((k) => !k.startsWith("__") && !k.startsWith("branch:"));
}

/** What a runtime attaches to the graphs it loads. */
export interface GraphBinding {
  checkpointer?: unknown;
  store?: unknown;
}

const LangGraphConfig = z.object({
  graphs: z.record(z.string(), z.union([z.string(), z.object({ path: z.string() }).loose()])),
});

/** One `graphs` entry of langgraph.json: `./graphs/x.ts:graph`. */
export interface GraphEntry {
  id: string;
  file: string;
  exportName: string;
}

/**
 * Finds and loads the graphs named in a `langgraph.json`, exactly as the
 * LangGraph CLI reads the file, so Studio and agentrt see the same graphs.
 */
export class GraphRegistry {
  readonly configPath: string;
  readonly entries: ReadonlyMap<string, GraphEntry>;
  private readonly loaded = new Map<string, Promise<RegisteredGraph>>();
  private binding: GraphBinding = {};

  private constructor(configPath: string, entries: Map<string, GraphEntry>, private readonly found = true) {
    this.configPath = configPath;
    this.entries = entries;
  }

  /** Reads `langgraph.json` (default: the one in the working directory). */
  static fromConfig(configPath = resolve("langgraph.json")): GraphRegistry {
    // Commands that only read runs (status, runs, cancel) work anywhere; loading a graph then names the missing file.
    if (!existsSync(configPath)) return new GraphRegistry(configPath, new Map(), false);
    let parsed: z.infer<typeof LangGraphConfig>;
    try {
      parsed = LangGraphConfig.parse(JSON.parse(readFileSync(configPath, "utf8")));
    } catch (error) {
      throw new UserInputError("BAD_INPUT", `${configPath}: not a valid langgraph.json (${(error as Error).message.split("\n")[0]})`, { cause: error });
    }
    const base = dirname(configPath);
    const entries = new Map<string, GraphEntry>();
    for (const [id, spec] of Object.entries(parsed.graphs)) {
      const ref = typeof spec === "string" ? spec : spec.path;
      const colon = ref.lastIndexOf(":");
      const file = colon > 1 ? ref.slice(0, colon) : ref;
      const exportName = colon > 1 ? ref.slice(colon + 1) : "graph";
      entries.set(id, { id, file: isAbsolute(file) ? file : join(base, file), exportName });
    }
    return new GraphRegistry(configPath, entries, true);
  }

  /**
   * Sets the checkpointer and store of every graph this registry hands out. Each registry gets
   * its own copy of a module's graph, so two runtimes in one process never share persistence.
   */
  bind(binding: GraphBinding): this {
    this.binding = binding;
    this.loaded.clear();
    return this;
  }

  /** Graph ids in file order. */
  ids(): string[] {
    return [...this.entries.keys()];
  }

  /** Loads a graph by id; throws UNKNOWN_GRAPH (exit 2) for an id the file does not list. */
  async load(id: string): Promise<RegisteredGraph> {
    const entry = this.entries.get(id);
    if (!this.found) {
      throw new UserInputError("BAD_INPUT", `${this.configPath}: no langgraph.json (the file that lists the graphs)`);
    }
    if (entry === undefined) {
      throw new UserInputError("UNKNOWN_GRAPH", `unknown graph "${id}" (known: ${this.ids().join(", ") || "none"})`);
    }
    let pending = this.loaded.get(id);
    if (pending === undefined) {
      const binding = this.binding;
      pending = importGraph(entry).then((graph) => {
        // withConfig copies the compiled graph; the module's own instance stays untouched.
        const bound = graph.withConfig({});
        if (binding.checkpointer !== undefined) bound.checkpointer = binding.checkpointer;
        if (binding.store !== undefined) bound.store = binding.store;
        return bound;
      });
      this.loaded.set(id, pending);
    }
    return pending;
  }
}

async function importGraph(entry: GraphEntry): Promise<RegisteredGraph> {
  const file = runnableFile(entry.file);
  let module: Record<string, unknown>;
  try {
    module = (await import(pathToFileURL(file).href)) as Record<string, unknown>;
  } catch (error) {
    throw loadFailure(entry, file, error);
  }
  let graph = module[entry.exportName];
  // langgraph.json may also name a factory; LangGraph's CLI accepts both.
  if (typeof graph === "function") graph = await (graph as () => unknown)();
  graph = compiledGraphOf(graph);
  if (graph === null || typeof graph !== "object" || typeof (graph as RegisteredGraph).getGraphAsync !== "function" || typeof (graph as RegisteredGraph).withConfig !== "function") {
    throw new UserInputError("BAD_INPUT", `${entry.file}: export "${entry.exportName}" of graph ${entry.id} is not a compiled LangGraph graph`);
  }
  return graph as RegisteredGraph;
}

/** Why a graph's module did not load, in one line that says what to do. */
function loadFailure(entry: GraphEntry, file: string, error: unknown): UserInputError {
  const code = (error as { code?: unknown }).code;
  const message = (error instanceof Error ? error.message : String(error)).split("\n")[0] ?? "";
  const why = code === "ERR_UNKNOWN_FILE_EXTENSION" && extname(file) === ".ts"
    ? "a TypeScript file needs a loader: run agentrt under tsx (npx tsx node_modules/agentrt/dist/src/cli/bin.js …) or point langgraph.json at the compiled .js"
    : code === "ERR_MODULE_NOT_FOUND" && !existsSync(file) ? "no such file" : message;
  return new UserInputError("GRAPH_LOAD_FAILED", `graph ${entry.id}: cannot load ${entry.file}: ${why}`, { cause: error });
}

/** Under plain node a `.ts` entry cannot be imported; use its compiled twin in dist/ when there is one. */
function runnableFile(file: string): string {
  if (extname(file) !== ".ts" || process.execArgv.some((a) => a.includes("tsx")) || isTsLoaderActive()) return file;
  const root = dirname(dirname(file));
  const compiled = join(root, "dist", file.slice(root.length + 1).replace(/\.ts$/, ".js"));
  return existsSync(compiled) ? compiled : file;
}

function isTsLoaderActive(): boolean {
  // tsx registers itself through --import; vitest transforms .ts itself.
  return process.env.VITEST !== undefined || (process.env.NODE_OPTIONS ?? "").includes("tsx");
}
