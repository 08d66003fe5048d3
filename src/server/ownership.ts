/**
 * Who may act on what, with keys that name users: a thread, its runs and the store namespace
 * `["users", <user>, …]` belong to their owner. Only the owner, a caller with role `admin`, or — to decide a run's
 * pending actions (and read the run to do so) — an approver the policy names may read, answer, change or delete
 * them. A refusal is 403 NOT_OWNER, on every route alike; lists and searches leave out what the caller may not read.
 * Without keys (anonymous local use) everyone may do everything, as before.
 * @module
 */
import { isApproverAllowed } from "../policy/policy.js";
import type { RunRecord } from "../runs/index.js";
import type { RunView } from "../runtime/index.js";
import type { Caller } from "./auth.js";
import { ADMIN_ROLE } from "./cancel-authz.js";
import { HttpError } from "./http-error.js";
import type { RunService } from "./run-service.js";
import type { ThreadRow } from "./thread-store.js";

/** The thread metadata key naming its owner, set by the server from the key that created the thread. */
export const OWNER_KEY = "owner";

/** The first label of the store namespaces that belong to a user: `["users", <user>, …]`. */
export const USERS_NAMESPACE = "users";

/** The user a run is stored with when no key named one: owns nothing. */
const NOBODY = "anonymous";

/** True when the caller may act only on what it owns: one a key names, without role admin. */
export function restricted(caller: Caller): boolean {
  return caller.authenticated && !caller.roles.includes(ADMIN_ROLE);
}

/**
 * Who owns a thread: its metadata's `owner`; for a thread stored without one (made before owners were recorded, or
 * without keys) the user of its newest run. Undefined: nobody's, and anyone may act on it as before.
 */
export function threadOwner(thread: ThreadRow | undefined, newest: RunRecord | undefined): string | undefined {
  const owner = thread?.metadata[OWNER_KEY];
  if (typeof owner === "string") return owner;
  return newest === undefined || newest.userId === NOBODY ? undefined : newest.userId;
}

/** True when `caller` may act on what `owner` owns. */
function mayActAs(owner: string | undefined, caller: Caller): boolean {
  return !restricted(caller) || owner === undefined || owner === caller.id;
}

/** The 403 refusing `caller` anything on `what`, which belongs to `owner`. */
export function notOwner(caller: Caller, what: string, owner: string | undefined): HttpError {
  return new HttpError(403, "NOT_OWNER", `${caller.id} may not act on ${what}: it belongs to ${owner ?? "another user"}; only its owner or role ${ADMIN_ROLE} may`, {
    details: { by: caller.id, owner: owner ?? null },
  });
}

/** The owners of threads, read in two queries however many there are. */
async function ownersOf(service: RunService, threadIds: readonly string[]): Promise<Map<string, string | undefined>> {
  const ids = [...new Set(threadIds)];
  const rows = ids.length === 0 ? [] : await service.threads.search({ ids, limit: -1, offset: 0 });
  const byId = new Map(rows.map((row) => [row.threadId, row]));
  const unnamed = ids.filter((id) => typeof byId.get(id)?.metadata[OWNER_KEY] !== "string");
  const latest = unnamed.length === 0 ? new Map<string, RunRecord>() : await service.runtime.records.latestOfThreads(unnamed);
  return new Map(ids.map((id) => [id, threadOwner(byId.get(id), latest.get(id))]));
}

/** The thread `threadId` if `caller` may act on it: 404 UNKNOWN_THREAD when there is none, 403 NOT_OWNER. */
export async function ownThread(service: RunService, threadId: string, caller: Caller): Promise<ThreadRow> {
  const thread = await service.threads.get(threadId);
  if (!restricted(caller)) return thread;
  // The newest run is read only for a thread stored without an owner.
  const named = thread.metadata[OWNER_KEY];
  const owner = typeof named === "string" ? named : threadOwner(thread, (await service.runtime.records.latestOfThreads([threadId])).get(threadId));
  if (!mayActAs(owner, caller)) throw notOwner(caller, `thread ${threadId}`, owner);
  return thread;
}

/**
 * 403 NOT_OWNER unless `caller` may start a run on thread `threadId` (one that does not exist yet will be the
 * caller's). A resume of a run waiting for approval is let through to the runtime, which checks each decision's
 * approver; answering a question (WAITING_INPUT) is the owner's (see {@link assertMayAnswer}).
 */
export async function assertMayRunOn(service: RunService, threadId: string, caller: Caller, resume: boolean): Promise<void> {
  if (!restricted(caller) || (await service.threads.find(threadId)) === undefined) return;
  try {
    await ownThread(service, threadId, caller);
  } catch (error) {
    if (resume && (await service.unfinishedRuns(threadId)).some((run) => run.status === "WAITING_APPROVAL")) return;
    throw error;
  }
}

/** 403 NOT_OWNER unless `caller` may answer the question `run` asks: its thread's owner or an admin. */
export async function assertMayAnswer(service: RunService, run: RunRecord, caller: Caller): Promise<void> {
  if (restricted(caller)) await ownThread(service, run.threadId, caller);
}

/** The facts about a run its readers are judged by, from a stored run or its view. */
interface RunFacts {
  user: string;
  threadId: string;
  status: string;
  pending: unknown;
}

function factsOf(run: RunRecord | RunView): RunFacts {
  return "runId" in run
    ? { user: run.userId, threadId: run.threadId, status: run.status, pending: run.pending }
    : { user: run.user, threadId: run.thread_id, status: run.status, pending: run.pending };
}

