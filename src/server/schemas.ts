/**
 * zod schemas of the request bodies the server accepts. Unknown fields are
 * allowed (the SDK sends many optional ones); known fields are checked.
 * @module
 */
import { z } from "zod";
import type { RunGraphConfig } from "../runs/index.js";
import { HttpError } from "./http-error.js";

const metadata = z.record(z.string(), z.unknown());

// The most keys a metadata filter may name: each becomes a condition of the search's one statement.
const MAX_FILTER_KEYS = 100;

// A filter of 60,000 keys fits in a 1 MB body but is past what either backend's statement takes (500, not 422).
const metadataFilter = metadata.refine((filter) => Object.keys(filter).length <= MAX_FILTER_KEYS, {
  message: `a metadata filter may name at most ${MAX_FILTER_KEYS} keys`,
});

/** POST /assistants/search */
export const AssistantSearch = z.object({
  graph_id: z.string().optional(),
  name: z.string().optional(),
  metadata: metadataFilter.optional(),
  limit: z.number().int().min(1).max(1000).default(10),
  offset: z.number().int().min(0).default(0),
}).loose();

/** POST /threads */
export const ThreadCreate = z.object({
  thread_id: z.string().min(1).max(200).optional(),
  metadata: metadata.default({}),
  if_exists: z.enum(["raise", "do_nothing"]).default("raise"),
}).loose();

/** PATCH /threads/{thread_id} */
export const ThreadPatch = z.object({ metadata: metadata.default({}) }).loose();

/** POST /threads/search */
export const ThreadSearch = z.object({
  metadata: metadataFilter.optional(),
  ids: z.array(z.string()).max(1000).nullish(),
  status: z.enum(["idle", "busy", "interrupted", "error"]).optional(),
  // state_updated_at sorts like updated_at: the thread row's or its newest run's last change (see threadToWire).
  sort_by: z.enum(["thread_id", "status", "created_at", "updated_at", "state_updated_at"]).nullish(),
  sort_order: z.enum(["asc", "desc"]).nullish(),
  limit: z.number().int().min(1).max(1000).default(10),
  offset: z.number().int().min(0).default(0),
}).loose();

/** POST /threads/count */
export const ThreadCount = z.object({
  metadata: metadataFilter.optional(),
  status: z.enum(["idle", "busy", "interrupted", "error"]).optional(),
}).loose();

/** POST /threads/{thread_id}/history */
export const HistoryQuery = z.object({
  limit: z.number().int().min(1).max(1000).default(10),
  metadata: metadataFilter.nullish(),
  before: z.union([z.string(), z.object({ configurable: z.object({ checkpoint_id: z.string() }).loose() }).loose()]).nullish(),
}).loose();

/** POST /threads/{thread_id}/state: update the state, at an earlier checkpoint to fork. */
export const StateUpdate = z.object({
  values: z.unknown(),
  as_node: z.string().min(1).nullish(),
  checkpoint_id: z.string().min(1).nullish(),
  checkpoint: z.object({ checkpoint_id: z.string().min(1).nullish() }).loose().nullish(),
}).loose();

const streamModes = z.enum(["values", "updates", "messages", "messages-tuple", "custom", "debug", "events", "tasks", "checkpoints"]);

/** POST /runs, /runs/stream, /runs/wait and their /threads/{thread_id}/… forms. */
export const RunCreate = z.object({
  assistant_id: z.string().min(1),
  input: z.unknown().optional(),
  command: z.object({ resume: z.unknown().optional(), update: z.unknown().optional(), goto: z.unknown().optional() }).loose().nullish(),
  metadata: metadata.nullish(),
  /** `configurable` keys reach the graph (not the run's own ids: 422); `recursion_limit` is LangGraph's. */
  config: z.object({
    configurable: z.record(z.string(), z.unknown()).nullish(),
    recursion_limit: z.number().int().min(1).max(10_000).nullish(),
  }).loose().nullish(),
  stream_mode: z.union([streamModes, z.array(streamModes)]).nullish(),
  /**
   * LangGraph's: keep the run's chunks so a later join gets them from the first (Last-Event-ID -1). With the shared
   * chunk log (PostgreSQL) a background run asked for this is published from its first chunk wherever it executes.
   */
  stream_resumable: z.boolean().nullish(),
  if_not_exists: z.enum(["create", "reject"]).nullish(),
  multitask_strategy: z.enum(["reject", "interrupt", "rollback", "enqueue"]).nullish(),
  /**
   * agentrt extension: what new input does to the thread's run waiting for an answer — "supersede" (default, as
   * LangGraph's server: it is canceled, its pending actions not performed) or "reject" (409 THREAD_BUSY while it waits).
   */
  if_waiting: z.enum(["supersede", "reject"]).nullish(),
  checkpoint_id: z.string().nullish(),
  checkpoint: z.object({ checkpoint_id: z.string().nullish() }).loose().nullish(),
  // Breakpoints and delayed runs are refused when asked for, not silently ignored (see unsupportedOption).
  interrupt_before: z.union([z.literal("*"), z.array(z.string())]).nullish(),
  interrupt_after: z.union([z.literal("*"), z.array(z.string())]).nullish(),
  after_seconds: z.number().min(0).nullish(),
  on_disconnect: z.enum(["cancel", "continue"]).nullish(),
  /** agentrt extension: the run's budget `{ maxSteps, maxModelCalls, maxTokens, maxCostUsd, deadlineMs }` (checked at submit). */
  budget: z.unknown().optional(),
  /** agentrt extension, as the `Idempotency-Key` header: a retried create with it returns the first run (see withIdempotencyKey). */
  idempotency_key: z.string().nullish(),
}).loose();

