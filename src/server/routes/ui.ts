/**
 * The run viewer at /ui: one static page plus the locally bundled Mermaid
 * (no CDN), reading the /agentrt JSON routes, and the live feed it listens to;
 * and a run's status changes (`GET /agentrt/runs/{id}/events`), its event history.
 * @module
 */
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { Hono } from "hono";
import type { RunEvent } from "../../runs/index.js";
import type { RouteDeps, ServerEnv } from "../context.js";
import { assertMayReadRun } from "../ownership.js";
import { VIEWER_HTML } from "../ui-page.js";
import { uiEventRoutes } from "./ui-events.js";

/** A status change as the viewer lists it. */
function eventToWire(e: RunEvent): Record<string, unknown> {
  return { event_id: e.eventId, from: e.from, to: e.to, at: new Date(e.at).toISOString(), actor: e.actor, error_code: e.errorCode, reason: e.reason };
}

let mermaidSource: string | undefined;

function mermaid(): string {
  mermaidSource ??= readFileSync(createRequire(import.meta.url).resolve("mermaid/dist/mermaid.min.js"), "utf8");
  return mermaidSource;
}

/** Routes of the viewer: its page, Mermaid, its live feed and a run's events. */
export function uiRoutes(deps: RouteDeps): Hono<ServerEnv> {
  const app = new Hono<ServerEnv>();
  app.route("/", uiEventRoutes(deps));
  app.get("/agentrt/runs/:rid/events", async (c) => {
    const run = await deps.service.runtime.records.get(c.req.param("rid"));
    // Read as the run itself is: its owner, an approver it waits on, or admin.
    await assertMayReadRun(deps.service, run, c.get("caller"), true);
    return c.json((await deps.service.runtime.records.events(run.runId)).map(eventToWire));
  });
  app.get("/ui", (c) => c.html(VIEWER_HTML));
  app.get("/ui/", (c) => c.html(VIEWER_HTML));
  app.get("/ui/assets/mermaid.min.js", (c) => {
    c.header("Cache-Control", "public, max-age=3600");
    return c.body(mermaid(), 200, { "Content-Type": "text/javascript; charset=utf-8" });
  });
  return app;
}
