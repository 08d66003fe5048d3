/**
 * The shape of a run as the rest of agentrt sees it, and the parsing of rows
 * read back from the `runs` table.
 * @module
 */
import type { RunGraphConfig } from "./graph-config.js";
import { RUN_STATUSES, type RunStatus } from "./lifecycle.js";
import { rawRow, RowFields } from "./row-fields.js";
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

/** JSON text for a column; `undefined` is stored as NULL. */
export function toJson(value: unknown): string | null {
  return value === undefined ? null : JSON.stringify(value);
}

/**
 * Converts a `runs` row to a {@link RunRecord}, refusing malformed rows (DB_CORRUPT naming the column). Each column
 * is type-checked by hand, not by a zod object: this runs on every read and transition of a run.
 */
export function rowToRun(row: unknown): RunRecord {
  const raw = rawRow("runs", row);
  const r = new RowFields("runs", raw, "run_id");
  const runId = r.text("run_id");
  const leaseOwner = r.textOrNull("lease_owner");
  const leaseExpiresAt = r.intOrNull("lease_expires_at");
  const documents = decodeDocuments(runId, {
    budget_json: r.text("budget_json"),
    // Added by runs schema v3; absent in rows selected from an older file.
    config_json: r.textOrNull("config_json", true),
    pending_json: r.textOrNull("pending_json"),
    resume_json: r.textOrNull("resume_json"),
  });
  return {
    runId,
    threadId: r.text("thread_id"),
    graphId: r.text("graph_id"),
    userId: r.text("user_id"),
    status: r.oneOf("status", RUN_STATUSES),
    priority: r.int("priority"),
    attempts: r.int("attempts"),
    maxAttempts: r.int("max_attempts"),
    deadlineAt: r.intOrNull("deadline_at"),
    // Added by runs schema v2.
    waitTtlMs: r.intOrNull("wait_ttl_ms", true),
    waitExpiresAt: r.intOrNull("wait_expires_at", true),
    availableAt: r.int("available_at"),
    usage: { steps: r.int("steps"), modelCalls: r.int("model_calls"), tokens: r.int("tokens"), costUsd: r.number("cost_usd") },
    budget: documents.budget,
    lease: leaseOwner === null || leaseExpiresAt === null ? null : { owner: leaseOwner, expiresAt: leaseExpiresAt },
    fencingToken: r.int("fencing_token"),
    errorCode: r.textOrNull("error_code"),
    errorMessage: r.textOrNull("error_message"),
    input: fromJson(r, "input_json", r.textOrNull("input_json")),
    result: fromJson(r, "result_json", r.textOrNull("result_json")),
    pending: documents.pending,
    resume: documents.resume,
    metadata: fromJson(r, "metadata_json", r.text("metadata_json")) as Record<string, unknown>,
    config: documents.config,
    createdAt: r.int("created_at"),
    updatedAt: r.int("updated_at"),
    startedAt: r.intOrNull("started_at"),
    finishedAt: r.intOrNull("finished_at"),
  };
}

function fromJson(r: RowFields, column: string, text: string | null): unknown {
  if (text === null) return null;
  try {
    return JSON.parse(text);
  } catch {
    return r.refuse(column, "JSON text");
  }
}

/** Converts a `run_events` row to a {@link RunEvent}, refusing malformed rows (DB_CORRUPT naming the column). */
export function rowToEvent(row: unknown): RunEvent {
  const r = new RowFields("run_events", rawRow("run_events", row), "event_id");
  const from = r.textOrNull("from_status");
  return {
    eventId: r.int("event_id"),
    runId: r.text("run_id"),
    from: from === null ? null : r.oneOf("from_status", RUN_STATUSES),
    to: r.oneOf("to_status", RUN_STATUSES),
    at: r.int("at"),
    actor: r.textOrNull("actor"),
    fencingToken: r.intOrNull("fencing_token"),
    errorCode: r.textOrNull("error_code"),
    reason: r.textOrNull("reason"),
  };
}
