/**
 * The run viewer at /ui: one static page plus the locally bundled Mermaid
 * (no CDN), reading the /agentrt JSON routes, and the live feed it listens to.
 * @module
 */
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { Hono } from "hono";
import type { RouteDeps, ServerEnv } from "../context.js";
import { VIEWER_HTML } from "../ui-page.js";
import { uiEventRoutes } from "./ui-events.js";

let mermaidSource: string | undefined;

function mermaid(): string {
  mermaidSource ??= readFileSync(createRequire(import.meta.url).resolve("mermaid/dist/mermaid.min.js"), "utf8");
  return mermaidSource;
}

/** Routes of the viewer: its page, Mermaid, and its live feed. */
export function uiRoutes(deps: RouteDeps): Hono<ServerEnv> {
  const app = new Hono<ServerEnv>();
  app.route("/", uiEventRoutes(deps));
  app.get("/ui", (c) => c.html(VIEWER_HTML));
  app.get("/ui/", (c) => c.html(VIEWER_HTML));
  app.get("/ui/assets/mermaid.min.js", (c) => {
    c.header("Cache-Control", "public, max-age=3600");
    return c.body(mermaid(), 200, { "Content-Type": "text/javascript; charset=utf-8" });
  });
  return app;
}
