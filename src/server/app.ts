/**
 * The HTTP application. In order: the Host check (421), the Origin check
 * (403) and CORS (preflights answered before auth), API-key auth, a body size
 * limit, JSON-only bodies (415) parsed and depth-checked once, the Agent
 * Server API routes, agentrt's own routes and the run viewer, and one place
 * where errors become responses.
 * @module
 */
import { Hono } from "hono";
import { bodyLimit } from "hono/body-limit";
import { packageVersion } from "../version.js";
import { authenticate, type ApiKey } from "./auth.js";
import type { RouteDeps, ServerEnv } from "./context.js";
import { hostGuard, hostPolicy, type HostPolicy } from "./host-check.js";
import { errorResponse, HttpError } from "./http-error.js";
import { jsonBodies } from "./json-body.js";
import { storableRequestText } from "./request-text.js";
import { corsFor, originGuard, originPolicy, type OriginPolicy } from "./origin-check.js";
import { approvalRoutes } from "./routes/approvals.js";
import { storeRoutes } from "./routes/store.js";
import { assistantRoutes } from "./routes/assistants.js";
import { runRoutes } from "./routes/runs.js";
import { threadRoutes } from "./routes/threads.js";
import { uiRoutes } from "./routes/ui.js";

/** Options of {@link createApp}. */
export interface AppOptions {
  /** Accepted API keys; empty means no auth. @default [] */
  keys?: readonly ApiKey[];
  /** Host names answered. @default the loopback names only */
  hosts?: HostPolicy;
  /** Web pages allowed to call. @default loopback pages and Studio */
  origins?: OriginPolicy;
  /** Largest accepted request body in bytes. @default 1048576 */
  maxBodyBytes?: number;
}

/** Paths served without a key: liveness and the viewer's static page (its data calls need the key). */
const OPEN_PATHS = /^\/(ok|ui(\/(assets\/.*)?)?)$/;

/** Builds the Hono app over the run service. */
export function createApp(deps: RouteDeps, options: AppOptions = {}): Hono<ServerEnv> {
  const keys = options.keys ?? [];
  const origins = options.origins ?? originPolicy(undefined);
  const app = new Hono<ServerEnv>();
  // Every path, /ui and /ok included: a page reached through DNS rebinding reads nothing.
  app.use("*", hostGuard(options.hosts ?? hostPolicy("127.0.0.1", undefined)));
  app.use("*", originGuard(origins));
  app.use("*", corsFor(origins));
  app.use("*", async (c, next) => {
    const caller = OPEN_PATHS.test(c.req.path) ? { id: "anonymous", roles: [], authenticated: false }
      : authenticate(keys, { apiKey: c.req.header("x-api-key"), authorization: c.req.header("authorization") });
    if (caller === undefined) throw new HttpError(401, "UNAUTHORIZED", "missing or wrong API key (send x-api-key or Authorization: Bearer)");
    c.set("caller", caller);
    await next();
  });
  app.use("*", bodyLimit({
    maxSize: options.maxBodyBytes ?? 1_048_576,
    onError: () => {
      throw new HttpError(413, "PAYLOAD_TOO_LARGE", `request body larger than ${options.maxBodyBytes ?? 1_048_576} bytes`);
    },
  }));
  app.use("*", storableRequestText());
  app.use("*", jsonBodies());
  app.get("/ok", (c) => c.json({ ok: true }));
  app.get("/info", (c) => c.json({ version: packageVersion(), langgraph_js_version: "1", flags: { assistants: true, crons: false, langsmith: false }, metadata: { server: "agentrt" } }));
  app.route("/", assistantRoutes(deps));
  app.route("/", threadRoutes(deps));
  app.route("/", runRoutes(deps));
  app.route("/", approvalRoutes(deps));
  app.route("/", storeRoutes(deps.service.runtime.store));
  app.route("/", uiRoutes(deps));
  app.notFound((c) => c.json({ error: "NOT_FOUND", code: "NOT_FOUND", message: `no route ${c.req.method} ${c.req.path}` }, 404));
  app.onError((error, c) => {
    const { status, body } = errorResponse(error);
    // A bug gets its stack; a known condition (a full disk: 507, 503) one line, or a full disk would flood the log.
    if (status === 500) deps.log(`${c.req.method} ${c.req.path}: ${error.stack ?? error.message}`);
    else if (status > 500) deps.log(`${c.req.method} ${c.req.path}: ${status} ${body.code}: ${body.message}`);
    // The rest of an oversized body is never read: a client reusing this connection would send its next
    // request into it, so it is closed after the answer.
    if (status === 413) c.header("Connection", "close");
    return c.json(body, status as 400);
  });
  return app;
}
