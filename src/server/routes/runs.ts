/**
 * Runs: create in the background, stream over SSE, wait, join, get, list,
 * cancel — on a thread or stateless (a fresh thread per run).
 * @module
 */
import { Hono, type Context } from "hono";
import { isTerminal, type RunRecord } from "../../runs/index.js";
import type { Caller } from "../auth.js";
import { flagParam, intParam, readBody, type RouteDeps, type ServerEnv } from "../context.js";
import { HttpError } from "../http-error.js";
import { assertMayReadRun, assertMayRunOn, ownThread } from "../ownership.js";
import type { RestingRun } from "../run-waiters.js";
import { RunCreate, requestedModes, withIdempotencyKey } from "../schemas.js";
import { lastEventIdOf, streamRun } from "../sse.js";
import { damageOf } from "../thread-damage.js";
import { toWire } from "../../streams/value-wire.js";
import { runToWire } from "../wire.js";

/**
 * What `runs.wait` and `runs.join` return: the thread's values, with the interrupt or error if any. A run
 * that ran to its end answers with the final values its execution sent with the rest; others read the thread.
 */
async function finalValues(deps: RouteDeps, { run, values: sent }: RestingRun): Promise<Record<string, unknown>> {
  if (sent !== undefined && isTerminal(run.status)) return withError(run, toWire(sent) as Record<string, unknown>);
  let snapshot;
  try {
    snapshot = await deps.service.states.state(run.graphId, run.threadId);
  } catch (error) {
    // A state its graph cannot read back (a failed run's refused write): the run's own error says more.
    return withError(run, { __error__: damageOf(run.threadId, error) });
  }
  const values = (snapshot === undefined ? {} : toWire(snapshot.values)) as Record<string, unknown>;
  if ((run.status === "WAITING_APPROVAL" || run.status === "WAITING_INPUT") && snapshot !== undefined) {
    values.__interrupt__ = snapshot.tasks.filter((t) => t.result === undefined).flatMap((t) => t.interrupts.map((i) => ({ value: toWire(i.value), id: i.id })));
  }
  return withError(run, values);
}

function withError(run: RunRecord, values: Record<string, unknown>): Record<string, unknown> {
  if (run.status === "FAILED" || run.status === "EXPIRED") {
    values.__error__ = { error: run.errorCode ?? run.status, message: run.errorMessage ?? "" };
  }
  return values;
}

/**
 * Cancels the run when its streaming client disconnects (`on_disconnect: "cancel"`), if that client may cancel it
 * (checked again then: who may decide it can change); a run that finished meanwhile is left alone.
 */
function cancelOnDisconnect(deps: RouteDeps, run: RunRecord, caller: Caller): () => void {
  return () => {
    deps.service.cancelAs(run, caller, "its streaming client disconnected (on_disconnect cancel)").catch((error: unknown) => {
      deps.log(`run ${run.runId}: cancel on disconnect: ${error instanceof Error ? error.message : String(error)}`);
    });
  };
}

/** The run, if it is on the thread; with `caller`, only if the caller may read it (ownership.ts). */
async function runOfThread(deps: RouteDeps, threadId: string, runId: string, caller?: Caller): Promise<RunRecord> {
  const run = await deps.service.runtime.records.find(runId);
  if (run === undefined || run.threadId !== threadId) throw new HttpError(404, "UNKNOWN_RUN", `no run ${runId} on thread ${threadId}`);
  if (caller !== undefined) await assertMayReadRun(deps.service, run, caller);
  return run;
}

async function create(c: Context<ServerEnv>, deps: RouteDeps, mode: "background" | "stream" | "wait"): Promise<Response> {
  const body = withIdempotencyKey(await readBody(c, RunCreate), c.req.header("idempotency-key"));
  const modes = requestedModes(body);
  const threadId = c.req.param("tid");
  if (threadId !== undefined) await assertMayRunOn(deps.service, threadId, c.get("caller"), body.command?.resume !== undefined);
  // With the shared chunk log (PostgreSQL) a new streamed run may execute in any process; otherwise it executes here.
  // A background run created resumable is published from its first chunk too, for whoever joins it later, anywhere.
  const published = mode === "stream" || (mode === "background" && body.stream_resumable === true);
  const shared = published && deps.streams.crossProcess ? modes : undefined;
  const prepared = await deps.service.prepare(body, c.req.param("tid"), c.get("caller"), mode === "stream" ? "here" : "any", shared);
  const { run } = prepared;
  if (mode === "stream") {
    const cancel = body.on_disconnect === "cancel" ? cancelOnDisconnect(deps, run, c.get("caller")) : undefined;
    if (shared !== undefined && prepared.created) {
      // Every chunk from the first: a worker may have claimed the run (and published) before this stream listens.
      return streamRun(c, deps, run, modes, () => prepared.kick("any"), cancel, 0);
    }
    // Streamed here (the stream bus is this process's, or a resume held for it): an enqueued run is started here
    // once those before it rest, not left to the claim of whoever comes after its hold.
    const kick = async () => {
      for (const earlier of prepared.behind ?? []) await deps.service.waiters.waitResting(earlier);
      prepared.kick("here");
    };
    const start = () => void kick().catch((error: unknown) => deps.log(`run ${run.runId}: ${error instanceof Error ? error.message : String(error)}`));
    return streamRun(c, deps, run, modes, start, cancel);
  }
  prepared.kick();
  c.header("Content-Location", `/threads/${run.threadId}/runs/${run.runId}`);
  if (mode === "background") return c.json(runToWire(await deps.service.runtime.records.get(run.runId)));
  return c.json(await finalValues(deps, await settled(c, deps, run, body.on_disconnect === "cancel")));
}

