/**
 * Idempotency keys on SQLite: written inside the create's transaction (the file's write lock orders racing creates),
 * pruned there once past their time.
 * @module
 */
import type { SqliteDatabase } from "../db/index.js";
import { IDEMPOTENCY_TTL_MS, IdempotencyKeyTakenError, type IdempotentRun, type RunIdempotency } from "./idempotency.js";

// A row past its time is taken over in place: the unique (user, key) must not refuse a key whose run is forgotten.
const CLAIM_KEY = `INSERT INTO run_idempotency_keys (user_id, idem_key, run_id, request_hash, created_at) VALUES (?, ?, ?, ?, ?)
  ON CONFLICT (user_id, idem_key) DO UPDATE SET run_id = excluded.run_id, request_hash = excluded.request_hash, created_at = excluded.created_at
  WHERE run_idempotency_keys.created_at <= ? RETURNING run_id`;
const FIND_KEY = "SELECT run_id, request_hash FROM run_idempotency_keys WHERE user_id = ? AND idem_key = ? AND created_at > ?";
const PRUNE = "DELETE FROM run_idempotency_keys WHERE created_at <= ?";

/** The live run `userId`'s `key` names, if any. */
export function findIdempotentSqlite(db: SqliteDatabase, userId: string, key: string, now: number): IdempotentRun | undefined {
  const row = db.prepare(FIND_KEY).get(userId, key, now - IDEMPOTENCY_TTL_MS) as { run_id: string; request_hash: string } | undefined;
  return row === undefined ? undefined : { runId: row.run_id, requestHash: row.request_hash };
}

/** Inside the create's transaction: the key names `runId` from now on, else IdempotencyKeyTakenError naming its live run. */
export function claimKeySqlite(db: SqliteDatabase, userId: string, idempotency: RunIdempotency, runId: string, now: number): void {
  const cutoff = now - IDEMPOTENCY_TTL_MS;
  db.prepare(PRUNE).run(cutoff);
  const claimed = db.prepare(CLAIM_KEY).get(userId, idempotency.key, runId, idempotency.requestHash, now, cutoff);
  if (claimed !== undefined) return;
  const holder = findIdempotentSqlite(db, userId, idempotency.key, now);
  // The conflicting row is live (the update's condition failed), and the write lock keeps it so until commit.
  throw new IdempotencyKeyTakenError(idempotency.key, holder ?? { runId: "?", requestHash: "" });
}
