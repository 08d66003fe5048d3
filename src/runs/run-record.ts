/**
 * The shape of a run as the rest of agentrt sees it, and the parsing of rows
 * read back from the `runs` table.
 * @module
 */
import type { RunGraphConfig } from "./graph-config.js";
import { z } from "zod";
import { StorageError } from "../errors.js";
import { RUN_STATUSES, type RunStatus } from "./lifecycle.js";
import { decodeDocuments } from "./stored-documents.js";

/** Counters of what a run has consumed so far. */
export interface RunUsage {
  steps: number;
  modelCalls: number;
  tokens: number;
  costUsd: number;
}

/** Limits a run must stay within; absent fields are unlimited. */
export interface RunBudget {
  maxSteps?: number;
  maxModelCalls?: number;
  maxTokens?: number;
  maxCostUsd?: number;
  /** Wall-clock milliseconds from the run's first start (waits included); checked before each model call and tool attempt. */
  deadlineMs?: number;
}

/** The lease a worker holds on a RUNNING run. */
export interface RunLeaseInfo {
  owner: string;
  expiresAt: number;
}

/** One run, as stored. Times are epoch milliseconds; absent values are null. */
export interface RunRecord {
  runId: string;
  threadId: string;
  graphId: string;
  userId: string;
  status: RunStatus;
  /** Higher runs first. */
  priority: number;
  /** How many times a worker has claimed the run. */
  attempts: number;
  /** After this many claims a lost lease fails the run instead of retrying it. */
  maxAttempts: number;
  deadlineAt: number | null;
  /** How long an approval or input wait may last before the run is EXPIRED; null waits forever. */
  waitTtlMs: number | null;
  /** When the current wait expires (epoch ms); set only while the run is WAITING_*. */
  waitExpiresAt: number | null;
  /** A QUEUED/RETRYING run is not claimed before this time. */
  availableAt: number;
  usage: RunUsage;
  budget: RunBudget;
  /** Present exactly while the run is RUNNING. */
  lease: RunLeaseInfo | null;
  /** Incremented on every claim; fenced writes must quote the current value. */
  fencingToken: number;
  errorCode: string | null;
  errorMessage: string | null;
  input: unknown;
  result: unknown;
  /** What a waiting run waits for (pending approvals, the question asked). */
  pending: unknown;
  /** What a resumed run resumes with (the approval decision, the user's input). */
  resume: unknown;
  metadata: Record<string, unknown>;
  /** What the graph is invoked with besides the run's own ids; null when none was given. */
  config: RunGraphConfig | null;
  createdAt: number;
  updatedAt: number;
  startedAt: number | null;
  finishedAt: number | null;
}

/** One status change in the append-only `run_events` log. */
export interface RunEvent {
  eventId: number;
  runId: string;
  from: RunStatus | null;
  to: RunStatus;
  at: number;
  /** The worker (or other actor) that made the change, if known. */
  actor: string | null;
  fencingToken: number | null;
  errorCode: string | null;
  reason: string | null;
}

const status = z.enum(RUN_STATUSES);
const int = z.number().int();
const nullableInt = int.nullable();
const nullableText = z.string().nullable();

const runRow = z.object({
  run_id: z.string(),
  thread_id: z.string(),
  graph_id: z.string(),
  user_id: z.string(),
  status,
  priority: int,
  attempts: int,
  max_attempts: int,
  deadline_at: nullableInt,
  available_at: int,
  steps: int,
  model_calls: int,
  tokens: int,
  cost_usd: z.number(),
  budget_json: z.string(),
  lease_owner: nullableText,
  lease_expires_at: nullableInt,
  fencing_token: int,
  error_code: nullableText,
  error_message: nullableText,
  input_json: nullableText,
  result_json: nullableText,
  pending_json: nullableText,
  resume_json: nullableText,
  metadata_json: z.string(),
  created_at: int,
  updated_at: int,
  started_at: nullableInt,
  finished_at: nullableInt,
  // Added by runs schema v2; absent in rows selected from an older file.
  wait_ttl_ms: nullableInt.optional(),
  wait_expires_at: nullableInt.optional(),
  // Added by runs schema v3.
  config_json: nullableText.optional(),
});

const eventRow = z.object({
  event_id: int,
  run_id: z.string(),
  from_status: status.nullable(),
  to_status: status,
  at: int,
  actor: nullableText,
  fencing_token: nullableInt,
  error_code: nullableText,
  reason: nullableText,
});

/** JSON text for a column; `undefined` is stored as NULL. */
export function toJson(value: unknown): string | null {
  return value === undefined ? null : JSON.stringify(value);
}

function fromJson(text: string | null): unknown {
  return text === null ? null : JSON.parse(text);
}

function parse<T>(schema: z.ZodType<T>, row: unknown, what: string): T {
  const parsed = schema.safeParse(row);
  if (!parsed.success) {
    throw new StorageError("DB_CORRUPT", `unreadable ${what} row: ${parsed.error.message}`, { cause: parsed.error });
  }
  return parsed.data;
}

/** Converts a `runs` row to a {@link RunRecord}, refusing malformed rows. */
export function rowToRun(row: unknown): RunRecord {
  const r = parse(runRow, row, "runs");
  const documents = decodeDocuments(r.run_id, r);
  return {
    runId: r.run_id,
    threadId: r.thread_id,
    graphId: r.graph_id,
    userId: r.user_id,
    status: r.status,
    priority: r.priority,
    attempts: r.attempts,
    maxAttempts: r.max_attempts,
    deadlineAt: r.deadline_at,
    waitTtlMs: r.wait_ttl_ms ?? null,
    waitExpiresAt: r.wait_expires_at ?? null,
    availableAt: r.available_at,
    usage: { steps: r.steps, modelCalls: r.model_calls, tokens: r.tokens, costUsd: r.cost_usd },
    budget: documents.budget,
    lease: r.lease_owner === null || r.lease_expires_at === null ? null : { owner: r.lease_owner, expiresAt: r.lease_expires_at },
    fencingToken: r.fencing_token,
    errorCode: r.error_code,
    errorMessage: r.error_message,
    input: fromJson(r.input_json),
    result: fromJson(r.result_json),
    pending: documents.pending,
    resume: documents.resume,
    metadata: JSON.parse(r.metadata_json) as Record<string, unknown>,
    config: documents.config,
    createdAt: r.created_at,
    updatedAt: r.updated_at,
    startedAt: r.started_at,
    finishedAt: r.finished_at,
  };
}

/** Converts a `run_events` row to a {@link RunEvent}. */
export function rowToEvent(row: unknown): RunEvent {
  const r = parse(eventRow, row, "run_events");
  return {
    eventId: r.event_id,
    runId: r.run_id,
    from: r.from_status,
    to: r.to_status,
    at: r.at,
    actor: r.actor,
    fencingToken: r.fencing_token,
    errorCode: r.error_code,
    reason: r.reason,
  };
}
