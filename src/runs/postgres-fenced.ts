/**
 * The lease holder's fenced writes on PostgreSQL, each one statement on the happy path (`UPDATE … WHERE
 * fencing_token = $n … RETURNING`); only a refused write reads the run back to say why (the LeaseLostError
 * SQLite's assertFence gives). They run on the pool (autocommit) or on another module's transaction client.
 * @module
 */
import type { PgQueryable, PgTransactionClient } from "../db/postgres/index.js";
import { SystemError } from "../errors.js";
import { UnknownRunError } from "./errors.js";
import { assertFence } from "./fence.js";
import { assertTransition, type RunStatus } from "./lifecycle.js";
import { getRun, pgRows } from "./postgres-run-rows.js";
import { rowToRun, type RunRecord, type RunUsage } from "./run-record.js";

// A RETRYING run with an owner is backing off in its holder's process: its lease is still held.
const HELD = "run_id = $1 AND fencing_token = $2 AND status IN ('RUNNING', 'RETRYING') AND lease_owner IS NOT NULL";

const ADD_USAGE = `UPDATE runs SET steps = steps + $3::bigint, model_calls = model_calls + $4::bigint, tokens = tokens + $5::bigint,
  cost_usd = cost_usd + $6::float8, updated_at = $7 WHERE ${HELD} RETURNING *`;

// FOR SHARE: a claim taking the run over waits until the fenced transaction commits (SQLite's write lock does the same).
const FENCE = "SELECT run_id, status, fencing_token, lease_owner FROM runs WHERE run_id = $1 FOR SHARE";

const BACKOFF = `WITH upd AS (
  UPDATE runs SET status = $3::text, updated_at = $5::bigint WHERE run_id = $1 AND fencing_token = $2::bigint AND status = $4::text AND lease_owner IS NOT NULL RETURNING *),
ev AS (INSERT INTO run_events (run_id, from_status, to_status, at, actor, fencing_token, reason)
  SELECT run_id, $4::text, $3::text, $5::bigint, $6::text, $2::bigint, $7::text FROM upd)
SELECT * FROM upd`;

// Schema V5's run_fence: the fence as one statement that raises (AL409 with "status token held", AL404) when the
// lease is gone, with usage when $7 (now) is given.
const RUN_FENCE = "SELECT run_fence($1::text, $2::bigint, $3::bigint, $4::bigint, $5::bigint, $6::float8, $7::bigint)";

/** Rounds of read-then-guarded-write before a write that keeps losing to other writers gives up. */
export const WRITE_ROUNDS = 5;

/** LeaseLostError (or UnknownRunError) from the run as it is now; returns only when the lease is in fact held. */
async function refused(on: PgQueryable, runId: string, fence: number): Promise<RunRecord> {
  const run = await getRun(on, runId);
  assertFence(run, fence);
  return run;
}

/** Adds usage as the lease holder in one statement; returns the record as written. */
export async function addUsageFenced(on: PgQueryable, runId: string, fence: number, delta: Partial<RunUsage>, now: number): Promise<RunRecord> {
  const values = [runId, fence, delta.steps ?? 0, delta.modelCalls ?? 0, delta.tokens ?? 0, delta.costUsd ?? 0, now];
  const row = (await pgRows(on, ADD_USAGE, values))[0];
  if (row !== undefined) return rowToRun(row);
  await refused(on, runId, fence);
  throw new SystemError("INTERNAL", `run ${runId}: usage not updated although the lease is held`);
}

/** LeaseLostError unless `fence` holds the run's lease; with `share`, the row stays share-locked until the transaction ends. */
export async function assertHeldOn(on: PgQueryable, runId: string, fence: number, share: boolean): Promise<void> {
  const sql = share ? FENCE : FENCE.replace(" FOR SHARE", "");
  const rows = await pgRows(on, sql, [runId]);
  const row = rows[0];
  if (row === undefined) throw new UnknownRunError(runId);
  const owner = row.lease_owner as string | null;
  assertFence({ runId, status: row.status as RunStatus, fencingToken: Number(row.fencing_token), lease: owner === null ? null : { owner, expiresAt: 0 } }, fence);
}

/**
 * The fence (with usage when given) held to travel in front of the transaction's next send, failing it with
 * LeaseLostError (or UnknownRunError) when the lease is gone; false when it could not be held (run it yourself).
 */
export function holdFence(client: PgTransactionClient, runId: string, fence: number, usage: Partial<RunUsage> | undefined, now: number): boolean {
  const values = usage === undefined
    ? [runId, fence, 0, 0, 0, 0, null]
    : [runId, fence, usage.steps ?? 0, usage.modelCalls ?? 0, usage.tokens ?? 0, usage.costUsd ?? 0, now];
  return client.sendWithNext({ text: RUN_FENCE, values }, (error) => fenceFailure(error, runId, fence));
}

/** What run_fence's error means (LeaseLostError, UnknownRunError); any other error as it is. */
export function fenceFailure(error: unknown, runId: string, fence: number): unknown {
  const { code, detail } = error as { code?: unknown; detail?: unknown };
  if (code === "AL404") return new UnknownRunError(runId);
  if (code !== "AL409" || typeof detail !== "string") return error;
  const [status, token, held] = detail.split(" ");
  try {
    assertFence({ runId, status: status as RunStatus, fencingToken: Number(token), lease: held === "true" ? { owner: "", expiresAt: 0 } : null }, fence);
  } catch (lost) {
    return lost;
  }
  return error;
}

/** Why a heartbeat matched nothing: LeaseLostError (or UnknownRunError); returns when the lease is in fact held. */
export async function refusedRenewal(on: PgQueryable, runId: string, fence: number): Promise<void> {
  await refused(on, runId, fence);
}

/** Moves the holder's run between RUNNING and RETRYING under its lease, with its event; one statement when it is where expected. */
export async function setBackoffFenced(
  on: PgQueryable, runId: string, fence: number, to: "RETRYING" | "RUNNING", options: { actor: string; reason: string }, now: number,
): Promise<RunRecord> {
  let from: RunStatus = to === "RETRYING" ? "RUNNING" : "RETRYING";
  for (let round = 0; round < WRITE_ROUNDS; round++) {
    const row = (await pgRows(on, BACKOFF, [runId, fence, to, from, now, options.actor, options.reason]))[0];
    if (row !== undefined) return rowToRun(row);
    const run = await refused(on, runId, fence);
    if (run.status === to) return run;
    assertTransition(run.status, to, runId);
    from = run.status;
  }
  throw new SystemError("INTERNAL", `run ${runId}: kept changing while its backoff was being recorded`);
}
