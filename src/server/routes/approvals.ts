/**
 * agentrt's own endpoints: runs as the CLI shows them, their pending
 * approvals with `action_id`/`args_hash`, approve/reject bound to the hash
 * (the decider is the authenticated caller), and a run's trace and graph
 * for the viewer.
 * @module
 */
import { Hono, type Context } from "hono";
import { RUN_STATUSES, type RunStatus } from "../../runs/index.js";
import { decisionInput, toRunView } from "../../runtime/index.js";
import { intParam, readBody, type RouteDeps, type ServerEnv } from "../context.js";
import { HttpError } from "../http-error.js";
import { assertMayReadRun, readableRuns, restricted } from "../ownership.js";
import { DecisionBody } from "../schemas.js";

/** Approve/reject over HTTP: the runtime's one decision path (the CLI's checks and codes), the caller as decider. */
async function decide(c: Context<ServerEnv>, deps: RouteDeps, kind: "approve" | "reject"): Promise<Response> {
  const body = await readBody(c, DecisionBody);
  const runId = c.req.param("rid") ?? "";
  const caller = c.get("caller");
  // The CLI's decision, built the same way (an edit on /reject is refused there); without auth the body may name
  // the decider, and the runtime defaults it to the run's user.
  const decision = decisionInput({
    actionId: body.action_id, argsHash: body.args_hash, reason: body.reason, editedArgs: body.edited_args,
    ...(caller.authenticated ? { by: caller.id, roles: caller.roles } : { by: body.by, roles: body.roles ?? [] }),
  }, kind);
  const prepared = await deps.service.decide(runId, [decision]);
  prepared.kick();
  const wait = c.req.query("wait") !== "false";
  const after = wait ? await deps.service.waiters.waitResting(runId) : await deps.service.runtime.records.get(runId);
  return c.json(toRunView(after));
}

/** Routes under /agentrt. */
export function approvalRoutes(deps: RouteDeps): Hono<ServerEnv> {
  const app = new Hono<ServerEnv>();
  const runtime = deps.service.runtime;
  app.get("/agentrt/runs", async (c) => {
    const status = c.req.query("status");
    if (status !== undefined && !(RUN_STATUSES as readonly string[]).includes(status)) {
      throw new HttpError(422, "BAD_INPUT", `unknown status ${status} (known: ${RUN_STATUSES.join(", ")})`);
    }
    const limit = intParam(c.req.query("limit"), 100);
    const caller = c.get("caller");
    // Read from the newest 1,000 when the caller sees only its own runs (and those it may decide), then cut.
    const listed = await runtime.list({ status: status as RunStatus | undefined, limit: restricted(caller) ? 1000 : limit });
    return c.json((await readableRuns(deps.service, listed, caller)).slice(0, limit));
  });
  app.get("/agentrt/runs/:rid", async (c) => {
    await assertMayReadRun(deps.service, await runtime.records.get(c.req.param("rid")), c.get("caller"), true);
    return c.json(await runtime.get(c.req.param("rid")));
  });
  app.get("/agentrt/runs/:rid/approvals", async (c) => {
    const run = await runtime.records.get(c.req.param("rid"));
    await assertMayReadRun(deps.service, run, c.get("caller"), true);
    if (run.status !== "WAITING_APPROVAL") return c.json([]);
    const pending = await deps.service.states.pending(run.graphId, run.threadId, run.userId);
    // `foreign` says which request of a foreign agent's interrupt an action is: internal, not part of the view.
    return c.json(pending.map(({ interrupt_id: _id, ...action }) => ({ ...action, foreign: undefined })));
  });
  app.post("/agentrt/runs/:rid/approve", (c) => decide(c, deps, "approve"));
  app.post("/agentrt/runs/:rid/reject", (c) => decide(c, deps, "reject"));
  app.get("/agentrt/runs/:rid/trace", async (c) => {
    const run = await runtime.records.get(c.req.param("rid"));
    await assertMayReadRun(deps.service, run, c.get("caller"));
    return c.json(await runtime.trace.spans(run.runId));
  });
  app.get("/agentrt/runs/:rid/graph", async (c) => {
    const run = await runtime.records.get(c.req.param("rid"));
    await assertMayReadRun(deps.service, run, c.get("caller"), true);
    const graph = await runtime.registry.load(run.graphId);
    const drawable = await graph.getGraphAsync();
    return c.json({ graph_id: run.graphId, mermaid: drawable.drawMermaid() });
  });
  return app;
}
