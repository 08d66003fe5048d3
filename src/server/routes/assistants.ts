/**
 * Assistants: one per graph of langgraph.json, with the graph drawn (xray),
 * its schemas and subgraphs, as Studio asks for them.
 * @module
 */
import { Hono } from "hono";
import { readBody, type RouteDeps, type ServerEnv } from "../context.js";
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
  builder?: { channels?: Record<string, unknown> };
  channels?: Record<string, unknown>;
}

/** Routes under /assistants. */
export function assistantRoutes(deps: RouteDeps): Hono<ServerEnv> {
  const app = new Hono<ServerEnv>();
  const registry = deps.service.runtime.registry;
  app.post("/assistants/search", async (c) => {
    const body = await readBody(c, AssistantSearch);
    const ids = registry.ids().filter((id) => (body.graph_id === undefined || id === body.graph_id) && (body.name === undefined || id.includes(body.name)));
    return c.json(ids.slice(body.offset, body.offset + body.limit).map(assistantOf));
  });
  app.post("/assistants/count", async (c) => {
    const body = await readBody(c, AssistantSearch);
    return c.json(registry.ids().filter((id) => body.graph_id === undefined || id === body.graph_id).length);
  });
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
    const keys = Object.keys(graph.builder?.channels ?? graph.channels ?? {}).filter((k) => !k.startsWith("__") && !k.startsWith("branch:"));
    const state = { type: "object", title: graphId, properties: Object.fromEntries(keys.map((k) => [k, {}])) };
    return c.json({ graph_id: graphId, input_schema: state, output_schema: state, state_schema: state, config_schema: null, context_schema: null });
  });
  app.get("/assistants/:id/subgraphs", (c) => {
    deps.service.graphOf(c.req.param("id"));
    return c.json({});
  });
  app.get("/assistants/:id/subgraphs/:ns", (c) => {
    deps.service.graphOf(c.req.param("id"));
    return c.json({});
  });
  return app;
}
