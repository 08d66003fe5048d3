/**
 * Assistants: one per graph of langgraph.json, with the graph drawn (xray),
 * its schemas and subgraphs, as Studio asks for them.
 * @module
 */
import { Hono } from "hono";
import type { z } from "zod";
import { stateKeys } from "../../runtime/index.js";
import { flagParam, readBody, type RouteDeps, type ServerEnv } from "../context.js";
import { assistantIdFor } from "../ids.js";
import { AssistantSearch } from "../schemas.js";

const STARTED_AT = new Date().toISOString();

/** The assistant object of a graph. */
export function assistantOf(graphId: string): Record<string, unknown> {
  return {
    assistant_id: assistantIdFor(graphId),
    graph_id: graphId,
    name: graphId,
    description: null,
    config: {},
    context: {},
    metadata: { created_by: "system" },
    version: 1,
    created_at: STARTED_AT,
    updated_at: STARTED_AT,
  };
}

interface DrawableGraph {
  toJSON(): { nodes: unknown[]; edges: unknown[] };
}

interface GraphWithChannels {
  getGraphAsync(config?: unknown): Promise<DrawableGraph>;
  getSubgraphsAsync?(namespace?: string, recurse?: boolean): AsyncIterable<[string, GraphWithChannels]>;
  builder?: { channels?: Record<string, unknown> };
  channels?: Record<string, unknown>;
}

/** A graph's schemas as the API shows them: its state keys (values are free-form). */
function schemasOf(title: string, graph: GraphWithChannels): Record<string, unknown> {
  const keys = stateKeys(graph.builder?.channels ?? graph.channels ?? {});
  const state = { type: "object", title, properties: Object.fromEntries(keys.map((k) => [k, {}])) };
  return { input_schema: state, output_schema: state, state_schema: state, config_schema: null, context_schema: null };
}

/** The subgraphs of a graph (below `namespace`; all levels with `recurse`), keyed by namespace, with their schemas. */
async function subgraphsOf(graph: GraphWithChannels, namespace: string | undefined, recurse: boolean): Promise<Record<string, unknown>> {
  const out: Record<string, unknown> = {};
  if (graph.getSubgraphsAsync === undefined) return out;
  for await (const [ns, subgraph] of graph.getSubgraphsAsync(namespace, recurse)) out[ns] = schemasOf(ns, subgraph);
  return out;
}

/** Routes under /assistants. */
export function assistantRoutes(deps: RouteDeps): Hono<ServerEnv> {
  const app = new Hono<ServerEnv>();
  const registry = deps.service.runtime.registry;
  /** The graph ids whose assistant matches a search body: graph id, a part of the name, metadata values. */
  const matching = (body: z.infer<typeof AssistantSearch>) => registry.ids().filter((id) => {
    if (body.graph_id !== undefined && id !== body.graph_id) return false;
    if (body.name !== undefined && !id.includes(body.name)) return false;
    const metadata = assistantOf(id).metadata as Record<string, unknown>;
    return Object.entries(body.metadata ?? {}).every(([key, value]) => JSON.stringify(metadata[key]) === JSON.stringify(value));
  });
  app.post("/assistants/search", async (c) => {
    const body = await readBody(c, AssistantSearch);
    return c.json(matching(body).slice(body.offset, body.offset + body.limit).map(assistantOf));
  });
  app.post("/assistants/count", async (c) => c.json(matching(await readBody(c, AssistantSearch)).length));
  app.get("/assistants/:id", (c) => c.json(assistantOf(deps.service.graphOf(c.req.param("id")))));
  app.get("/assistants/:id/graph", async (c) => {
    const graph = (await registry.load(deps.service.graphOf(c.req.param("id")))) as unknown as GraphWithChannels;
    const xray = c.req.query("xray");
    const depth = xray === undefined || xray === "false" ? undefined : xray === "true" ? true : Number(xray);
    const drawable = await graph.getGraphAsync(depth === undefined ? undefined : { xray: depth });
    return c.json(drawable.toJSON());
  });
  app.get("/assistants/:id/schemas", async (c) => {
    const graphId = deps.service.graphOf(c.req.param("id"));
    const graph = (await registry.load(graphId)) as unknown as GraphWithChannels;
    return c.json({ graph_id: graphId, ...schemasOf(graphId, graph) });
  });
  const subgraphs = async (id: string, namespace: string | undefined, recurse: string | undefined) => {
    const graph = (await registry.load(deps.service.graphOf(id))) as unknown as GraphWithChannels;
    return subgraphsOf(graph, namespace, flagParam(recurse));
  };
  app.get("/assistants/:id/subgraphs", async (c) => c.json(await subgraphs(c.req.param("id"), undefined, c.req.query("recurse"))));
  app.get("/assistants/:id/subgraphs/:ns", async (c) => c.json(await subgraphs(c.req.param("id"), c.req.param("ns"), c.req.query("recurse"))));
  return app;
}
