import { UserInputError } from "../../errors.js";
import type { Command } from "../command.js";
import { drawGraphAscii, type GraphShape } from "../graph-ascii.js";
import { projectGraphs } from "../project-graphs.js";

/** What `getGraphAsync()` returns that the drawing reads: LangGraph's drawable graph (nodes by id, edges). */
interface DrawableGraph {
  nodes: Record<string, unknown>;
  edges: { source: string; target: string; conditional?: boolean }[];
  drawMermaid(): string;
}

/** `agentrt graph <graph>`: draws a graph listed in langgraph.json in the terminal, or as Mermaid. */
export const graphCommand: Command = {
  name: "graph",
  summary: "Draw a graph from langgraph.json in the terminal (or as Mermaid), or list the graphs",
  usage: "agentrt graph [<graph>] [--mermaid] [--xray]",
  details: ["Without <graph>: the ids langgraph.json lists. With --json: { graph, mermaid } (or { graphs })."],
  flags: {
    mermaid: { type: "boolean", default: false, description: "Print Mermaid text (for GitHub, mermaid.live or docs) instead of drawing." },
    xray: { type: "boolean", default: false, description: "Draw subgraphs' nodes too, inside the nodes that run them." },
  },
  examples: ["agentrt graph", "agentrt graph ops_rollback", "agentrt graph ops_copilot --xray --mermaid > ops_copilot.mmd"],
  async run(ctx) {
    const [id, ...extra] = ctx.args;
    if (extra.length > 0) throw new UserInputError("BAD_INPUT", "usage: agentrt graph [<graph>] [--mermaid]");
    // Outside a project there is nothing to draw or list: say why rather than print nothing.
    const registry = projectGraphs("agentrt graph draws the graphs it lists");
    if (id === undefined) {
      if (ctx.json) ctx.out(JSON.stringify({ graphs: registry.ids() }));
      else for (const graphId of registry.ids()) ctx.out(graphId);
      return 0;
    }
    const graph = await registry.load(id);
    const drawable = (await graph.getGraphAsync({ xray: ctx.flags.xray === true })) as unknown as DrawableGraph;
    const mermaid = drawable.drawMermaid();
    if (ctx.json) ctx.out(JSON.stringify({ graph: id, mermaid }));
    else if (ctx.flags.mermaid === true) ctx.out(mermaid);
    else ctx.out(`graph ${id}\n\n${drawGraphAscii(shapeOf(drawable))}`);
    return 0;
  },
};

function shapeOf(drawable: DrawableGraph): GraphShape {
  return {
    nodes: Object.keys(drawable.nodes),
    edges: drawable.edges.map((e) => ({ source: e.source, target: e.target, conditional: e.conditional === true })),
  };
}
