import { UserInputError } from "../../errors.js";
import { GraphRegistry } from "../../runtime/index.js";
import type { Command } from "../command.js";

/** `agentrt graph <graph> --mermaid`: draws a graph listed in langgraph.json. */
export const graphCommand: Command = {
  name: "graph",
  summary: "Draw a graph from langgraph.json as Mermaid (or list the graphs)",
  usage: "agentrt graph [<graph>] [--mermaid] [--xray]",
  flags: { mermaid: { type: "boolean", default: false }, xray: { type: "boolean", default: false } },
  async run(ctx) {
    const [id, ...extra] = ctx.args;
    if (extra.length > 0) throw new UserInputError("BAD_INPUT", "usage: agentrt graph <graph> --mermaid");
    const registry = GraphRegistry.fromConfig(process.env.AGENTRT_CONFIG);
    if (id === undefined) {
      if (ctx.json) ctx.out(JSON.stringify({ graphs: registry.ids() }));
      else for (const graphId of registry.ids()) ctx.out(graphId);
      return 0;
    }
    const graph = await registry.load(id);
    const drawable = await graph.getGraphAsync({ xray: ctx.flags.xray === true });
    const mermaid = drawable.drawMermaid();
    ctx.out(ctx.json ? JSON.stringify({ graph: id, mermaid }) : mermaid);
    return 0;
  },
};