/**
 * The body with the request's `Idempotency-Key` header (the IETF draft's name) as its `idempotency_key`; 422 when
 * both are given and differ.
 */
export function withIdempotencyKey<T extends { idempotency_key?: string | null }>(body: T, header: string | undefined): T {
  if (header === undefined) return body;
  if (body.idempotency_key != null && body.idempotency_key !== header) {
    throw new HttpError(422, "BAD_INPUT", "the Idempotency-Key header and the body's idempotency_key differ; send one of them");
  }
  return { ...body, idempotency_key: header };
}

/** One decision on a pending action, as the approvals endpoints take it. */
export const DecisionBody = z.object({
  action_id: z.string().min(1),
  args_hash: z.string().min(1),
  reason: z.string().max(2000).optional(),
  /** Ignored when the caller is authenticated: the identity comes from the key. */
  by: z.string().min(1).optional(),
  roles: z.array(z.string()).optional(),
  /** Approve with these arguments instead (an edit); only on /approve. */
  edited_args: z.record(z.string(), z.unknown()).optional(),
}).strict();

/** The stream modes a run body asks for. */
export function requestedModes(body: z.infer<typeof RunCreate>): string[] {
  const mode = body.stream_mode ?? "values";
  return Array.isArray(mode) ? mode : [mode];
}

/** One namespace label of the store API: the API joins labels with ".", so a label may not contain one. */
const storeLabel = z.string().min(1, "namespace labels cannot be empty").refine((label) => !label.includes("."), "namespace labels cannot contain '.'");
const storeNamespace = z.array(storeLabel).min(1, "namespace is required");

/** PUT /store/items (`ttl` in minutes, as in the Agent Server API). */
export const StorePutItem = z.object({
  namespace: storeNamespace,
  key: z.string().min(1),
  value: z.record(z.string(), z.unknown()),
  index: z.union([z.literal(false), z.array(z.string())]).nullish(),
  ttl: z.number().positive().nullish(),
}).loose();

/** DELETE /store/items */
export const StoreDeleteItem = z.object({ namespace: storeNamespace, key: z.string().min(1) }).loose();

/** POST /store/items/search */
export const StoreSearchItems = z.object({
  namespace_prefix: z.array(storeLabel).default([]),
  filter: z.record(z.string(), z.unknown()).nullish(),
  limit: z.number().int().min(1).max(1000).default(10),
  offset: z.number().int().min(0).default(0),
  query: z.string().nullish(),
}).loose();

/** POST /store/namespaces ("*" matches any one label in a prefix or suffix). */
export const StoreListNamespaces = z.object({
  prefix: z.array(storeLabel).nullish(),
  suffix: z.array(storeLabel).nullish(),
  max_depth: z.number().int().min(1).nullish(),
  limit: z.number().int().min(1).max(1000).default(100),
  offset: z.number().int().min(0).default(0),
}).loose();

/** A run body's `config` as the run stores it. */
export function graphConfigOf(config: z.infer<typeof RunCreate>["config"]): RunGraphConfig | undefined {
  if (config == null) return undefined;
  return {
    ...(config.configurable == null ? {} : { configurable: config.configurable }),
    ...(config.recursion_limit == null ? {} : { recursionLimit: config.recursion_limit }),
  };
}

/** The first option of a run body agentrt serve does not implement, as a one-line reason; undefined when none is asked for. */
export function unsupportedOption(body: z.infer<typeof RunCreate>): string | undefined {
  const breakpoints = (value: "*" | string[] | null | undefined) => value === "*" || (Array.isArray(value) && value.length > 0);
  if (breakpoints(body.interrupt_before) || breakpoints(body.interrupt_after)) {
    return "interrupt_before/interrupt_after (breakpoints) are not supported: pause with interrupt() in a node, or an approval";
  }
  if ((body.after_seconds ?? 0) > 0) return "after_seconds (delayed runs) is not supported";
  if (body.multitask_strategy === "rollback") return "multitask_strategy rollback is not supported: use interrupt (cancels the unfinished run) or enqueue";
  return undefined;
}
