/**
 * A run create carrying an idempotency key: a retry (after a 503, a dropped connection) or a racing duplicate gets
 * the first run instead of starting a second. The key is the caller's (scoped per user) and names its run for
 * IDEMPOTENCY_TTL_MS; the same key with another request is refused (IDEMPOTENCY_KEY_REUSED), as Stripe does.
 * @module
 */
import { createHash } from "node:crypto";
import { UserInputError } from "../errors.js";
import { IdempotencyKeyTakenError, validateIdempotencyKey, type RunIdempotency, type RunRecord, type RunStore } from "../runs/index.js";
import { canonicalJson } from "../tools/args-hash.js";

/** A create's idempotency key and the request it stands for (what a repeat must match). */
export interface CreateIdempotency {
  /** 1–255 visible ASCII characters, unique per user. */
  key: string;
  /** The request as the caller received it (JSON), hashed. @default the run's graph, input, thread and options */
  request?: unknown;
}

/** The key checked and the request's hash (sha256 of its canonical JSON). */
export function runIdempotency(idempotency: CreateIdempotency, fallbackRequest: () => unknown): RunIdempotency {
  const request = idempotency.request === undefined ? fallbackRequest() : idempotency.request;
  return { key: validateIdempotencyKey(idempotency.key), requestHash: createHash("sha256").update(canonicalJson(request ?? null)).digest("hex") };
}

/** The first run `userId`'s key names, if it lives; IDEMPOTENCY_KEY_REUSED when it was made by another request. */
export async function firstRunOf(runs: RunStore, userId: string, idempotency: RunIdempotency): Promise<RunRecord | undefined> {
  const holder = await runs.findIdempotent(userId, idempotency.key);
  if (holder === undefined) return undefined;
  if (holder.requestHash !== idempotency.requestHash) throw reused(idempotency.key, holder.runId);
  return runs.get(holder.runId);
}

/** `create`, or the first run when a racing create with the same key stored it first. */
export async function createOnce(runs: RunStore, idempotency: RunIdempotency | undefined, create: () => Promise<RunRecord>): Promise<{ run: RunRecord; replayed: boolean }> {
  try {
    return { run: await create(), replayed: false };
  } catch (error) {
    const first = heldBy(error, idempotency);
    if (first === undefined) throw error;
    return { run: await runs.get(first), replayed: true };
  }
}

/** The first run's id when `error` refused a create whose key a racing create stored first with the same request. */
export function heldBy(error: unknown, idempotency: RunIdempotency | undefined): string | undefined {
  if (!(error instanceof IdempotencyKeyTakenError) || idempotency === undefined) return undefined;
  if (error.holder.requestHash !== idempotency.requestHash) throw reused(idempotency.key, error.holder.runId);
  return error.holder.runId;
}

function reused(key: string, runId: string): UserInputError {
  return new UserInputError(
    "IDEMPOTENCY_KEY_REUSED",
    `idempotency key ${JSON.stringify(key)} was used for another request (run ${runId}); use a new key for a new run`,
    { details: { runId } },
  );
}
