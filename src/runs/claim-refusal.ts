/**
 * What a worker does while the database refuses its claims: a full or failing disk (STORAGE_FULL,
 * STORAGE_IO_ERROR) or a PostgreSQL server it cannot reach or lost (DB_UNREACHABLE, DB_CONNECTION_LOST). None
 * is a bug or the worker's fault, and each may pass: the worker asks again after a pause that doubles from
 * 100 ms to 5 s, jittered so that many workers cut off together do not come back in step, and says so once.
 * @module
 */
import { connectionFailure, storageFailure } from "../db/index.js";
import type { StorageError } from "../errors.js";

const FIRST_PAUSE_MS = 100;
const MAX_PAUSE_MS = 5000;

/** The storage error `error` means when a later attempt may succeed (see the module comment); undefined otherwise. */
export function transientStorageFailure(error: unknown): StorageError | undefined {
  return storageFailure(error) ?? connectionFailure(error);
}

/**
 * The pause after the `refusals`-th refusal in a row (1, 2, …): 100 ms doubling up to 5 s, then a random
 * part of it dropped (at most half), so pauses stay within [half, whole] of the doubled value.
 */
export function claimPauseMs(refusals: number, random: () => number = Math.random): number {
  const nominal = Math.min(MAX_PAUSE_MS, FIRST_PAUSE_MS * 2 ** Math.max(0, Math.min(refusals - 1, 16)));
  return Math.round(nominal / 2 + (nominal / 2) * random());
}

/** A series of refusals: how many in a row, and no claim before `until`. */
export class ClaimRefusals {
  private count = 0;
  private until = 0;
  private readonly random: () => number;

  constructor(random: () => number = Math.random) {
    this.random = random;
  }

  /** Milliseconds left of the current pause (0 when the database may be asked again). */
  msLeft(now: number): number {
    return Math.max(0, this.until - now);
  }

  /** Records a refusal at `now`; true for the first of a series (the one to report). */
  refused(now: number): boolean {
    this.count++;
    this.until = now + claimPauseMs(this.count, this.random);
    return this.count === 1;
  }

  /** The database took a claim: the next refusal starts a new series. */
  answered(): void {
    this.count = 0;
    this.until = 0;
  }
}
