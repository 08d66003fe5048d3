/**
 * Idempotency keys on PostgreSQL: written in the create's transaction. A racing create with the same key waits on the
 * unique index until the first commits, then finds its row live (ON CONFLICT's condition sees the committed row) and
 * is refused with the first run.
 * @module
 */
import type { PgQueryable } from "../db/postgres/index.js";
import { IDEMPOTENCY_TTL_MS, IdempotencyKeyTakenError, type IdempotentRun, type RunIdempotency } from "./idempotency.js";
import { pgRows } from "./postgres-run-rows.js";

// A row past its time is taken over in place: the unique (user, key) must not refuse a key whose run is forgotten.
const CLAIM_KEY = `INSERT INTO run_idempotency_keys (user_id, idem_key, run_id, request_hash, created_at) VALUES ($1, $2, $3, $4, $5)
  ON CONFLICT (user_id, idem_key) DO UPDATE SET run_id = excluded.run_id, request_hash = excluded.request_hash, created_at = excluded.created_at
  WHERE run_idempotency_keys.created_at <= $6 RETURNING run_id`;
const FIND_KEY = "SELECT run_id, request_hash FROM run_idempotency_keys WHERE user_id = $1 AND idem_key = $2 AND created_at > $3";
const PRUNE = "DELETE FROM run_idempotency_keys WHERE created_at <= $1";

/** The live run `userId`'s `key` names, if any. */
export async function findIdempotentPg(on: PgQueryable, userId: string, key: string, now: number): Promise<IdempotentRun | undefined> {
  const [row] = await pgRows(on, FIND_KEY, [userId, key, now - IDEMPOTENCY_TTL_MS]);
  return row === undefined ? undefined : { runId: row.run_id as string, requestHash: row.request_hash as string };
}

/** Inside the create's transaction: the key names `runId` from now on, else IdempotencyKeyTakenError naming its live run. */
export async function claimKeyPg(on: PgQueryable, userId: string, idempotency: RunIdempotency, runId: string, now: number): Promise<void> {
  const cutoff = now - IDEMPOTENCY_TTL_MS;
  await pgRows(on, PRUNE, [cutoff]);
  const claimed = await pgRows(on, CLAIM_KEY, [userId, idempotency.key, runId, idempotency.requestHash, now, cutoff]);
  if (claimed.length > 0) return;
  const holder = await findIdempotentPg(on, userId, idempotency.key, now);
  throw new IdempotencyKeyTakenError(idempotency.key, holder ?? { runId: "?", requestHash: "" });
}
