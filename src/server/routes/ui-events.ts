/**
 * `GET /agentrt/events`: the viewer's live feed, Server-Sent Events. `ready` once, then `runs` with the
 * runs (as `/agentrt/runs` shows them) whose status or usage moved, from this process or any other
 * writing the same file; a comment every 15 s keeps proxies from closing an idle stream. Read-only.
 * @module
 */
import { Hono } from "hono";
import { streamSSE } from "hono/streaming";
import type { RunView } from "../../runtime/index.js";
import type { RouteDeps, ServerEnv } from "../context.js";
import { readableRuns } from "../ownership.js";
import { RunChanges } from "../ui/run-changes.js";

const KEEPALIVE_MS = 15_000;

/** The live feed route; one watcher shared by every open viewer of this app. */
export function uiEventRoutes(deps: RouteDeps): Hono<ServerEnv> {
  const app = new Hono<ServerEnv>();
  const runtime = deps.service.runtime;
  const changes = new RunChanges(runtime.records);
  app.get("/agentrt/events", (c) => streamSSE(c, async (stream) => {
    const queue: RunView[][] = [];
    let wake: (() => void) | undefined;
    let closed = false;
    const unsubscribe = changes.subscribe((changed) => {
      queue.push(changed);
      wake?.();
    });
    stream.onAbort(() => {
      closed = true;
      wake?.();
    });
    try {
      await stream.writeSSE({ event: "ready", data: "{}" });
      while (!closed) {
        const next = queue.shift();
        if (next !== undefined) {
          // Only the runs this caller may read (ownership.ts); a batch of none of them sends nothing.
          const visible = await readableRuns(deps.service, next, c.get("caller"));
          if (visible.length > 0) await stream.writeSSE({ event: "runs", data: JSON.stringify(visible) });
          continue;
        }
        const idle = await new Promise<boolean>((resolve) => {
          const timer = setTimeout(() => resolve(true), KEEPALIVE_MS);
          wake = () => {
            clearTimeout(timer);
            resolve(false);
          };
        });
        wake = undefined;
        if (idle && !closed) await stream.write(": keepalive\n\n");
      }
    } finally {
      unsubscribe();
    }
  }));
  return app;
}