/** True when `caller` is an approver the policy names for one of the pending actions of a run waiting for approval. */
function approverOf(run: RunFacts, caller: Caller): boolean {
  if (run.status !== "WAITING_APPROVAL" || !Array.isArray(run.pending)) return false;
  return (run.pending as { approvers?: unknown }[]).some((action) =>
    Array.isArray(action.approvers) && isApproverAllowed(action.approvers as string[], { by: caller.id, roles: caller.roles }));
}

function mayReadWith(run: RunFacts, owner: string | undefined, caller: Caller, forDecision: boolean): boolean {
  return run.user === caller.id || mayActAs(owner ?? (run.user === NOBODY ? undefined : run.user), caller) || (forDecision && approverOf(run, caller));
}

/**
 * 403 NOT_OWNER unless `caller` may read `run`: its thread's owner, the user who started it, an admin, or with
 * `forDecision` (its view and pending approvals) an approver of one of its pending actions.
 */
export async function assertMayReadRun(service: RunService, run: RunRecord, caller: Caller, forDecision = false): Promise<void> {
  if (!restricted(caller)) return;
  const owner = (await ownersOf(service, [run.threadId])).get(run.threadId);
  if (!mayReadWith(factsOf(run), owner, caller, forDecision)) throw notOwner(caller, `run ${run.runId}`, owner ?? run.userId);
}

/** The runs of `runs` that `caller` may read (as {@link assertMayReadRun} with `forDecision`), in order. */
export async function readableRuns<R extends RunRecord | RunView>(service: RunService, runs: readonly R[], caller: Caller): Promise<R[]> {
  if (!restricted(caller) || runs.length === 0) return [...runs];
  const facts = runs.map(factsOf);
  const owners = await ownersOf(service, facts.map((f) => f.threadId));
  return runs.filter((_, i) => mayReadWith(facts[i]!, owners.get(facts[i]!.threadId), caller, true));
}

/** The threads of `rows` that `caller` may read; `latest`: each one's newest run, as the routes read them. */
export function readableThreads(rows: readonly ThreadRow[], latest: ReadonlyMap<string, RunRecord>, caller: Caller): ThreadRow[] {
  if (!restricted(caller)) return [...rows];
  return rows.filter((row) => mayActAs(threadOwner(row, latest.get(row.threadId)), caller));
}

/**
 * The metadata a thread is created with: its `owner` is the caller (an admin may name another user); another
 * owner is a 422 and nothing is stored. Without keys `owner` is a key like any other.
 */
export function withOwner(metadata: Record<string, unknown>, caller: Caller): Record<string, unknown> {
  if (!caller.authenticated) return metadata;
  const given = metadata[OWNER_KEY];
  if (given === undefined || given === caller.id) return { ...metadata, [OWNER_KEY]: caller.id };
  if (!restricted(caller) && typeof given === "string" && given !== "") return metadata;
  throw new HttpError(422, "BAD_INPUT", `metadata.${OWNER_KEY} is the server's: a thread belongs to the caller who creates it (${caller.id}), not ${JSON.stringify(given)}`);
}

/** The keys a PATCH by `caller` may merge: its `owner` only unchanged, or set by an admin; otherwise 422. */
export function patchOwner(thread: ThreadRow, metadata: Record<string, unknown>, caller: Caller): Record<string, unknown> {
  if (!caller.authenticated || !(OWNER_KEY in metadata)) return metadata;
  const given = metadata[OWNER_KEY];
  if (given === thread.metadata[OWNER_KEY] || (!restricted(caller) && typeof given === "string" && given !== "")) return metadata;
  throw new HttpError(422, "BAD_INPUT", `thread ${thread.threadId}: metadata.${OWNER_KEY} is the server's and only role ${ADMIN_ROLE} may change it`);
}

/** The user a store namespace belongs to: the second label of `["users", <user>, …]`; undefined for any other. */
export function namespaceOwner(namespace: readonly string[]): string | undefined {
  return namespace[0] === USERS_NAMESPACE ? namespace[1] : undefined;
}

/** True when `caller` may read and write items in `namespace` (or list it). */
export function mayUseNamespace(namespace: readonly string[], caller: Caller): boolean {
  const owner = namespaceOwner(namespace);
  return owner === undefined || !restricted(caller) || owner === caller.id;
}

/** What a store search or listing by `caller` keeps: undefined (everything) unless the caller sees only its own. */
export function namespaceFilter(caller: Caller): ((namespace: readonly string[]) => boolean) | undefined {
  return restricted(caller) ? (namespace) => mayUseNamespace(namespace, caller) : undefined;
}

/** 403 NOT_OWNER unless `caller` may use store namespace `namespace` (or search under it as a prefix). */
export function assertMayUseNamespace(namespace: readonly string[], caller: Caller): void {
  // A "*" label (a listing's wildcard) reaches every user's: what it lists is filtered instead.
  if (namespaceOwner(namespace) === "*") return;
  if (!mayUseNamespace(namespace, caller)) throw notOwner(caller, `store namespace ${namespace.join(".")}`, namespaceOwner(namespace));
}

/**
 * Page `offset`/`limit` of what `fetch` lists, counting only what `visible` keeps (all when undefined): read in chunks
 * from the start, so a caller's page is never short or shifted by items of others it may not see.
 */
export async function visiblePage<T>(
  fetch: (offset: number, limit: number) => Promise<T[]>, visible: ((item: T) => boolean) | undefined, offset: number, limit: number,
): Promise<T[]> {
  if (visible === undefined) return fetch(offset, limit);
  const chunk = Math.max(100, 2 * (offset + limit));
  const kept: T[] = [];
  for (let at = 0; kept.length < offset + limit; at += chunk) {
    const page = await fetch(at, chunk);
    kept.push(...page.filter(visible));
    if (page.length < chunk) break;
  }
  return kept.slice(offset, offset + limit);
}
