/**
 * Threads: create, get, patch, search, delete, and their state and history
 * read from the SQLite checkpoints through the thread's graph.
 * @module
 */
import { Hono } from "hono";
import { UserInputError } from "../../errors.js";
import { isTerminal, type RunRecord } from "../../runs/index.js";
import { threadValues, validateGraphInput } from "../../runtime/index.js";
import { flagParam, intParam, readBody, type RouteDeps, type ServerEnv } from "../context.js";
import { newThreadId } from "../ids.js";
import type { Caller } from "../auth.js";
import type { RunService } from "../run-service.js";
import { HttpError } from "../http-error.js";
import { HistoryQuery, StateUpdate, ThreadCount, ThreadCreate, ThreadPatch, ThreadSearch } from "../schemas.js";
import { damagedState, damageOf, type StateDamage } from "../thread-damage.js";
import { newThreadMetadata, threadPatchMetadata } from "../thread-graph.js";
import { OWNER_KEY, ownThread, patchOwner, readableThreads, restricted, withOwner } from "../ownership.js";
import type { ThreadRow } from "../thread-store.js";
import { emptyState, stateToWire } from "../wire.js";

/** The API's thread status, from the thread's newest run. */
function threadStatus(last: RunRecord | undefined): "idle" | "busy" | "interrupted" | "error" {
  if (last === undefined) return "idle";
  if (last.status === "WAITING_APPROVAL" || last.status === "WAITING_INPUT") return "interrupted";
  if (!isTerminal(last.status)) return "busy";
  return last.status === "FAILED" || last.status === "EXPIRED" ? "error" : "idle";
}

/** The thread's current state as the API shows it; a damaged one (see thread-damage.ts) as such, never an error. */
async function currentState(service: RunService, threadId: string): Promise<{ state?: Record<string, unknown>; damage?: StateDamage }> {
  const graphId = await service.graphOfThread(threadId);
  if (graphId === undefined) return {};
  try {
    const snapshot = await service.states.state(graphId, threadId);
    return snapshot === undefined ? {} : { state: stateToWire(snapshot) };
  } catch (error) {
    return { damage: damageOf(threadId, error) };
  }
}

/** The newest run of each thread, read in one query however many threads there are. */
function latestRuns(service: RunService, threads: readonly ThreadRow[]): Promise<Map<string, RunRecord>> {
  return service.runtime.records.latestOfThreads(threads.map((t) => t.threadId));
}

/** A thread as the API shows it; `latest`: its newest run when the caller has read it (see latestRuns). */
async function threadToWire(service: RunService, thread: ThreadRow, withValues: boolean, known?: { latest: RunRecord | undefined }): Promise<Record<string, unknown>> {
  const latest = known === undefined ? (await latestRuns(service, [thread])).get(thread.threadId) : known.latest;
  const { state, damage } = withValues ? await currentState(service, thread.threadId) : {};
  // The thread row's or its newest run's last change (a state update made without a run is not counted).
  const updatedAt = new Date(Math.max(thread.updatedAt, latest?.updatedAt ?? 0)).toISOString();
  return {
    thread_id: thread.threadId,
    created_at: new Date(thread.createdAt).toISOString(),
    updated_at: updatedAt,
    state_updated_at: updatedAt,
    metadata: thread.metadata,
    status: threadStatus(latest),
    values: damage === undefined ? (state?.values ?? {}) : { __error__: damage },
    interrupts: state === undefined ? {} : Object.fromEntries((state.tasks as { id: string; interrupts: unknown[] }[]).filter((t) => t.interrupts.length > 0).map((t) => [t.id, t.interrupts])),
    ...(damage === undefined ? {} : { error: damage }),
  };
}

async function stateOf(service: RunService, caller: Caller, threadId: string, checkpointId?: string, subgraphs = false): Promise<Record<string, unknown>> {
  await ownThread(service, threadId, caller);
  const graphId = await service.graphOfThread(threadId);
  if (graphId === undefined) return emptyState();
  let snapshot;
  try {
    snapshot = await service.states.state(graphId, threadId, checkpointId, subgraphs);
  } catch (error) {
    return damagedState(service.states, threadId, damageOf(threadId, error), checkpointId);
  }
  if (snapshot === undefined && checkpointId !== undefined) throw new UserInputError("BAD_INPUT", `thread ${threadId} has no checkpoint ${checkpointId}`);
  return snapshot === undefined ? emptyState() : stateToWire(snapshot);
}

