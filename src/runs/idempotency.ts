/**
 * Idempotency keys of run creates, the rules both backends share: a caller's key names the first run created with
 * it for {@link IDEMPOTENCY_TTL_MS}, stored in the create's own transaction under a unique (user, key), so a retried
 * or racing create with the same key finds that run instead of starting a second.
 * @module
 */
import { UserInputError } from "../errors.js";

/** How long a key names its run: a create repeating it later starts a new run. 24 hours. */
export const IDEMPOTENCY_TTL_MS = 24 * 60 * 60 * 1000;

/** Longest key accepted (the IETF draft's header carries an opaque string; Stripe allows 255). */
export const MAX_IDEMPOTENCY_KEY_LENGTH = 255;

/** What a keyed create stores with its run: the key and a hash of the request, to refuse the key's reuse for another. */
export interface RunIdempotency {
  key: string;
  requestHash: string;
}

/** The run a live key names and the hash of the request that created it. */
export interface IdempotentRun {
  runId: string;
  requestHash: string;
}

/** A create's key already names a live run of the same user (a retry, or a racing duplicate): `holder` is that run. */
export class IdempotencyKeyTakenError extends UserInputError {
  readonly holder: IdempotentRun;

  constructor(key: string, holder: IdempotentRun) {
    super("IDEMPOTENCY_KEY_REUSED", `idempotency key ${JSON.stringify(key)} already names run ${holder.runId}`, { details: { runId: holder.runId } });
    this.holder = holder;
  }
}

/** BAD_INPUT unless `key` is 1–255 visible ASCII characters (what an HTTP header carries unchanged). */
export function validateIdempotencyKey(key: string): string {
  if (key.length === 0 || key.length > MAX_IDEMPOTENCY_KEY_LENGTH || !/^[\x21-\x7e]+$/.test(key)) {
    throw new UserInputError("BAD_INPUT", `idempotency key must be 1 to ${MAX_IDEMPOTENCY_KEY_LENGTH} visible ASCII characters (no spaces)`);
  }
  return key;
}