/**
 * Waits for the run to rest; with `cancelOnDisconnect`, a client that goes away before then cancels it
 * (the request's signal aborts when the connection closes).
 */
async function settled(c: Context<ServerEnv>, deps: RouteDeps, run: RunRecord, cancelIfClientLeaves: boolean): Promise<RestingRun> {
  if (!cancelIfClientLeaves) return deps.service.waiters.waitSettled(run.runId);
  const signal = c.req.raw.signal;
  const cancel = cancelOnDisconnect(deps, run, c.get("caller"));
  signal.addEventListener("abort", cancel, { once: true });
  try {
    return await deps.service.waiters.waitSettled(run.runId, signal);
  } finally {
    signal.removeEventListener("abort", cancel);
  }
}

/** Routes of runs. */
export function runRoutes(deps: RouteDeps): Hono<ServerEnv> {
  const app = new Hono<ServerEnv>();
  const runs = deps.service.runtime.records;
  for (const prefix of ["/threads/:tid", ""]) {
    app.post(`${prefix}/runs`, (c) => create(c, deps, "background"));
    app.post(`${prefix}/runs/stream`, (c) => create(c, deps, "stream"));
    app.post(`${prefix}/runs/wait`, (c) => create(c, deps, "wait"));
  }
  app.get("/threads/:tid/runs", async (c) => {
    const threadId = c.req.param("tid");
    await ownThread(deps.service, threadId, c.get("caller"));
    const limit = intParam(c.req.query("limit"), 10);
    const offset = intParam(c.req.query("offset"), 0, 1_000_000);
    const status = c.req.query("status");
    const list = (await runs.list({ threadId })).reverse().map(runToWire).filter((r) => status === undefined || r.status === status);
    return c.json(list.slice(offset, offset + limit));
  });
  app.get("/threads/:tid/runs/:rid", async (c) => c.json(runToWire(await runOfThread(deps, c.req.param("tid"), c.req.param("rid"), c.get("caller")))));
  app.post("/threads/:tid/runs/:rid/cancel", async (c) => {
    const run = await runOfThread(deps, c.req.param("tid"), c.req.param("rid"));
    // A waiting run's approvers may cancel it (cancel-authz.ts); a finished one is only its owner's to touch.
    if (isTerminal(run.status)) await assertMayReadRun(deps.service, run, c.get("caller"));
    if (!isTerminal(run.status)) await deps.service.cancelAs(run, c.get("caller"), "canceled over the API");
    else deps.service.waiters.notify(run.runId);
    if (flagParam(c.req.query("wait"))) await deps.service.waiters.waitResting(run.runId);
    return c.body(null, 202);
  });
  app.get("/threads/:tid/runs/:rid/join", async (c) => {
    const run = await runOfThread(deps, c.req.param("tid"), c.req.param("rid"), c.get("caller"));
    const cancel = flagParam(c.req.query("cancel_on_disconnect"));
    // Refused up front: a caller who may not cancel the run must not be able to by hanging up.
    if (cancel) await deps.service.assertMayCancel([run], c.get("caller"));
    return c.json(await finalValues(deps, await settled(c, deps, run, cancel)));
  });
  app.get("/threads/:tid/runs/:rid/stream", async (c) => {
    const run = await runOfThread(deps, c.req.param("tid"), c.req.param("rid"), c.get("caller"));
    const modes = c.req.queries("stream_mode") ?? ["values"];
    const cancel = flagParam(c.req.query("cancel_on_disconnect"));
    if (cancel) await deps.service.assertMayCancel([run], c.get("caller"));
    return streamRun(c, deps, run, modes, undefined, cancel ? cancelOnDisconnect(deps, run, c.get("caller")) : undefined, lastEventIdOf(c));
  });
  return app;
}