async function historyOf(service: RunService, caller: Caller, threadId: string, limit: number, before?: string, metadata?: Record<string, unknown>): Promise<unknown[]> {
  await ownThread(service, threadId, caller);
  const graphId = await service.graphOfThread(threadId);
  if (graphId === undefined) return [];
  try {
    return (await service.states.history(graphId, threadId, { limit, before, metadata })).map(stateToWire);
  } catch (error) {
    // Its newest checkpoint as stored, marked: the replay through the graph that failed is not tried per entry.
    return [await damagedState(service.states, threadId, damageOf(threadId, error))];
  }
}

/** Routes under /threads (runs excepted). */
export function threadRoutes(deps: RouteDeps): Hono<ServerEnv> {
  const app = new Hono<ServerEnv>();
  const { service } = deps;
  app.post("/threads", async (c) => {
    const body = await readBody(c, ThreadCreate);
    const thread = await service.threads.create(body.thread_id ?? newThreadId(), withOwner(newThreadMetadata(service, body.metadata), c.get("caller")), body.if_exists);
    // if_exists "do_nothing" answers with the thread there was: someone else's is not shown.
    if (body.if_exists === "do_nothing") await ownThread(service, thread.threadId, c.get("caller"));
    return c.json(await threadToWire(service, thread, false));
  });
  app.post("/threads/search", async (c) => {
    const body = await readBody(c, ThreadSearch);
    // Status and the last change come from each thread's runs (another module's table): filtering or sorting
    // by them is done here, over up to 1,000 threads.
    const computed = body.sort_by === "status" || body.sort_by === "updated_at" || body.sort_by === "state_updated_at" ? body.sort_by : undefined;
    // A caller who sees only its own threads gets its page from all of them, filtered here.
    const own = restricted(c.get("caller"));
    const inMemory = computed !== undefined || body.status !== undefined || own;
    const sortBy = body.sort_by === "thread_id" || body.sort_by === "created_at" ? body.sort_by : undefined;
    const rows = await service.threads.search({
      metadata: body.metadata, ids: body.ids ?? undefined, sortBy, sortOrder: body.sort_order ?? undefined,
      limit: own ? -1 : inMemory ? 1000 : body.limit, offset: inMemory ? 0 : body.offset,
    });
    const latest = await latestRuns(service, rows);
    const readable = readableThreads(rows, latest, c.get("caller"));
    const filtered = body.status === undefined ? readable : readable.filter((t) => threadStatus(latest.get(t.threadId)) === body.status);
    // Sorted here: every match is shown first; otherwise only the page is read (its values).
    const matching = inMemory && computed === undefined ? filtered.slice(body.offset, body.offset + body.limit) : filtered;
    let threads = await Promise.all(matching.map((t) => threadToWire(service, t, true, { latest: latest.get(t.threadId) })));
    if (computed !== undefined) {
      const sign = body.sort_order === "asc" ? 1 : -1;
      const key = computed === "status" ? "status" : "updated_at";
      threads = threads.sort((a, b) => sign * String(a[key]).localeCompare(String(b[key])));
    }
    return c.json(computed !== undefined ? threads.slice(body.offset, body.offset + body.limit) : threads);
  });
  app.post("/threads/count", async (c) => {
    const body = await readBody(c, ThreadCount);
    const all = await service.threads.search({ metadata: body.metadata, limit: -1, offset: 0 });
    const own = restricted(c.get("caller"));
    if (body.status === undefined && !own) return c.json(all.length);
    const latest = await latestRuns(service, all);
    const rows = readableThreads(all, latest, c.get("caller"));
    if (body.status === undefined) return c.json(rows.length);
    return c.json(rows.filter((t) => threadStatus(latest.get(t.threadId)) === body.status).length);
  });
  app.get("/threads/:tid", async (c) => c.json(await threadToWire(service, await ownThread(service, c.req.param("tid"), c.get("caller")), true)));
  app.patch("/threads/:tid", async (c) => {
    const body = await readBody(c, ThreadPatch);
    const threadId = c.req.param("tid");
    const thread = await ownThread(service, threadId, c.get("caller"));
    const metadata = patchOwner(thread, await threadPatchMetadata(service, threadId, body.metadata), c.get("caller"));
    return c.json(await threadToWire(service, await service.threads.patch(threadId, metadata), true));
  });
  app.delete("/threads/:tid", async (c) => {
    const threadId = c.req.param("tid");
    await ownThread(service, threadId, c.get("caller"));
    // Deleting cancels its unfinished runs: refused whole unless the caller may cancel each (cancel-authz.ts).
    const unfinished = await service.unfinishedRuns(threadId);
    await service.assertMayCancel(unfinished, c.get("caller"));
    for (const run of unfinished) await service.cancelUnlessFinished(run.runId, c.get("caller").id, "thread deleted");
    await service.states.deleteThread(threadId);
    await service.threads.delete(threadId);
    return c.body(null, 204);
  });
  app.post("/threads/:tid/copy", async (c) => {
    const source = await ownThread(service, c.req.param("tid"), c.get("caller"));
    // A waiting run's pending approval or question belongs to that run: a copy of it could never be answered.
    await service.assertNoUnfinishedRun(source.threadId, "copy it once that run has finished or been canceled");
    // The copy gets no runs: its graph must be named in its metadata, or its state could not be read.
    const graphId = await service.graphOfThread(source.threadId);
    const base = graphId === undefined ? source.metadata : { ...source.metadata, graph_id: graphId };
    // The copy is the copier's (an admin's copy of a user's thread is the admin's).
    const metadata = c.get("caller").authenticated ? { ...base, [OWNER_KEY]: c.get("caller").id } : base;
    const copy = await service.threads.copy(newThreadId(), metadata, (threadId) => service.states.copyThread(source.threadId, threadId));
    return c.json(await threadToWire(service, copy, true));
  });
  app.get("/threads/:tid/state", async (c) => c.json(await stateOf(service, c.get("caller"), c.req.param("tid"), undefined, flagParam(c.req.query("subgraphs")))));
  app.post("/threads/:tid/state", async (c) => {
    const threadId = c.req.param("tid");
    const body = await readBody(c, StateUpdate);
    await ownThread(service, threadId, c.get("caller"));
    const graphId = await service.graphOfThread(threadId);
    if (graphId === undefined) throw new HttpError(409, "THREAD_NOT_INTERRUPTED", `thread ${threadId} has never run; there is no state to update`);
    // A waiting or running run owns the thread's head: changing it under the run would orphan its approvals.
    await service.assertNoUnfinishedRun(threadId, "cancel it first");
    // A value its reducers refuse would be stored as the thread's newest write, unreadable from then on.
    const graph = await service.states.graph(graphId);
    await validateGraphInput(graph, graphId, body.values, { label: "values", scope: "state", current: threadValues(graph, threadId) });
    const checkpointId = body.checkpoint_id ?? body.checkpoint?.checkpoint_id ?? undefined;
    const configurable = await service.states.update(graphId, threadId, body.values ?? null, { asNode: body.as_node ?? undefined, checkpointId });
    const checkpoint = { thread_id: threadId, checkpoint_ns: configurable.checkpoint_ns ?? "", checkpoint_id: configurable.checkpoint_id };
    return c.json({ checkpoint, configurable: checkpoint });
  });
  app.get("/threads/:tid/state/:cid", async (c) => c.json(await stateOf(service, c.get("caller"), c.req.param("tid"), c.req.param("cid"), flagParam(c.req.query("subgraphs")))));
  app.post("/threads/:tid/state/checkpoint", async (c) => {
    const body = (await c.req.json().catch(() => ({}))) as { checkpoint?: { checkpoint_id?: string }; subgraphs?: unknown };
    return c.json(await stateOf(service, c.get("caller"), c.req.param("tid"), body.checkpoint?.checkpoint_id, flagParam(body.subgraphs)));
  });
  app.get("/threads/:tid/history", async (c) => {
    return c.json(await historyOf(service, c.get("caller"), c.req.param("tid"), intParam(c.req.query("limit"), 10), c.req.query("before")));
  });
  app.post("/threads/:tid/history", async (c) => {
    const body = await readBody(c, HistoryQuery);
    const before = typeof body.before === "string" ? body.before : body.before?.configurable.checkpoint_id;
    return c.json(await historyOf(service, c.get("caller"), c.req.param("tid"), body.limit, before, body.metadata ?? undefined));
  });
  return app;
}


